"""iproute2's ``rdma statistic show`` on real pastes: one line per port, a mail's wrapping, readings, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import rdma_statistic as R
from stethoscope.facts.parsers import rdma_link
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "rdma_statistic"


def parse(text):
    return R.parse(Artefact(path="stat.txt", text=text, node="n1", node_from_folder=True))


def test_oci_one_line_per_port():
    text = (A / "oci_grep_mlx5_2.txt").read_text()
    assert R.detect(text) and not rdma_link.detect(text)
    (f,) = parse(text).facts
    assert (f.hca, f.port, f.port_id, f.source, f.rx_write_requests, f.local_ack_timeout_err, f.rx_icrc_encapsulated) == (
        "mlx5_2", 1, "n1/mlx5_2/1", "rdma_statistic", 18747, 0, 0)
    assert f.evidence.line == 2


def test_wrapped_mail_continues_the_port():
    res = parse((A / "netdev_optional_counters_wrapped.txt").read_text())
    (f,) = res.facts
    assert (f.hca, f.np_cnp_sent, f.rx_icrc_encapsulated, f.out_of_sequence) == ("rocep8s0f0", 0, 0, 0)
    assert res.lines_used == 8


def test_same_port_twice_is_two_readings_and_qp_lines_are_left():
    res = parse("link mlx5_0/1 out_of_sequence 1 packet_seq_err 2\n"
                "link mlx5_2/1 cntn 5 pid 31609 comm client.1 rx_write_requests 0\n"
                "link mlx5_0/1 out_of_sequence 5 packet_seq_err 2\n")
    assert [(f.hca, f.reading, f.out_of_sequence) for f in res.facts] == [("mlx5_0", 0, 1), ("mlx5_0", 1, 5)]


def test_near_misses():
    assert not R.detect("link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 3 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP\n")
    assert not R.detect("link rocep8s0f0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts\n")
    assert parse("").facts == []

"""sysfs hw_counters / counters pastes: grep's path:value, a loop's bare name:value after cd, readings, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import sysfs_ib_counters as S
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
NCCL394 = ROOT / "fixtures/harvest/cases/2900-roce-hang-gid-index-changed-hw-counters-ack-timeouts-out-of-sequence/other.txt"
A = ROOT / "fixtures" / "artefacts" / "sysfs_ib_counters"


def parse(text):
    return S.parse(Artefact(path="hw.txt", text=text, node="n1", node_from_folder=True))


def test_nccl394_grep_path_value():
    text = NCCL394.read_text()
    assert S.detect(text)
    res = parse(text)
    assert not res.errors and len(res.facts) == 1
    f = res.facts[0]
    assert (f.kind, f.hca, f.port, f.port_id, f.source) == ("rdma_hw_counters", "mlx5_0", 1, "n1/mlx5_0/1", "sysfs")
    assert (f.local_ack_timeout_err, f.out_of_sequence, f.packet_seq_err, f.req_cqe_error, f.resp_cqe_error) == (91316, 6140236, 929974, 2, 20540)
    assert f.resp_cqe_flush_error is None  # the paste is cut before it


def test_ernic_loop_bare_names_take_the_cd_folder():
    res = parse((A / "ernic_pg332_hw_counters_for_loop.txt").read_text())
    (f,) = res.facts
    assert (f.hca, f.port, f.rx_write_requests, f.local_ack_timeout_err) == ("mlx5_0", 1, 108307999, 0)
    assert res.lines_used == 11  # 'lifespan' is read and left


def test_port_counters_and_two_readings():
    text = ("2024-03-05T10:00:00+00:00\n"
            "/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error 3\n"
            "/sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_packets 77\n"
            "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/local_ack_timeout_err 4\n"
            "2024-03-05T11:00:00+00:00\n"
            "/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error 9\n"
            "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/local_ack_timeout_err 4\n")
    res = parse(text)
    pma = [f for f in res.facts if f.kind == "ib_port_counters"]
    hw = [f for f in res.facts if f.kind == "rdma_hw_counters"]
    assert [(f.reading, f.symbol_errors, f.source, f.port_id) for f in pma] == [(0, 3, "sysfs", "n1/mlx5_1/1"), (1, 9, "sysfs", "n1/mlx5_1/1")]
    assert [(f.reading, f.time_s) for f in hw] == [(0, 1709632800.0), (1, 1709636400.0)]


def test_near_misses_and_bad_value():
    assert not S.detect("rx_crc_errors_phy: 0\n     rx_packets: 5\nlocal_ack_timeout_err: 0\n")  # one known name only
    assert not S.detect("cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence\n")  # the command, no value
    res = parse("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:N/A\n")
    assert res.errors and not res.facts
    assert parse("").facts == []


def test_cat_with_the_count_on_the_next_line():
    text = ("$ cat /sys/class/infiniband/mlx5_13/ports/1/hw_counters/req_cqe_error\n3\n"
            "$ cat /sys/class/infiniband/mlx5_13/ports/1/hw_counters/local_ack_timeout_err\n1204\n")
    assert S.detect(text)
    (f,) = parse(text).facts
    assert (f.hca, f.req_cqe_error, f.local_ack_timeout_err) == ("mlx5_13", 3, 1204)


def test_traffic_alone_lists_no_error_counter():
    # a reading of the responder's request counters only shows no retry, error or drop: it checks nothing
    # (knowledge/coverage.yaml unless errors_listed false); one error counter beside them, at zero, checks
    traffic = ("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests:108307999\n"
               "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_read_requests:5\n")
    (f,) = parse(traffic).facts
    assert f.errors_listed is False
    (g,) = parse(traffic + "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:0\n").facts
    assert g.errors_listed is True


# prometheus/node_exporter#966: grep -s . of an Intel X722's iWARP port counters under its PCI path
I40IW_966 = """# i40iw
# grep -s . /sys/devices/pci0000:05/0000:05:02.0/0000:07:00.0/0000:08:03.0/0000:09:00.0/infiniband/i40iw*/ports/1/counters/*
/sys/devices/pci0000:05/0000:05:02.0/0000:07:00.0/0000:08:03.0/0000:09:00.0/infiniband/i40iw0/ports/1/counters/excessive_buffer_overrun_errors:N/A (no PMA)
/sys/devices/pci0000:05/0000:05:02.0/0000:07:00.0/0000:08:03.0/0000:09:00.0/infiniband/i40iw0/ports/1/counters/link_downed:N/A (no PMA)
/sys/devices/pci0000:05/0000:05:02.0/0000:07:00.0/0000:08:03.0/0000:09:00.0/infiniband/i40iw0/ports/1/counters/port_rcv_errors:N/A (no PMA)
"""


def test_no_pma_counters_are_read_with_no_count_and_no_error():
    assert S.detect(I40IW_966)
    res = parse(I40IW_966)
    assert res.facts == [] and not res.errors and res.lines_used == 3


def test_a_count_under_the_devices_pci_path_is_read():
    # the same path with a number, as sysfs gives it for a device with a PMA (kernel show_pma_counter "%u\n")
    res = parse("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0/ports/1/counters/link_downed:3\n")
    (f,) = res.facts
    assert (f.kind, f.hca, f.port, f.link_downed) == ("ib_port_counters", "mlx5_0", 1, 3)


def test_another_not_a_number_is_still_an_error():
    res = parse("/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed:N/A\n")
    assert res.facts == [] and len(res.errors) == 1

"""mooncake_transfer: Mooncake's failed RDMA completions and the NICs it marks inactive."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import mooncake_transfer
from stethoscope.facts.parsers.base import Artefact

def parse(text: str):
    """The reader's result on ``text`` as a bundle would hand it over (wrappers stripped first)."""
    artefact = Artefact(path="prefill.log", text=text, node="node1")
    artefact.normalise()
    return mooncake_transfer.parse(artefact)


FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/mooncake_transfer"


def facts(name: str):
    text = (FIX / name).read_text()
    assert mooncake_transfer.detect(text)
    out = []
    for f in parse(text).facts:
        nic = f.local_nic if f.kind == "mooncake_slice_failed" else f.device
        out.append((f.kind, f.evidence.line, getattr(f, "status", None), nic, getattr(f, "peer", None)))
    return out


def test_slice_failed_head_cut_and_nic_inactive():
    # sglang#8324: the first slice line lost its head in the paste; the last is cut before its status
    assert facts("sglang8324_local_protection_nic_inactive_cut.log") == [
        ("mooncake_slice_failed", 1, 4, "mlx5_bond_2", "10.0.2.98:15992"),
        ("mooncake_nic_inactive", 2, None, "mlx5_bond_2", None)]
    r = parse((FIX / "sglang8324_local_protection_nic_inactive_cut.log").read_text())
    assert r.lines_used == 4  # the "Context is not active" line and the cut slice line beside the facts


def test_retry_exceeded_and_two_nics():
    assert [f[2:] for f in facts("sglang6854_retry_exceeded.log")] == [(12, "mlx5_7", "10.93.81.13:15729"),
                                                                        (12, "mlx5_7", "10.93.81.13:15695")]
    got = facts("sglang10560_local_protection_two_nics.log")
    assert [f[0] for f in got] == ["mooncake_slice_failed", "mooncake_nic_inactive", "mooncake_slice_failed", "mooncake_slice_failed"]
    assert [f[3] for f in got] == ["mlx5_7", "mlx5_7", "mlx5_3", "mlx5_3"]


def test_near_misses():
    # "Context is not active" alone, a cut slice line alone, a status libibverbs does not name: no fact, nothing read
    for text in ("E0724 03:14:20.707079 104002 rdma_context.cpp:261] Context is not active: mlx5_bond_2\n",
                 "E0724 03:14:20.710896 104002 worker_pool.cpp:289] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f61fc\n",
                 "x local_nic: mlx5_0, peer_nic: 1.2.3.4:5@mlx5_0, dest_rkey: 1, retry_cnt: 0): something else\n"):
        r = parse(text)
        assert (r.facts, r.lines_used) == ([], 0)
    assert not mooncake_transfer.detect("NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n")


def test_handshake_rtr_old_form_mooncake204():
    # kvcache-ai/Mooncake#204: the error and its errno; the second line the paste cut is read beside it
    text = (FIX / "mooncake204_handshake_rtr_timed_out.log").read_text()
    assert mooncake_transfer.detect(text)
    res = mooncake_transfer.parse(Artefact(path="t.log", text=text, node="node1"))
    assert [(f.kind, f.state, f.error, f.errno) for f in res.facts] == [
        ("mooncake_qp_transition_failed", "RTR", "Connection timed out", 110)]
    assert res.lines_used == 2


def test_handshake_rtr_new_form():
    # rdma_endpoint.cpp's newer LOG(ERROR) stream (the format, filled): NIC paths, GID index and MTU before the error
    line = ("[Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: local=10.0.2.69:15858@mlx5_1, "
            "peer=10.0.2.70:15858@mlx5_1, qp_index=0, local_qp=123, peer_qp=456, local_gid=00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:02:45, "
            "local_gid_index=3, peer_gid=00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:02:46, peer_lid=0, path_mtu=5, port_num=1: Invalid argument\n")
    (f,) = mooncake_transfer.parse(Artefact(path="t.log", text=line, node="node1")).facts
    assert (f.state, f.error, f.errno, f.local_nic, f.peer, f.gid_index, f.path_mtu) == (
        "RTR", "Invalid argument", None, "10.0.2.69:15858@mlx5_1", "10.0.2.70:15858@mlx5_1", 3, 5)


def test_handshake_line_cut_before_its_error_alone_gives_nothing():
    res = mooncake_transfer.parse(Artefact(path="t.log", text="E0331 12:03:05.342602 56060 rdma_endpoint.cpp:385] "
                                           "[Handshake] Failed to modify QP to RTR, check mtu, gid, pee\n", node="node1"))
    assert res.facts == [] and res.lines_used == 0


def test_no_available_rnic_names_the_nics_that_failed_to_open():
    text = (FIX / "mooncake1384_no_available_rnic.log").read_text()
    assert mooncake_transfer.detect(text)
    res = mooncake_transfer.parse(Artefact(path="te.log", text=text, node="n1"))
    (f,) = res.facts
    assert (f.kind, f.reason, f.devices, f.failed) == ("mooncake_rdma_unavailable", "no_usable_nic", "mlx5_8", True)
    assert res.lines_used == 4  # open, disable, no RNIC, cannot initialise


def test_no_device_is_a_failure_only_with_its_fallback_losing_an_address():
    warn = "W0808 10:00:01.000001  1234 topology.cpp:152] No RDMA devices found, check your device installation\n"
    lost = "E0808 10:05:07.120001  1290 nvlink_transport.cpp:497] Requested address 0x7f3a00000000 to 0x7f3a00010000 not found!\n"
    (alone,) = mooncake_transfer.parse(Artefact(path="s.log", text=warn, node="n1")).facts
    assert (alone.reason, alone.failed) == ("no_device", False)
    (both,) = mooncake_transfer.parse(Artefact(path="s.log", text=warn + lost, node="n1")).facts
    assert (both.fallback_failed, both.failed) == (True, True)
    assert not mooncake_transfer.parse(Artefact(path="s.log", text=lost, node="n1")).facts  # alone: the catch-all's


def test_a_refused_registration_s_echoes_are_read_beside_it():
    # Mooncake#1754's lines (real; the PLOG line is verbs_perror's failed ibv_reg_mr) after a slice failure (sglang#6854's)
    refusal = (FIX.parent / "verbs_perror/mooncake1754_erdma_register_memory_eio.log").read_text()
    text = (FIX / "sglang6854_retry_exceeded.log").read_text() + refusal
    alone = parse((FIX / "sglang6854_retry_exceeded.log").read_text()).lines_used
    # the transport's warning and the transfer's 'Memory region not registered' line
    assert parse(text).lines_used == alone + 2
    # with no refusal in the file, the echo is not read here
    assert parse((FIX / "sglang6854_retry_exceeded.log").read_text()
                 + "E0326 14:23:06.526178 18039 rdma_transport.cpp:529] Memory region not registered by any active device(s): 0x7f3e26088000\n"
                 ).lines_used == alone


def test_transfer_failed_tcp_and_timeout():
    # kvcache-ai/Mooncake#292: the TCP transport's refusal is the reason; the store client's task and retry lines are read
    # beside it. Mooncake#1088: the waiting side's timeout (transfer_task.cpp's form, with its batch)
    text = (FIX / "mooncake292_tcp_connection_refused.log").read_text()
    assert mooncake_transfer.detect(text)
    r = parse(text)
    assert [(f.kind, f.reason, f.error, f.evidence.line) for f in r.facts] == [
        ("mooncake_transfer_failed", "tcp_error", "connect: Connection refused", 6)]
    assert r.lines_used == 16
    text = (FIX / "mooncake1088_transfer_timeout_hicache.log").read_text()
    assert mooncake_transfer.detect(text)
    r = parse(text)
    assert [(f.reason, f.timeout_s, f.batch) for f in r.facts] == [("timeout", 60, "2586731328")]


def test_transfer_failed_forms_and_near_misses():
    # CONSTRUCTED from mooncake-store client.cpp's older forms: the timeout without a batch, retries spent, a task alone
    head = "E0101 00:00:00.000000 1 client.cpp:300] "
    for msg, want in (("Failed to complete transfers after 60 seconds", ("timeout", 60)),
                      ("transfer_incomplete max_attempts=3", ("retries_exhausted", None)),
                      ("Transfer incomplete after max attempts: 3", ("retries_exhausted", None)),
                      ("Transfer failed for task 2 with status 4", ("task_failed", None)),
                      ("Transfer 0 error, error_code=-1", ("task_failed", None))):
        text = head + msg + "\n"
        assert mooncake_transfer.detect(text), msg
        assert [(f.reason, f.timeout_s) for f in parse(text).facts] == [want], msg
    # a retry warning alone, and the words without glog's source head: nothing
    for text in ("W0423 16:34:48.911494 217200 client.cpp:353] Transfer incomplete, retrying... (attempt 1/3)\n",
                 "upload: Transfer failed for task1 (http 503)\n"):
        assert (parse(text).facts, parse(text).lines_used) == ([], 0)
    assert not mooncake_transfer.detect("upload: Transfer failed for task1 (http 503)\n")

"""perftest's own failure lines (fixtures/artefacts/perftest, each thread in its README; the format strings of
linux-rdma/perftest src/perftest_communication.c, perftest_resources.c filled in for the rest)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import perftest
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/perftest"


def _facts(text: str):
    return [f for f in perftest.parse(Artefact(path="ib_write_bw.out", text=text, node="n1")).facts if f.kind == "perftest_failure"]


@pytest.mark.parametrize("name, expected", [
    ("ucx8702_mr_allocation_failed.txt", [(1, "resources"), (2, "resources"), (3, "resources"), (4, "resources")]),
    ("perftest228_couldnt_connect.txt", [(2, "connection"), (3, "connection")]),
    ("perftest132_rdma_cm_rts.txt", [(2, "connection"), (3, "connection"), (4, "connection"), (6, "qp_transition"),
                                     (7, "qp_transition")]),
    ("perftest54_rdma_cm_rejected.txt", [(3, "connection")]),
])
def test_real_threads(name, expected):
    text = (FIX / name).read_text()
    assert perftest.detect(text)
    assert [(f.evidence.line, f.stage) for f in _facts(text)] == expected


def test_peer_of_the_client_connect():
    (f, _) = _facts((FIX / "perftest228_couldnt_connect.txt").read_text())
    assert f.peer == "192.168.125.211:18515"


@pytest.mark.parametrize("text, side, status, name, synd", [
    (" Completion with error at client\n Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81\n",
     "client", 12, "transport retry counter exceeded", 0x81),
    (" Completion with error at server\n Failed status 5: wr_id 3 syndrom 0xf9\n", "server", 5, None, 0xf9),
    # the two lines run together, as GitHub shows a paste outside a code block (the form of zrlio/softiwarp's title)
    (" Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0\n", "client", 12, None, 0x81),
    # perftest_resources.c run_iter_bw / run_iter_bi / clean_scq_credit (credit and scredit in later releases)
    ("Poll send CQ error status=12 qp 0\n", None, 12, None, None),
    ("Poll send CQ error status=5 qp 1 credit=0 scredit=128\n", None, 5, None, None),
    # perftest_communication.c rdma_read_keys / ctx_xchg_data_rdma, rdma_write_keys, create_ah_from_wc_recv (-R)
    ("Bad wc status -- 5 -- 0 \n", None, 5, None, None),
    (" Bad wc status 12\n", None, 12, None, None),
    ("Bad wc status when trying to create AH -- 13 -- 0 \n", None, 13, None, None),
])
def test_completion_errors(text, side, status, name, synd):
    (f,) = _facts(text)
    assert (f.stage, f.side, f.status, f.status_name, f.syndrome) == ("completion", side, status, name, synd)


@pytest.mark.parametrize("line, stage", [
    ("Failed to modify QP 0 to RTR", "qp_transition"),
    ("IB device mlx5_4 not found", "device"),
    (" Port number 1 state is Down", "device"),
    ("Couldn't create QP", "resources"),
    ("Couldn't listen to port 18515", "connection"),
    ("Event: RDMA_CM_EVENT_UNREACHABLE; error: -110.", "connection"),
    ("Event: RDMA_CM_EVENT_ADDR_ERROR; error: -19.", "connection"),
    ("Failed to resolve RDMA CM address.", "connection"),
])
def test_format_strings_filled_in(line, stage):
    (f,) = _facts(line + "\n")
    assert f.stage == stage


@pytest.mark.parametrize("text", [
    "NCCL WARN NET/IB : Couldn't connect to the proxy\n",  # another program's words
    "Failed to modify the queue depth of sda\n",
    "Event: RDMA_CM_EVENT_ESTABLISHED\n",  # no error number: not the error handler's line
    "************************************\n* Waiting for client to connect... *\n************************************\n",
])
def test_near_misses(text):
    assert not perftest.detect(text) and _facts(text) == []


@pytest.mark.parametrize("text", [
    "Bad wc status\n",  # no number: not perftest's form
    "[MPRUD] Poll send CQ error status=12 qp 0\n",  # another program's copy of the loop
    "Poll send CQ failed ne=-1\n",  # ibv_poll_cq itself failed: no work completion status
])
def test_near_misses(text):
    assert _facts(text) == []


def test_status_line_joins_the_message():
    (f,) = _facts(" Completion with error at client\n Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81\n")
    assert f.message == "Completion with error at client / Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81"


@pytest.mark.parametrize("name, lines", [
    ("perftest126_use_cuda_mr_failed.txt", [12, 13, 14]),   # perftest <= 4.4: "cuMemAlloc() of a ... GPU buffer"
    ("perftest346_cuda_mem_device_mr_error14.txt", [5, 6, 7, 8]),   # src/cuda_memory.c: "allocated GPU buffer of a ..."
])
def test_gpu_buffer_registration_failures(name, lines):
    facts = _facts((FIX / name).read_text())
    assert [f.evidence.line for f in facts] == lines
    assert all(f.stage == "resources" and f.gpu_buffer and not f.dmabuf for f in facts)


@pytest.mark.parametrize("text, gpu, dmabuf", [
    # rocm_memory.c / cuda_memory.c format strings, filled in; a GPU buffer only after its line, DMA-BUF only when said
    ("allocated 2097152 bytes of GPU buffer at 0x7f2c00000000\nCouldn't allocate MR\n", True, False),
    ("using DMA-BUF for GPU buffer address at 0x7f2c00000000 aligned at 0x7f2c00000000 with aligned size 2097152\n"
     "Couldn't allocate MR with error=95\n", True, True),
    ("Couldn't allocate MR\nallocated GPU buffer address at 0x7f2c00000000\n", False, False),
    ("deallocating GPU buffer 0x7f2c00000000\nCouldn't allocate MR\n", False, False),
])
def test_gpu_buffer_forms(text, gpu, dmabuf):
    (f,) = _facts(text)
    assert (f.gpu_buffer, f.dmabuf) == (gpu, dmabuf)


def test_an_all_zero_local_roce_gid_before_the_rtr_failure():
    # Mellanox/k8s-rdma-shared-dev-plugin#112: Link type Ethernet, " GID: 00:...:00" under " local address:"
    text = (FIX / "rdma112_roce_gid_zero_modify_qp_rtr.txt").read_text()
    assert [(f.evidence.line, f.stage, f.gid_zero) for f in _facts(text)] == [(20, "qp_transition", True),
                                                                              (21, "qp_transition", True)]
    # a real GID under the local address (the remote one zero does not count): no
    real = text.replace(" GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00\n remote",
                        " GID: 00:00:00:00:00:00:00:00:00:00:ff:ff:0a:38:d9:49\n remote", 1)
    assert real != text and {f.gid_zero for f in _facts(real)} == {False}


def test_local_gid_zero_on_roce_without_the_failure_lines():
    # k8s-rdma-sriov-dev-plugin#32: the header quoted with "> " (read through the bundle's normalising, as here by
    # hand), the LID and QPN redacted; the RTR failure only in the title
    from stethoscope.facts.lines import normalise
    text = normalise((FIX / "sriovdp32_roce_gid_zero_redacted.txt").read_text())
    got = [f for f in perftest.parse(Artefact(path="ib_read_bw.txt", text=text, node="n1")).facts if f.kind == "perftest_local_gid_zero"]
    assert [(f.evidence.line, f.device, f.gid_index) for f in got] == [(16, "mlx5_0", 0)]  # the local address's GID, once
    # #112's paste: the same zero GID beside its RTR failure, and an IB link's GID line is not RoCE's
    assert len([f for f in perftest.parse(Artefact(path="x", text=(FIX / "rdma112_roce_gid_zero_modify_qp_rtr.txt").read_text(),
                                                     node="n1")).facts if f.kind == "perftest_local_gid_zero"]) == 1
    ib = text.replace("Link type       : Ethernet", "Link type       : IB")
    assert not [f for f in perftest.parse(Artefact(path="x", text=ib, node="n1")).facts if f.kind == "perftest_local_gid_zero"]


def test_rdma_core_pingpong_failed_status():
    """rdma-core's libibverbs/examples (ibv_rc_pingpong, ...): "Failed status %s (%d) for wr_id %d" and the
    "parse WC failed %d" after it (linux-rdma/opensm#38, verbatim)."""
    text = ("[root@test3 ~]# ibv_rc_pingpong test1\n"
            "  local address:  LID 0x0013, QPN 0x000063, PSN 0x566748, GID ::\n"
            "  remote address: LID 0x0001, QPN 0x000048, PSN 0xdf4fa4, GID ::\n"
            "Failed status transport retry counter exceeded (12) for wr_id 2\n"
            "parse WC failed 1\n")
    assert perftest.detect(text)
    [f] = _facts(text)
    assert (f.evidence.line, f.stage, f.status, f.status_name) == (4, "completion", 12, "transport retry counter exceeded")
    assert f.message.endswith("/ parse WC failed 1")
    # perftest's own status line (after "Completion with error") is not read twice
    assert len(_facts(" Completion with error at client\n Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81\n")) == 1


def test_no_rdma_device_found_by_ctx_find_dev():
    """ctx_find_dev's lines when ibv_get_device_list finds no device, and main()'s after it (perftest_resources.c:
    " Did not detect devices \\n", " If device exists, check if driver is up\\n"; " Unable to find the Infiniband/RoCE
    device\\n"): a device-stage failure each, the advice read with the first (k8snetworkplumbingwg/sriov-cni#348's
    ib_write_bw in a pod whose provider cannot drive the host's bnxt_re, verbatim)."""
    text = (" Did not detect devices\n"
            " If device exists, check if driver is up\n"
            " Unable to find the Infiniband/RoCE device\n")
    assert perftest.detect(text)
    res = perftest.parse(Artefact(path="ib_write_bw.out", text=text, node="n1"))
    facts = [f for f in res.facts if f.kind == "perftest_failure"]
    assert [(f.evidence.line, f.stage) for f in facts] == [(1, "device"), (3, "device")]
    assert facts[0].message == "Did not detect devices / If device exists, check if driver is up"
    assert res.lines_used == 3
    # the advice alone is no failure
    assert not _facts(" If device exists, check if driver is up\n")

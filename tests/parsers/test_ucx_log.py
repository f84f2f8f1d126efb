"""ucx_log: UCX's verbs errors, every form on real lines; NCCL's own verbs lines are not UCX's."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ucx_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ucx_log"


def parse_text(text: str):
    return ucx_log.parse(Artefact(path="t.log", text=text, node="node1"))


def test_ompi_6300_every_rank():
    text = (FIX / "ompi6300_mpirun_paste.txt").read_text()
    got = [(f.evidence.line, f.verb, f.device, f.error, f.memlock_kb) for f in parse_text(text).facts]
    assert got == [(7, "ibv_create_cq", None, "Cannot allocate memory", None),
                   (8, "ibv_create_cq", None, "Cannot allocate memory", None)]


@pytest.mark.parametrize("line,verb,device,error,kb", [
    # UCX 1.13, device first and the memlock hint (openucx/ucx#8746)
    ("[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: "
     "Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)",
     "ibv_create_cq", "mlx5_0", "Cannot allocate memory", 64),
    # quoted without UCX's prefix (NVIDIA/cudf-spark#7632)
    ("ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.", "ibv_create_cq", "mlx5_0", "Cannot allocate memory", None),
    # the mlx5 direct-verbs call, EINVAL (openucx/ucx#4556)
    ("ib_mlx5.c:73   UCX  ERROR mlx5dv_create_cq(cqe=4096) failed: Invalid argument", "mlx5dv_create_cq", None,
     "Invalid argument", None),
])
def test_forms(line, verb, device, error, kb):
    (f,) = parse_text(line).facts
    assert (f.verb, f.device, f.error, f.memlock_kb) == (verb, device, error, kb)


def test_dynamo_814_create_ah_names_purpose_and_device():
    """UCX 1.18+: "ibv_create_ah(<attr>) for <purpose> on <dev> failed: %m"; the teardown WARNs after it are not read."""
    text = (FIX / "dynamo814_ibv_create_ah_enodev_roce.txt").read_text()
    assert ucx_log.detect(text)
    got = [(f.evidence.line, f.verb, f.device, f.error) for f in parse_text(text).facts]
    assert got == [(4, "ibv_create_ah", "mlx5_0", "No such device")]


def test_sglang_27894_devx_syndrome_after_failed():
    """"mlx5dv_devx_obj_create(%s) failed on %s, syndrome 0x%x: %m" (ib_mlx5_dv.c): no "failed: " in the line."""
    text = (FIX / "sglang27894_devx_cq_eremoteio_nixl.txt").read_text()
    assert ucx_log.detect(text)
    got = [(f.evidence.line, f.verb, f.device, f.error) for f in parse_text(text).facts]
    assert got == [(1, "mlx5dv_devx_obj_create", "mlx5_1", "Remote I/O error"),
                   (7, "mlx5dv_devx_obj_create", "mlx5_1", "Remote I/O error")]


@pytest.mark.parametrize("line,verb,device,error", [
    # ib_device.c uct_ib_device_create_ah (format filled): the device after the call
    ("ib_device.c:1011 UCX  ERROR ibv_create_ah(dlid=3 sl=0 port=1 src_path_bits=0) on mlx5_2 failed: Invalid argument",
     "ibv_create_ah", "mlx5_2", "Invalid argument"),
    # ib_iface.c (format filled): device and port
    ("ib_iface.c:601  UCX  ERROR ibv_create_ah(dlid=3 sl=0 port=1 src_path_bits=0) on mlx5_0:1 failed: Input/output error",
     "ibv_create_ah", "mlx5_0", "Input/output error"),
    # ib_mlx5_dv.c uct_ib_mlx5_devx_general_cmd (format filled)
    ("ib_mlx5_dv.c:120  UCX  ERROR mlx5dv_devx_general_cmd(QUERY_HCA_CAP) failed on mlx5_3, syndrome 0x1: Operation not permitted",
     "mlx5dv_devx_general_cmd", "mlx5_3", "Operation not permitted"),
])
def test_device_after_the_call(line, verb, device, error):
    (f,) = parse_text(line).facts
    assert (f.verb, f.device, f.error) == (verb, device, error)


def test_ucx_4770_experimental_query_device_per_hca():
    text = (FIX / "ucx4770_osu_bw_paste_ibv_exp_query_device.txt").read_text()
    assert ucx_log.detect(text)
    got = [(f.evidence.line, f.verb, f.device, f.error, f.returned, f.experimental) for f in parse_text(text).facts]
    assert got == [(n, "ibv_exp_query_device", f"mlx5_{i}", "No space left on device", 38, True) for i, n in enumerate((5, 6, 7))]


@pytest.mark.parametrize("line,verb,device,ret,experimental", [
    # uct_ib_query_device's standard calls (src/uct/ib/base/ib_verbs.h, format filled): not the experimental API
    ("ib_verbs.h:45   UCX  ERROR ibv_query_device_ex(mlx5_0) returned 95: Operation not supported", "ibv_query_device_ex",
     "mlx5_0", 95, False),
    ("UCX  ERROR ibv_query_device(qedr0) returned 22: Invalid argument.", "ibv_query_device", "qedr0", 22, False),
])
def test_returned_forms(line, verb, device, ret, experimental):
    (f,) = parse_text(line).facts
    assert (f.verb, f.device, f.returned, f.experimental) == (verb, device, ret, experimental)


@pytest.mark.parametrize("line", [
    "misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory",  # NCCL's
    "ibv_query_device(mlx5_0) returned 0",  # no UCX ERROR, no error text
    "[mpi11:04770] pml_ucx.c:212 Error: Failed to create UCP worker",
    "",
])
def test_not_ucx_verbs_lines(line):
    assert not ucx_log.detect(line)
    assert parse_text(line).facts == []


def test_mlx5_completion_errors_every_release_form():
    text = (FIX / "ucx_mlx5_completion_errors_paste.txt").read_text()
    res = parse_text(text)
    got = [(f.evidence.line, f.node, f.status, f.syndrome, f.vendor_err, f.device, f.port, f.link_layer, f.qp_type, f.opcode)
           for f in res.facts]
    assert got == [
        (1, "clx-orion-059", 12, 0x15, 0x81, None, None, None, None, "SEND"),  # UCX 1.3, openucx/ucx#1920
        (3, "node1", 12, 0x15, 0x81, "mlx5_0", 1, "IB", "RC", "RDMA_READ"),  # 1.8.1 without its prefix, #5634
        (5, "mgmt", 12, 0x15, 0x81, "mlx5_0", 1, "RoCE", "DCI", "SEND"),  # RoCE, #6000
        (7, "jwb0296", 12, 0x15, 0x81, "mlx5_2", 1, "IB", "RC", "RDMA_WRITE"),  # #7416
    ]
    assert {f.message for f in res.facts} == {"Transport retry count exceeded"}
    assert res.lines_used == 7  # the endpoint-timeout line after the 1.3 error is not a completion


@pytest.mark.parametrize("line,status,synd,message", [
    # an issue title: UCX 1.3's tail alone (openucx/ucx#2434)
    ("Transport retry count exceeded (synd 0x15 vend 0x81) opcode RDMA_READ", 12, 0x15, "Transport retry count exceeded"),
    # StanfordLegion/legion#1650, UCX 1.1x
    ("[cn355:11558:0:11678] ib_mlx5_log.c:171  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
     12, 0x15, "Transport retry count exceeded"),
    # an issue title quoting 1.6+'s form lower-cased, its device left out (openucx/ucx#4184)
    ((FIX / "ucx4184_mtt_title_retry_exceeded_device_elided.txt").read_text(), 12, 0x15, "transport retry count exceeded"),
    # the receiver-not-ready retry (synd 0x16 = status 13), device left out likewise (CONSTRUCTED from 1.6's format and text)
    ("Receive-no-ready retry count exceeded on (synd 0x16 vend 0x82 hw_synd 0/0)", 13, 0x16, "Receive-no-ready retry count exceeded"),
])
def test_completion_forms(line, status, synd, message):
    (f,) = parse_text(line).facts
    assert (f.kind, f.status, f.syndrome, f.message) == ("ucx_completion_error", status, synd, message)


@pytest.mark.parametrize("line,status,device,ll", [
    # UCX's text without its syndrome: issue titles (openucx/ucx#3390, #2346) and 1.6+'s line cut before it (#6000's title)
    ((FIX / "ucx3390_mtt_title_retry_exceeded_roce.txt").read_text(), 12, None, None),
    ((FIX / "ucx2346_title_retry_exceeded_ring_test.txt").read_text(), 12, None, None),
    ("Error: Transport retry count exceeded on mlx5_0:1/RoCE", 12, "mlx5_0", "RoCE"),
    # the receiver-not-ready text (CONSTRUCTED: 1.6's err_info, cut likewise)
    ("Receive-no-ready retry count exceeded on mlx5_1:1/IB", 13, "mlx5_1", "IB"),
])
def test_the_text_without_its_syndrome(line, status, device, ll):
    (f,) = parse_text(line).facts
    assert (f.kind, f.status, f.syndrome, f.vendor_err, f.device, f.link_layer) == ("ucx_completion_error", status, None, None, device, ll)


@pytest.mark.parametrize("line", [
    # libibverbs' own words are the verbs transports' and other programs' (perftest, the kernel), not this form
    "Failed status transport retry counter exceeded (12) for wr_id 2",
    "RNR retry counter exceeded",
    # other words around "retry count exceeded"
    "Connection retry count exceeded, giving up",
    "transport retry count exceeded",
])
def test_not_the_text_form(line):
    assert [f for f in parse_text(line).facts if f.kind == "ucx_completion_error"] == []


def test_a_line_with_its_syndrome_is_read_once():
    text = "[mgmt:24113:0:24113] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)\n"
    (f,) = parse_text(text).facts
    assert (f.syndrome, f.device) == (0x15, "mlx5_0")


def test_an_elided_device_names_none():
    (f,) = parse_text((FIX / "ucx4184_mtt_title_retry_exceeded_device_elided.txt").read_text()).facts
    assert (f.device, f.port, f.link_layer, f.vendor_err) == (None, None, None, 0x81)


@pytest.mark.parametrize("line", [
    # the kernel's own completion error (mlx5_core_log reads it)
    "infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 12, Message: transport retry counter exceeded",
    # UCX's consequence line, not a completion
    "[1516700569.378516] [clx-orion-059:5831 :0]     ucp_worker.c:437  UCX  ERROR Error Endpoint timeout was not handled for ep 0x1bdfee0 - rc_mlx5/mlx5_2:1",
])
def test_not_completion_lines(line):
    assert [f for f in parse_text(line).facts if f.kind == "ucx_completion_error"] == []


@pytest.mark.parametrize("line,node,status,message,vendor", [
    # UCX 1.2 "Send completion with error: %s" (openucx/ucx#844)
    ("[1466599688.714393] [vegas30:25196:0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: transport retry counter exceeded",
     "vegas30", 12, "transport retry counter exceeded", None),
    # 1.2 on a mlx4 HCA, another status (openucx/ucx#834)
    ("[     INFO ] 0 [1465985478.473101] [pod9:4536 :0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: local length error",
     "pod9", 1, "local length error", None),
    # 1.3-1.6 "send completion with error: %s", fatal, under mpirun --tag-output (openucx/ucx#2684)
    ("Tue Jun 12 18:14:48 2018[1,15]<stderr>:[clx-orion-097:26451:0:26451] rc_verbs_iface.c:63   FATAL: send completion with error: "
     "transport retry counter exceeded", "clx-orion-097", 12, "transport retry counter exceeded", None),
    # 1.3-1.5 dc_verbs "Send completion with error on qp 0x%x: %s syndrome 0x%x" (openucx/ucx#1880)
    ("Sun Oct  1 17:01:10 2017[1,30]<stdout>:[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  ERROR "
     "Send completion with error on qp 0x10e55: transport retry counter exceeded syndrome 0x81", "clx-hercules-065", 12,
     "transport retry counter exceeded", 0x81),
    # 1.7-1.10 "%s qpn 0x%x wrid 0x%lx vendor_err 0x%x" (openucx/ucx#5318)
    ("[compute-18:26540:0:26540] rc_verbs_iface.c:65   send completion with error: local QP operation error qpn 0x350406 wrid 0x38 "
     "vendor_err 0x70", "compute-18", 2, "local QP operation error", 0x70),
    # 1.11-1.15 "[qpn 0x%x wrid 0x%lx" "vendor_err 0x%x]": no space before vendor_err (openucx/ucx#7774)
    ("[swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  send completion with error: local protection error "
     "[qpn 0xf9db wrid 0x149vendor_err 0x51]", "swx-rdmz-ucx-gpu-02", 4, "local protection error", 0x51),
    # 1.16 on, with the space (the format of rc_verbs_iface.c, filled: no public paste found)
    ("[n7:1200:0:1200] rc_verbs_iface.c:125  send completion with error: Work Request Flushed Error [qpn 0x1a2 wrid 0x3 vendor_err 0xf9]",
     "n7", 5, "Work Request Flushed Error", 0xf9),
])
def test_verbs_completion_forms(line, node, status, message, vendor):
    (f,) = parse_text(line).facts
    assert (f.kind, f.transport, f.node, f.status, f.message, f.vendor_err, f.syndrome) == (
        "ucx_completion_error", "verbs", node, status, message, vendor, None)
    assert ucx_log.detect(line)


def test_verbs_rx_completion_form_names_the_device():
    # 1.3 on, ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_ERR("receive", ...): the format, filled (no public paste of an even thread)
    line = ("[n7:1200:0:1200] rc_verbs_impl.h:104 Fatal: receive completion[0] with error on mlx5_0/0x1f2e3d0: "
            "Work Request Flushed Error, vendor_err 0xf9 wr_id 0x7f3c")
    (f,) = parse_text(line).facts
    assert (f.transport, f.node, f.device, f.status, f.vendor_err) == ("verbs", "n7", "mlx5_0", 5, 0xf9)


def test_verbs_completion_peer_line_is_read_with_it():
    # openucx/ucx#7774: 1.11+ print the peer on the next line
    text = ("[swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  send completion with error: local protection error "
            "[qpn 0xf9db wrid 0x149vendor_err 0x51]\n"
            "[swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  [rqpn 0xf9e9 dlid=10 sl=0 port=1 src_path_bits=0]\n")
    res = parse_text(text)
    assert [f.status for f in res.facts] == [4] and res.lines_used == 2


@pytest.mark.parametrize("line", [
    # interleaved output that cut the status string: no status is named, the line stays unread (openucx/ucx#2322)
    "Tue Feb 27 20:11:36 2018[1,276]<stderr>:[jazz18:122053:0:122053] rc_verbs_iface.c:63   FATAL: send completion with error: transport retry",
    # the mlx5 provider's own CQE dump header (rdma-core providers/mlx5/cq.c: fprintf(fp, PFX "%s: got completion with
    # error:\n", mctx->hostname), PFX "mlx5: "; filled with a host name)
    "mlx5: node1: got completion with error:",
    # NCCL's completion WARN is NCCL's (nccl_log reads it)
    "node1:1:2 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129",
])
def test_not_verbs_completion_lines(line):
    assert [f for f in parse_text(line).facts if f.kind == "ucx_completion_error"] == []


def test_shmget_huge_pages_refused():
    """open-mpi/ompi#6084: UCX 1.4's System V allocation with SHM_HUGETLB (0x800 in 0xfb0) refused (EPERM)."""
    text = (FIX / "ompi6084_shmget_hugetlb_eperm.log").read_text()
    assert ucx_log.detect(text)
    got = ucx_log.parse(Artefact(path="ddt.txt", text=text, node="n1")).facts
    assert [(f.evidence.line, f.node, f.purpose, f.size, f.flags, f.hugetlb, f.error) for f in got] == [
        (n, "nid02068", "mm_recv_desc", 2097152, 0xfb0, True, "Operation not permitted") for n in (1, 2)]
    assert got[0].detail == "please check shared memory limits by 'ipcs -l'"


@pytest.mark.parametrize("line, purpose, error, detail", [
    # ucs_sysv_shmget_format_error's shmmax check (sys.c), filled in
    ("sys.c:1024 UCX  ERROR shmget(size=67108864 flags=0x7b0) for ucp_am_bufs failed: Invalid argument, allocation size exceeds "
     "/proc/sys/kernel/shmmax (=33554432)", "ucp_am_bufs", "Invalid argument", "allocation size exceeds /proc/sys/kernel/shmmax (=33554432)"),
    # UCX 1.0-1.6's two forms
    ("sys.c:210  UCX  ERROR shmget(size=2097152, flags=0x7b0) returned unexpected error: Invalid argument. Please check shared memory "
     "limits by 'ipcs -l'.", None, "Invalid argument", "Please check shared memory limits by 'ipcs -l'."),
    ("sys.c:190  UCX  ERROR shmget failed: No space left on device. (size=2097152). The max number of shared memory segments in the "
     "system is = 4096. Please try to increase this value through /proc/sys/kernel/shmmni", None, "No space left on device",
     "The max number of shared memory segments in the system is = 4096. Please try to increase this value through /proc/sys/kernel/shmmni"),
])
def test_shmget_forms_filled_in(line, purpose, error, detail):
    (f,) = ucx_log.parse(Artefact(path="j.log", text=line + "\n", node="n1")).facts
    assert (f.purpose, f.hugetlb, f.error, f.detail) == (purpose, False, error, detail)


def test_other_programs_shmget_lines_are_not_ucx():
    """SHARP's own allocator and a C program's perror: not UCX's format."""
    for text in ("ERROR:shmget(size=1048576) for HUGETLB returned unexpected error: Operation not permitted.\n",
                 "shmget: Invalid argument\n"):
        assert not ucx_log.detect(text)


def test_transport_qp_creation_refused():
    """openucx/ucx#5148: the qedr provider refused UCX's UD QP (EINVAL); the provider's own line is not UCX's."""
    (f,) = parse_text((FIX / "ucx5148_ud_qp_einval_qedr.txt").read_text()).facts
    assert (f.evidence.line, f.verb, f.qp_type, f.device, f.error, f.memlock_kb) == (2, "ibv_create_qp", "UD", None, "Invalid argument", None)


@pytest.mark.parametrize("line,qpt,device,error", [
    # 1.9-: resp: counts instead of inl (uct_ib_iface_create_qp's format filled in)
    ("ib_iface.c:755  UCX  ERROR iface=0x1f6d7b0: failed to create RC QP TX wr:256 sge:5 inl:60 resp:0 RX wr:0 sge:0 resp:0: "
     "Cannot allocate memory", "RC", None, "Cannot allocate memory"),
    # EFA's srd: the device and port named (uct_srd_iface's format filled in)
    ("srd_iface.c:301 UCX  ERROR iface=0x55d0: failed to create SRD QP on efa_0:1 TX wr:256 sge:2 inl:32 resp:0 RX wr:4096 sge:1 "
     "resp:0: Operation not supported", "SRD", "efa_0", "Operation not supported"),
])
def test_transport_qp_creation_forms(line, qpt, device, error):
    (f,) = parse_text(line + "\n").facts
    assert (f.verb, f.qp_type, f.device, f.error) == ("ibv_create_qp", qpt, device, error)


def test_old_qp_creation_form_under_open_mpi_timestamps():
    """openucx/ucx#2718: UCX before 1.5's 'failed to create qp: %m' under --timestamp-output, one line run into the one before."""
    facts = parse_text((FIX / "ucx2718_rc_qp_einval_ompi_timestamp_output_mixed.txt").read_text()).facts
    qp = [(f.evidence.line, f.node, f.error, f.qp_type) for f in facts if f.kind == "ucx_verbs_failure"]
    assert qp == [(4, "clx-hercules-007", "Invalid argument", None), (6, "clx-hercules-007", "Invalid argument", None)]
    # the word "qp" of another program, and UCX's line cut before its error: not read
    assert not ucx_log.detect("failed to create qp: see above\n")
    assert parse_text("[1530549338.253074] [clx-hercules-007:20490:0]       rc_iface.c:966  UCX  ERROR fail\n").facts == []


def test_socket_connect_to_the_docker_bridge():
    """NVIDIA/nccl-tests#180: both ranks' wire-up connect went to 172.17.0.1 (docker0 on every host)."""
    got = [(f.evidence.line, f.node, f.address, f.port, f.error, f.docker_bridge)
           for f in parse_text((FIX / "ncclt180_connect_docker_bridge.txt").read_text()).facts if f.kind == "ucx_socket_connect_failed"]
    assert got == [(2, "10-192-80-132", "172.17.0.1", 42887, "Connection refused", True),
                   (3, "10-192-80-132", "172.17.0.1", 40235, "Connection refused", True)]  # the host starts with a digit
    # a clock in brackets is no "[host:pid:thread]" prefix
    (f,) = parse_text("[12:34:56] sock.c:323  UCX  ERROR   connect(fd=48, dest_addr=10.0.0.2:42887) failed: No route to host\n").facts
    assert f.node == "node1"
    (f,) = parse_text("[1700554343.440877] [n1:7356 :0]   sock.c:323  UCX  ERROR   connect(fd=48, dest_addr=10.0.0.2:42887) "
                      "failed: No route to host\n").facts
    assert (f.address, f.error, f.docker_bridge) == ("10.0.0.2", "No route to host", False)


@pytest.mark.parametrize("line", [
    "[qelr_create_qp:679]create qp: failed on ibv_cmd_create_qp with 22",  # the provider's own line
    "Failed to create QP",  # another program's words, no UCX attributes
    "connect() failed: Connection refused",  # a bare connect, no UCX fd/dest_addr
])
def test_not_ucx_qp_or_connect_lines(line):
    assert not ucx_log.detect(line + "\n")
    assert parse_text(line + "\n").facts == []


def _peers(text: str):
    return [(f.evidence.line, f.node, f.stage, f.layer, f.peer_rank, f.status)
            for f in parse_text(text).facts if f.kind == "openmpi_ucx_peer_failed"]


def test_openmpi_pml_ucx_peer_unreachable():
    """openucx/ucx#8448 (Omni-Path, 4+ nodes) and NVIDIA/nccl-tests#180 (its FQDN in opal_output's prefix, the
    first label kept as UCX's lines keep it): the endpoint failure read; 'Failed to resolve UCX endpoint' after it
    is its consequence, read with it."""
    assert _peers((FIX / "ucx8448_pml_ucx_unreachable_omnipath.txt").read_text()) == [
        (1, "n097", "endpoint", "pml", 108, "Destination is unreachable")]
    assert _peers((FIX / "ncclt180_connect_docker_bridge.txt").read_text()) == [
        (4, "10-192-80-132", "endpoint", "pml", 3, "Destination is unreachable"),
        (6, "10-192-80-132", "endpoint", "pml", 2, "Destination is unreachable")]


@pytest.mark.parametrize("text, expected", [
    # opal/mca/common/ucx and oshmem/mca/spml/ucx format strings filled in; Open MPI's --tag-output prefix before one
    ("[h1:185061] spml_ucx.c:264  Error: ucp_ep_create(proc=142/224) failed: Destination is unreachable\n",
     [(1, "h1", "endpoint", "spml", 142, "Destination is unreachable")]),
    ("Wed Nov 20 05:24:52 2019[1,198]<stderr>:[h2:12459] pml_ucx.c:385  Error: ucp_ep_create(proc=96) failed: Input/output error\n",
     [(1, "h2", "endpoint", "pml", 96, "Input/output error")]),
    ("pml_ucx.c:175 Error: Failed to receive UCX worker address: Not found (-13)\n",  # one blank, no host (quoted in docs)
     [(1, "node1", "address", "pml", None, "Not found")]),
    ("[h1:4242] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 3\n",  # alone: a fact no rule explains
     [(1, "h1", "resolve", "pml", 3, None)]),
    ("[10.0.0.5:4242] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 3\n", [(1, "10.0.0.5", "resolve", "pml", 3, None)]),
    ("[h1:4242] pml_ucx.c:472  Warning: ucp_ep_create(proc=3) failed: Destination is unreachable\n", []),  # not an Error
    ("my_ucx.c:10  Error: ucp_ep_create(proc=3) failed: Destination is unreachable\n", []),  # not Open MPI's component
])
def test_openmpi_ucx_forms(text, expected):
    assert _peers(text) == expected


def _lanes(text: str):
    result = parse_text(text)
    return [(f.evidence.line, f.node, f.device) for f in result.facts if f.kind == "ucx_device_lane_missing"], result.lines_used


def test_nixl_1110_device_lane_gb200():
    """ai-dynamo/nixl#1110 (GB200, the image's UCX_TLS=^cuda_ipc): UCX 1.20's device API found no lane for GPU0; the
    'failed to create handle:' after it (cut in the thread) is its consequence, read with it."""
    text = (FIX / "nixl1110_device_lane_gb200.txt").read_text()
    assert ucx_log.detect(text)
    assert _lanes(text) == ([(1, "nvl72119-T17", "GPU0")], 2)


@pytest.mark.parametrize("text, expected", [
    # UCX 1.21's form (src/ucp/core/ucp_device.c "no lane found for ep=%p"), filled in: the endpoint, no device
    ("[1790000000.000001] [h1:4242:0]      ucp_device.c:497  UCX  ERROR no lane found for ep=0x7f3a2c01b0c0\n", [(1, "h1", None)]),
    # the handle failure alone (its status filled in): the consequence, no lane fact
    ("[1790000000.000002] [h1:4242:0]      ucp_device.c:593  UCX  ERROR failed to create handle: No such device\n", []),
    # UCX's wire-up INFO line naming lanes, and prose about lanes: not the error
    ("[1765333150.098983] [h1:1570878:2]      ucp_worker.c:1912 UCX  INFO    ucp_context_0 intra-node cfg#2 rma_am(tcp/eth1)  am(tcp/eth1 cuda_ipc/cuda)\n", []),
    ("the benchmark failed to select lane for local device GPU0 until UCX_TLS was unset\n", []),
])
def test_device_lane_forms(text, expected):
    assert _lanes(text)[0] == expected


def test_device_lane_quoted_in_prose():
    """nixl#1110's description quotes the line in double quotes: the device without the quote."""
    assert _lanes('we get an error:\n"UCX  ERROR failed to select lane for local device GPU0"\n')[0] == [(2, "node1", "GPU0")]


@pytest.mark.parametrize("name,node", [
    # ucs_log's "[host:pid:thread]" prefix names the node of every verbs line, as it does the completion and socket
    # lines': the call with its arguments (sglang#27894, dynamo#814), "<call>(<dev>) returned" (ucx#4770) and the
    # transport's own QP creation (ucx#5148)
    ("sglang27894_devx_cq_eremoteio_nixl.txt", "iv-ydzf15rfggbw80bfv8sr"),
    ("dynamo814_ibv_create_ah_enodev_roce.txt", "9fd0c21b0f7c"),
    ("ucx4770_osu_bw_paste_ibv_exp_query_device.txt", "upstreamhost1"),
    ("ucx5148_ud_qp_einval_qedr.txt", "vinci115"),
])
def test_a_verbs_line_is_on_the_node_of_ucxs_prefix(name, node):
    facts = [f for f in parse_text((FIX / name).read_text()).facts if f.kind == "ucx_verbs_failure"]
    assert facts and {f.node for f in facts} == {node}
    # a node folder wins over the host on the line, as for every reader
    folder = ucx_log.parse(Artefact(path=name, text=(FIX / name).read_text(), node="n7", node_from_folder=True)).facts
    assert {f.node for f in folder if f.kind == "ucx_verbs_failure"} == {"n7"}


def test_a_verbs_line_without_ucxs_prefix_is_on_the_files_node():
    # quoted without the prefix (NVIDIA/cudf-spark#7632's form), or a clock in brackets that is no host
    got = parse_text("[12:34:56] ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.\n").facts
    assert [f.node for f in got] == ["node1"]


def test_memtype_copy_missing_and_pml():
    # openucx/ucx#3174 (Open MPI 3.1.3 + UCX 1.3.1), verbatim lines
    text = ("[1549236370.714691] [r3657:2445 :0]         select.c:312  UCX  ERROR no copy across memory types transport to <no debug data>: Unsupported operation\n"
            "[r3657:02445] ../../../../../../../ompi/mca/pml/ucx/pml_ucx.c:208 Error: Failed to create UCP worker\n"
            "[r3657:02445] PML ucx cannot be selected\n")
    assert ucx_log.detect(text)
    res = ucx_log.parse(Artefact(path="mpirun.txt", text=text, node="unknown"))
    (f,) = [x for x in res.facts if x.kind == "ucx_memtype_copy_missing"]
    assert (f.node, f.peer, f.reason, f.pml_not_selected) == ("r3657", None, "Unsupported operation", True)
    assert res.lines_used == 3


def test_cuda_ipc_open_failed():
    # cuda_ipc_cache.c's ucs_fatal under log.c's "[%s:%-5d:%s:%d] " and assert.c's "%13s:%-4u %s" (filled), then
    # openucx/ucx#3192's line verbatim
    text = ("[node1:52210:0:52210] cuda_ipc_cache.c:751  Fatal: dest:52211: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)\n"
            "cuda_ipc_cache.c:154  UCX Fatal: dest:5221: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)\n")
    assert ucx_log.detect(text)
    facts = [x for x in ucx_log.parse(Artefact(path="gdb.txt", text=text, node="unknown")).facts if x.kind == "ucx_cuda_ipc_open_failed"]
    assert [(f.node, f.cache, f.length, f.already_mapped) for f in facts] == [
        ("node1", "dest:52211", 89088, True), ("unknown", "dest:5221", 89088, True)]
    # the driver call alone (UCT_CUDADRV_FUNC_LOG_ERR "%s() failed: %s", filled)
    alone = "[1700000000.1] [node1:77:0] cuda_ipc_cache.c:284  UCX  ERROR cuIpcOpenMemHandle() failed: invalid device context\n"
    assert ucx_log.detect(alone)
    (f,) = [x for x in ucx_log.parse(Artefact(path="a.txt", text=alone, node="unknown")).facts if x.kind == "ucx_cuda_ipc_open_failed"]
    assert (f.node, f.status, f.already_mapped) == ("node1", "invalid device context", False)


@pytest.mark.parametrize("line,node,verb,error", [
    # ib_mlx5_dv.c before 1.9: "mlx5dv_devx_qp_modify(%x) failed, syndrome %x: %m", under Open MPI's timestamp and tag (openucx/ucx#4986)
    ("Mon Apr  6 14:58:07 2020[1,1]<stdout>:[1586174287.331106] [clx-hercules-015:32494:0]     ib_mlx5_dv.c:217  UCX  ERROR "
     "mlx5dv_devx_qp_modify(503) failed, syndrome 0: Invalid argument", "clx-hercules-015", "mlx5dv_devx_qp_modify", "Invalid argument"),
    # dc_mlx5.c "ibv_modify_qp(DCI, RTR) failed : %m", a blank before the colon (openucx/ucx#8604)
    ("[1665103135.306110] [hpap13n2:7391 :0]         dc_mlx5.c:456  UCX  ERROR ibv_modify_qp(DCI, RTR) failed : Invalid argument",
     "hpap13n2", "ibv_modify_qp", "Invalid argument"),
    # quoted in backticks in a comment (openucx/ucx#8604): no host prefix, the file's node
    ("`ib_mlx5_dv.c:223  UCX  ERROR mlx5dv_devx_qp_modify(502) failed, syndrome 0: Invalid argument`", "node1",
     "mlx5dv_devx_qp_modify", "Invalid argument"),
])
def test_older_forms_without_failed_colon(line, node, verb, error):
    assert ucx_log.detect(line)
    (f,) = parse_text(line).facts
    assert (f.node, f.verb, f.device, f.error) == (node, verb, None, error)


def test_a_title_quoting_the_devx_line_without_ucx_error_is_not_read():
    # openucx/ucx#4986's title: no "ERROR" before the call, so not UCX's own line
    assert parse_text("[mtt] mlx5dv_devx_qp_modify(503) failed, syndrome 0: Invalid argument when UCX_IB_SL=2").facts == []


def test_ucx_9610_no_usable_transports_per_host_with_its_warning():
    # openucx/ucx#9610: each host's warning names the asked transports it lacks; the error after it is the fact
    text = (FIX / "ucx9610_no_usable_transports_mpich.txt").read_text()
    assert ucx_log.detect(text)
    res = ucx_log.parse(Artefact(path="t.log", text=text, node="unknown"))
    got = [(f.kind, f.node, f.evidence.line, f.asked_transports, f.asked_devices, f.unavailable) for f in res.facts]
    assert got == [("ucx_no_usable_transport", "c204-009", 2, "knem,dc_x,rc", "all devices", "knem, dc_x, rc"),
                   ("ucx_no_usable_transport", "c204-010", 9, "knem,dc_x,rc", "all devices", "knem, dc_x, rc")]
    assert res.facts[0].available == "mm, posix, self, shm, sm, sysv, tcp"
    assert res.lines_used == 4


@pytest.mark.parametrize("line,tls,devs", [
    # a device list: ucp_resource_config_str ends each list with a blank (NVIDIA/FasterTransformer#350's title's form)
    ("ucp_context.c:1108 UCX ERROR no usable transports/devices (asked rc on network:mlx5_ib0:1 )", "rc", "network:mlx5_ib0:1"),
    # UCX_TLS allowing all, devices named (CONSTRUCTED from the format: no transports, then the device types)
    ("UCX  ERROR no usable transports/devices (asked network:mlx5_9:1 )", None, "network:mlx5_9:1"),
])
def test_no_usable_forms(line, tls, devs):
    (f,) = parse_text(line).facts
    assert (f.asked_transports, f.asked_devices, f.unavailable, f.warning) == (tls, devs, None, "no warning before it")


def test_a_warning_alone_is_no_failure():
    # UCX goes on with the transports it has: the warning alone makes no fact
    line = ("[1705555968.594314] [c204-009:189455:0]     ucp_context.c:1081 UCX  WARN  transports 'knem','dc_x','rc' are "
            "not available, please use one or more of: mm, posix, self, shm, sm, sysv, tcp")
    assert not parse_text(line).facts


def test_ucx_9610_asked_and_warning_in_words():
    res = ucx_log.parse(Artefact(path="t.log", text=(FIX / "ucx9610_no_usable_transports_mpich.txt").read_text(), node="unknown"))
    f = res.facts[0]
    assert f.asked == "knem,dc_x,rc on all devices"
    assert f.warning == "lacks knem, dc_x, rc; has mm, posix, self, shm, sm, sysv, tcp"


@pytest.mark.parametrize("line, args, purpose, device, error", [
    # openucx/ucx src/uct/ib/base/ib_device.c uct_ib_device_create_ah, each release's form (CONSTRUCTED from the format
    # strings: 1.12+ "ibv_create_ah(%s) for %s on %s failed: %m", 1.9-1.11 "ibv_create_ah(%s) on %s failed: %m",
    # 1.5-1.8 "ibv_create_ah(%s) failed: %m", 1.1-1.4 "... on %s:%d failed: %m")
    ("[1733414400.123456] [node07:20411:0]       ib_device.c:1455 UCX  ERROR ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 "
     "dgid=::ffff:10.20.0.7 flow_label=0xffffffff sgid_index=3 traffic_class=106) for UD verbs connect on mlx5_1 failed: Invalid argument",
     "dlid=49152 sl=0 port=1 src_path_bits=0 dgid=::ffff:10.20.0.7 flow_label=0xffffffff sgid_index=3 traffic_class=106",
     "UD verbs connect", "mlx5_1", "Invalid argument"),
    ("[1600000000.000001] [node07:311:0]       ib_device.c:1290 UCX  ERROR ibv_create_ah(dlid=49152 sl=3 port=2 src_path_bits=0 "
     "dgid=::ffff:10.20.0.9 sgid_index=5 traffic_class=0) on mlx5_2 failed: Connection timed out",
     "dlid=49152 sl=3 port=2 src_path_bits=0 dgid=::ffff:10.20.0.9 sgid_index=5 traffic_class=0", None, "mlx5_2",
     "Connection timed out"),
    ("ib_iface.c:712  UCX  ERROR ibv_create_ah(dlid=12 sl=0 port=1 src_path_bits=0) failed: Invalid argument",
     "dlid=12 sl=0 port=1 src_path_bits=0", None, None, "Invalid argument"),
    ("ib_iface.c:530  UCX  ERROR ibv_create_ah(dlid=12 sl=0 port=1 src_path_bits=0) on mlx5_0:1 failed: Invalid argument",
     "dlid=12 sl=0 port=1 src_path_bits=0", None, "mlx5_0", "Invalid argument"),
])
def test_address_handle_refused_forms(line, args, purpose, device, error):
    res = ucx_log.parse(Artefact(path="x", text=line + "\n", node="n1"))
    assert [(f.verb, f.arguments, f.purpose, f.device, f.error) for f in res.facts] == [
        ("ibv_create_ah", args, purpose, device, error)]


def test_a_verbs_call_without_arguments_has_none():
    # openucx/ucx#8746's form: the device first, empty parentheses
    line = ("[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot "
            "allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)")
    (f,) = ucx_log.parse(Artefact(path="x", text=line + "\n", node="n1")).facts
    assert (f.verb, f.arguments, f.purpose, f.memlock_kb) == ("ibv_create_cq", None, None, 64)


def test_a_remote_key_used_on_another_endpoint():
    # open-mpi/ompi#10410 (fixtures/artefacts/ucx_log/ompi10410_rkey_wrong_endpoint_then_remote_access.txt): UCX's
    # UCP_RKEY_RESOLVE check on two ranks of cn-1, then cn-0's remote access completion error
    text = (FIX / "ompi10410_rkey_wrong_endpoint_then_remote_access.txt").read_text()
    assert ucx_log.detect(text)
    facts = ucx_log.parse(Artefact(path="x", text=text)).facts
    assert [(f.kind, f.node, getattr(f, "form", None)) for f in facts if f.kind == "ucx_rkey_endpoint_mismatch"] == [
        ("ucx_rkey_endpoint_mismatch", "gnu-ompi-mtt-cn-1", "resolve")] * 2
    assert [(f.node, f.status) for f in facts if f.kind == "ucx_completion_error"] == [("gnu-ompi-mtt-cn-0", 10)]
    # CONSTRUCTED from UCX's protocol v2 format (the scatter-gather check), addresses filled in
    line = ("sgl[1]: rkey 0x7f01 was unpacked on ep 0x7f02, but sgl[0] rkey 0x7f03 was unpacked on ep 0x7f04, "
            "all rkeys must belong to the same endpoint\n")
    assert [f.form for f in ucx_log.parse(Artefact(path="x", text=line, node="n1")).facts] == ["sgl"]


def test_invalid_gid_lines_of_two_hosts():
    # real (openucx/ucx#4966): UCX's empty GID on two ports, on both hosts, after the wrapper's own echo lines
    text = (FIX / "ucx4966_invalid_gid_two_hosts.log").read_text()
    assert ucx_log.detect(text)
    facts = [f for f in parse_text(text).facts if f.kind == "ucx_gid_empty"]
    assert [(f.node, f.device, f.port, f.gid_index, f.evidence.line) for f in facts] == [
        ("149a368e-ef8d-493a-b46f-2e23bde3f0a1", "mlx5_6", 1, 0, 3),
        ("7bbaa4ab-a0d8-4fbd-a329-03a1666e7964", "mlx5_6", 1, 0, 4),
        ("149a368e-ef8d-493a-b46f-2e23bde3f0a1", "mlx5_8", 1, 0, 5),
        ("7bbaa4ab-a0d8-4fbd-a329-03a1666e7964", "mlx5_8", 1, 0, 6),
    ]


def test_gid_query_failure_is_no_empty_gid():
    # CONSTRUCTED from ib_iface.c's other error: the query failed, no entry was read
    line = "[1585882859.110274] [node1:63427:0]      ib_iface.c:473  UCX  ERROR ibv_query_gid(index=3) failed: Invalid argument\n"
    assert [f for f in parse_text(line).facts if f.kind == "ucx_gid_empty"] == []

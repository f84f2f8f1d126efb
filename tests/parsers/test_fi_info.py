"""fi_info and libfabric's own log lines (real pastes: libfabric#12708, #11256)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import fi_info
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/fi_info"


def _parse(name: str):
    art = Artefact(path=name, node="n1", text=(FIX / name).read_text())
    art.normalise()
    return fi_info.parse(art)


def test_warn_lines_and_the_provider_they_name():
    r = _parse("libfabric12708_efa_device_open_failed.txt")
    warns = [(f.provider, f.subsystem, f.function, f.what) for f in r.facts if f.kind == "libfabric_warning"]
    assert warns == [("efa", "ep_data", "efa_device_construct_gid", "device_open"),
                     ("efa", "fabric", "efa_device_list_initialize", "device_open")]
    errs = [(f.evidence.line, f.provider, f.code) for f in r.facts if f.kind == "fi_info_error"]
    assert errs == [(3, "efa", -61), (4, "efa", -61)]  # the log's empty list, and fi_getinfo's line taking its provider


def test_info_lines_alone_are_recognised_and_count_for_nothing():
    text = (FIX / "libfabric11256_info_lines_only.txt").read_text()
    assert fi_info.detect(text)
    r = _parse("libfabric11256_info_lines_only.txt")
    assert r.facts == [] and r.lines_used == 0


def test_each_release_prefix():
    # ofiwg/libfabric src/log.c: 1.5-1.8 prov:subsys, 1.9-1.14 pid first, 1.15+ pid:time:prefix:prov:subsys (filled in)
    for line in ("libfabric:efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13",
                 "libfabric:4242:efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13",
                 "libfabric:4242:1700000000::efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13"):
        art = Artefact(path="l", node="n1", text=line + "\n")
        art.normalise()
        (f,) = fi_info.parse(art).facts
        assert (f.provider, f.subsystem, f.what) == ("efa", "core", "device_open"), line


def test_efa_operation_error_names_status_text_and_peer():
    # aws-ofi-nccl#346: efa_rdm_txe_handle_error's report; the indented copy of it is no libfabric line of its own
    r = _parse("mixed_aws_ofi_nccl346_efa_txe_invalid_address.txt")
    (f,) = [f for f in r.facts if f.kind == "libfabric_warning"]
    assert (f.function, f.what, f.error, f.prov_errno, f.error_text, f.peer) == (
        "efa_rdm_txe_handle_error", "operation_error", 5, 7, "Invalid address", "i-0ce6d3d57139f053c")


def test_efa_operation_error_older_and_internal_forms():
    cases = {
        # aws-ofi-nccl#156 (libfabric 1.14-1.16 rxr_cq.c)
        "libfabric:35:1668017255::efa:cq:rxr_cq_write_tx_error():243<warn> rxr_cq_write_tx_error: err: 20, prov_err: Not a directory (20)":
            (20, 20, "Not a directory", None),
        # 1.17's rxr_cq_write_tx_error with the addresses (format filled in)
        "libfabric:35:1668017255::efa:cq:rxr_cq_write_tx_error():237<warn> rxr_cq_write_tx_error: err: 113, prov_err: Unresponsive receiver (13)"
        " our address: fi_addr_efa://[fe80::1]:0:1, peer address fi_addr_efa://[fe80::2]:0:2":
            (113, 13, "Unresponsive receiver", "fi_addr_efa://[fe80::2]:0:2"),
        # the provider's internal operation (efa_rdm_ope.c at af8ddbe92, filled in); the text keeps its own parentheses
        "libfabric:9:1700000000::efa:cq:efa_rdm_rxe_handle_error():675<warn> EFA provider internal rxe failure err: 5, message: "
        "Unresponsive remote (was previously responsive) (13)":
            (5, 13, "Unresponsive remote (was previously responsive)", None),
        # a peer address only (host id 0: the handshake not done)
        "libfabric:9:1700000000::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 113, message: Unreachable remote - never received a response"
        " My EFA addr: fi_addr_efa://[fe80::1]:0:1 My host id: i-0123 Peer EFA addr: fi_addr_efa://[fe80::2]:0:2 Peer host id: 0 (15)":
            (113, 15, "Unreachable remote - never received a response", "fi_addr_efa://[fe80::2]:0:2"),
    }
    for line, want in cases.items():
        art = Artefact(path="l", node="n1", text=line + "\n")
        art.normalise()
        (f,) = fi_info.parse(art).facts
        assert (f.what, f.error, f.prov_errno, f.error_text, f.peer) == ("operation_error", *want), line


def test_other_warnings_are_not_operation_errors():
    for line in ("libfabric:9:1700000000::efa:cq:efa_foo():1<warn> err: 5 then something else",
                 "libfabric:9:1700000000::efa:mr:efa_mr_reg_impl():893<warn> Unable to register MR of 11279546368 bytes: Bad address, flags 0"):
        art = Artefact(path="l", node="n1", text=line + "\n")
        art.normalise()
        (f,) = fi_info.parse(art).facts
        assert f.what is None and f.error is None, line


def test_efa_installer_self_test_steps():
    # the installer inside docker (aws-efa-nccl-baseami-pipeline#2): the provider step, the closing words joined to it
    r = _parse("efa_baseami_pipeline2_installer_test_no_provider.txt")
    assert [(f.evidence.line, f.stage, f.device_detected) for f in r.facts if f.kind == "efa_self_test"] == [(5, "provider", True)]
    # efa_test.sh by hand (aws-cdi-sdk#48): the ping test's exit status
    r = _parse("efa_cdi_sdk48_pingpong_returned_103.txt")
    assert [(f.stage, f.code, f.timed_out) for f in r.facts if f.kind == "efa_self_test"] == [("pingpong", 103, False)]


def test_efa_self_test_forms_from_the_scripts():
    # efa_test.sh's four echo lines and the later installer's wrapped closing words (efa-installer sources)
    text = ("Error: required libfabric binaries not found.\n"
            "Error: fi_pingpong test timed out.\n"
            "\n"
            "EFA installation is complete and an EFA device has\n"
            "been detected but a ping test failed. Please consult\n"
            "the EFA documentation to verify your configuration.\n")
    assert fi_info.detect(text)
    art = Artefact(path="x", node="n1", text=text)
    art.normalise()
    got = [(f.evidence.line, f.stage, f.code, f.timed_out, f.device_detected) for f in fi_info.parse(art).facts]
    assert got == [(1, "binaries", None, False, None), (2, "pingpong", 124, True, True)]
    # a closing line alone stands for a failed ping test; prose that only mentions the test is not read
    assert not fi_info.detect("We ran efa_test.sh and the EFA ping test failed for us.\n")


# openucx/ucx#9468 (RHEL 9.2, OFED 5.8, a RoCE LAG bond): PSM3's _HFI_ERROR from every rank, the job then runs
PSM3_9468 = """[scrosby@spartan-bm035 OpenMPI]$ mpirun -np 2 ./mpi-pingpong
spartan-bm035.hpc.unimelb.edu.au:rank0.mpi-pingpong: Failed to modify UD QP to INIT on mlx5_bond_0: Invalid argument
spartan-bm035.hpc.unimelb.edu.au:rank1.mpi-pingpong: Failed to modify UD QP to INIT on mlx5_bond_0: Invalid argument
spartan-bm035.hpc.unimelb.edu.au:rank1.mpi-pingpong: Failed to modify UD QP to INIT on mlx5_bond_0: Invalid argument
Hello from 1 of 2
Hello from 0 of 2
"""


def test_psm3_verbs_setup_failure_once_per_device_step_and_error():
    assert fi_info.detect(PSM3_9468)
    res = fi_info.parse(Artefact(path="run.txt", text=PSM3_9468, node="folder"))
    got = [(f.kind, f.evidence.line, f.node, f.provider, f.function, f.what, f.error_text) for f in res.facts]
    assert got == [("libfabric_warning", 2, "spartan-bm035", "psm3", "modify_ud_qp_to_init", "verbs_setup", "Invalid argument")]
    assert res.lines_used == 3 and not res.errors


def test_psm3_other_steps_in_its_format_strings():
    # prov/psm3 psm3_ep_open_verbs's formats, filled in (host and program invented)
    text = ("node1:pid4242.a.out: Unable to create send CQ of size 5080 on mlx5_0: Cannot allocate memory\n"
            "node1:rank3.a.out: Unable to create UD QP on irdma0\n"
            "node1:rank3.a.out: Failed to modify UD QP to RTS on mlx5_2: Connection timed out\n")
    res = fi_info.parse(Artefact(path="run.txt", text=text, node="folder"))
    assert [(f.function, f.error_text) for f in res.facts] == [
        ("create_send_cq", "Cannot allocate memory"), ("ud_qp_create", None), ("modify_ud_qp_to_rts", "Connection timed out")]


def test_not_psm3_lines():
    for line in ("enable_queue_pair(): ibv_modify_qp: Invalid argument,",  # a program's perror: verbs_perror's
                 "Failed to modify UD QP to INIT on mlx5_0: Operation not permitted",  # quoted without PSM3's prefix
                 "[1665103135.306110] [hpap13n2:7391 :0]         dc_mlx5.c:456  UCX  ERROR ibv_modify_qp(DCI, RTR) failed : Invalid argument"):
        assert not fi_info.detect(line)
        assert fi_info.parse(Artefact(path="t", text=line, node="n")).facts == []

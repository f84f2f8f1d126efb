"""verbs_perror: a program's perror(3) of a failed libibverbs call; other programs' forms are their readers'."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import verbs_perror
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/verbs_perror"


def _facts(text: str):
    return verbs_perror.parse(Artefact(path="t.log", text=text, node="node1")).facts


def test_smart2_modify_qp_invalid_argument():
    # madsys-dev/smart#2: the program's prefix, then perror("ibv_modify_qp"), a trailing comma
    text = (FIX / "smart2_modify_qp_invalid_argument.txt").read_text()
    assert verbs_perror.detect(text)
    assert [(f.call, f.error) for f in _facts(text)] == [("ibv_modify_qp", "Invalid argument")]


def test_once_per_call_and_error():
    text = "ibv_modify_qp: Invalid argument\nibv_modify_qp: Invalid argument\nibv_reg_mr: Bad address\n"
    assert [(f.call, f.error) for f in _facts(text)] == [("ibv_modify_qp", "Invalid argument"), ("ibv_reg_mr", "Bad address")]


@pytest.mark.parametrize("line", [
    # UCX's form (open-mpi/ompi#6300, openucx/ucx#8746) and NCCL's (NVIDIA/nccl#778): their readers'
    "[1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory",
    "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.",
    "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported",
    # a call's name followed by words that are no strerror text (a tool's help line)
    "  ibv_devinfo: Query RDMA devices",
])
def test_other_forms_are_not_this(line):
    assert not verbs_perror.detect(line + "\n")
    assert _facts(line + "\n") == []


def test_an_error_line_not_last_in_its_file_is_recognised():
    # the signature is line-anchored: before (?m) RE2 read '$' as the text's end, so the line was
    # recognised only when nothing followed it (then INCONCLUSIVE with no finding)
    from stethoscope.facts import classify
    text = "enable_queue_pair(): ibv_modify_qp: Invalid argument,\nretrying in 1 s\n"
    assert verbs_perror in classify.recognise(text)


def test_torchforge626_monarch_qp_failures_on_efa():
    # meta-pytorch/torchforge#626: rdmaxcel's perror lines, then the Rust chain broken after the device's colon
    text = (FIX / "torchforge626_efa_create_qp_not_supported.log").read_text()
    assert verbs_perror.detect(text)
    r = verbs_perror.parse(Artefact(path="t.log", text=text, node="node1"))
    assert [(f.call, f.error, f.errno, f.device, f.evidence.line) for f in r.facts] == [
        ("ibv_create_qp", "Operation not supported", 95, "rdmap16s27", 1)]
    assert r.lines_used == 6  # the four perror lines, the device's line and the Rust error; not the actor's wrapper


def test_mooncake2070_glog_plog_form():
    # kvcache-ai/Mooncake#2070: rdma_endpoint.cpp's PLOG(ERROR) << "Failed to create QP" (glog adds ': <strerror> [<errno>]')
    text = (FIX / "mooncake2070_efa_create_qp_not_supported.log").read_text()
    assert [(f.call, f.error, f.errno, f.device) for f in _facts(text)] == [("ibv_create_qp", "Operation not supported", 95, None)]


def test_the_chain_on_one_line_names_its_device():
    # CONSTRUCTED from Monarch's two format strings filled ("could not create loopback QP for device {}: {}" around
    # "failed to create queue pair (QP): {}" of Rust's io::Error): the chain on one line
    text = "processing error: could not create loopback QP for device efa_0: failed to create queue pair (QP): Invalid argument (os error 22)\n"
    assert [(f.call, f.error, f.errno, f.device) for f in _facts(text)] == [("ibv_create_qp", "Invalid argument", 22, "efa_0")]


def test_a_title_quoting_the_line():
    # meta-pytorch/torchforge#626's title quotes the perror line (a closing quote after the strerror)
    text = 'On AWS EC2 p4de (Single Node): "failed to create extended queue pair (QP): Operation not supported"\n'
    assert verbs_perror.detect(text)
    assert [(f.call, f.error) for f in _facts(text)] == [("ibv_create_qp", "Operation not supported")]


@pytest.mark.parametrize("line", [
    # UCX's QP forms are ucx_log's (lower-case 'qp', or the QP type and its sizes after 'QP')
    "[1530549338.253029] [clx-hercules-007:20497:0]       rc_iface.c:966  UCX  ERROR failed to create qp: Invalid argument",
    "[1588956223.719348] [vinci115:55453:0]       ib_iface.c:623  UCX  ERROR iface=0x2535490: failed to create UD QP TX wr:256 sge:2 inl:64 RX wr:4096 sge:1 inl 0: Invalid argument",
    # the EFA kernel driver's own line is kernel_log_efa's
    "efa 0000:00:06.0 efa_0: Failed to create qp [-12]",
    # perftest's words carry no strerror; words after the colon that are no strerror text
    "Failed to create QP.",
    "Failed to create QP: check the device name",
])
def test_other_qp_forms_are_not_this(line):
    assert _facts(line + "\n") == []


@pytest.mark.parametrize("name, error, errno", [
    # sgl-project/sglang#6894, kvcache-ai/Mooncake#454 (a closing quote after it), #1754 (in backticks, '...' after)
    ("sglang6894_register_memory_einval.log", "Invalid argument", 22),
    ("mooncake454_register_memory_erange.log", "Numerical result out of range", 34),
    ("mooncake1754_erdma_register_memory_eio.log", "Input/output error", 5),
])
def test_mooncake_register_memory_plog_is_a_failed_ibv_reg_mr(name, error, errno):
    text = (FIX / name).read_text()
    assert verbs_perror.detect(text)
    assert [(f.call, f.error, f.errno) for f in _facts(text)] == [("ibv_reg_mr", error, errno)]


def test_a_register_memory_failure_once_per_error():
    # CONSTRUCTED from Mooncake's PLOG form: every buffer of a failing device prints one
    line = "E0529 23:22:59.553695 67580 rdma_context.cpp:203] Failed to register memory 0x7c0ab6000000: Bad address [14]\n"
    assert [(f.call, f.error, f.errno) for f in _facts(line * 3)] == [("ibv_reg_mr", "Bad address", 14)]


@pytest.mark.parametrize("line", [
    # Mooncake's transport warning after it (Mooncake#1754): words, not a strerror text, after the colon
    "W0326 14:23:05.734648 1307 rdma_transport.cpp:400] RdmaTransport: Failed to register memory: addr 0x7f4cfa000000 length 4885774336",
    # CONSTRUCTED: an application's own failure in prose, and a status code where strerror would be
    "Failed to register memory: please check the docs",
    "Failed to register memory for agent-0: NIXL_ERR_BACKEND",
])
def test_other_register_memory_lines_are_not_this(line):
    assert not verbs_perror.detect(line + "\n")
    assert _facts(line + "\n") == []


def test_a_posting_call_s_returned_errno_is_read():
    # ydb-platform/nbs#2690 (fixtures/artefacts/verbs_completion): NBS prints the number ibv_post_recv returned
    text = (FIX.parent / "verbs_completion" / "nbs_recv_retry_exc.log").read_text()
    assert verbs_perror.detect(text)
    facts = _facts(text)
    assert [(f.call, f.error, f.errno) for f in facts] == [("ibv_post_recv", "Cannot allocate memory", 12)]
    assert "ibv_post_recv failed with error 12" in facts[0].evidence.text


@pytest.mark.parametrize("line, want", [
    # CONSTRUCTED from RDMA examples' fprintf forms of the returned value ("error code:%d,reason=%s", "error: %d")
    ("ibv_post_send failed with error code:12,reason=Cannot allocate memory", [("ibv_post_send", "Cannot allocate memory", 12)]),
    ("ibv_post_send failed with error: 22", [("ibv_post_send", "Invalid argument", 22)]),
    ("ibv_post_send failed with error: -1", [("ibv_post_send", "returned -1", None)]),
    # NCCL's words are nccl_log's, and a number no errno has is not read
    ("node1:1:2 [0] NCCL WARN Call to ibv_post_send failed with error 12", []),
    ("ibv_post_send failed with error 9999", []),
])
def test_returned_number_forms(line, want):
    assert [(f.call, f.error, f.errno) for f in _facts(line + "\n")] == want

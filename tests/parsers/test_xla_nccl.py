"""xla_nccl: NCCL's last warning as JAX/XLA quotes it, in XLA's format strings and as pasted."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import xla_nccl
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/xla_nccl"


def parse_text(text: str):
    return xla_nccl.parse(Artefact(path="x.log", text=text, node="n1"))


def kinds(result):
    return [(f.kind, getattr(f, "reason", None)) for f in result.facts]


def test_real_marin7018_paste():
    text = (FIX / "no_socket_interface_marin7018.txt").read_text()
    assert xla_nccl.detect(text)
    r = parse_text(text)
    assert kinds(r) == [("nccl_warn", None), ("nccl_bootstrap_failure", "no_socket_interface")]
    assert all(f.evidence.line == 2 for f in r.facts) and r.errors == []


@pytest.mark.parametrize("line, expect", [
    # XLA's one-line status (format of xla/service/gpu/nccl_utils: "... failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.")
    ("nccl_api.cc:501: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error. "
     "Last NCCL warning(error) log entry (may be unrelated) 'socketStartConnect: Connect to 127.0.0.1<40013> failed : Connection refused'.",
     [("nccl_warn", None), ("nccl_bootstrap_failure", "connection_refused")]),
    # the collective-memory form, unquoted message
    ("failed to allocate 1.00GiB (1073741824 bytes) from device collective memory: unhandled cuda error, "
     "Last NCCL warning(error) log entry (may be unrelated): Cuda failure 'out of memory'",
     [("nccl_warn", None), ("nccl_cuda_failure", None)]),
    # NCCL had no message: the operation and its result stand for it
    ("NCCL operation ncclGroupEnd() failed: unhandled cuda error. Last NCCL warning(error) log entry (may be unrelated) ''.",
     [("xla_nccl_error", None)]),
    # XLA's runtime context after the quoted message (LargeWorldModel/LWM#42): the message is the quoted text
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call "
     "'xla.gpu.reduce_scatter' failed: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, "
     "nranks, id, rank) failed: internal error - please report this issue to the NCCL developers. Last NCCL warning(error) log "
     "entry (may be unrelated) 'Attribute busid of node nic not found'.; current",
     [("nccl_warn", None)]),
])
def test_xla_formats(line, expect):
    assert xla_nccl.detect(line)
    assert kinds(parse_text(line)) == expect


def test_other_text_is_not_claimed():
    assert not xla_nccl.detect("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nLast error:\n")


def test_status_without_nccl_message_jax15628():
    """Each replica prints the same status: one xla_nccl_error, with the result's ncclResult_t name."""
    r = parse_text((FIX / "jax15628_groupend_unhandled_cuda_error.log").read_text())
    assert [(f.kind, f.operation, f.result, f.nccl_error, f.evidence.line) for f in r.facts] == [
        ("xla_nccl_error", "ncclGroupEnd", "unhandled cuda error", "ncclUnhandledCudaError", 1)]


@pytest.mark.parametrize("rel, message, kind", [
    ("jaxtoolbox740_ibv_set_ece_einval.log", "Call to ibv_set_ece failed with error Invalid argument errno 22", "ib_ece_rejected"),
])
def test_quoted_message_gets_its_warn_kind(rel, message, kind):
    facts = parse_text((FIX / rel).read_text()).facts
    assert [(f.kind, f.message, f.message_kind) for f in facts] == [("nccl_warn", message, kind)]


def test_lwm42_context_after_the_quote():
    line = ("NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: internal error - please report this issue to the "
            "NCCL developers. Last NCCL warning(error) log entry (may be unrelated) 'Attribute busid of node nic not found'.; current")
    facts = parse_text(line).facts
    assert [(f.message, f.message_kind) for f in facts] == [("Attribute busid of node nic not found", "topology_detection_failed")]


def test_nccl_stub_text_is_a_library_not_loaded():
    # LargeWorldModel/LWM#44: XLA's NCCL stub (xla/tsl/cuda/nccl_stub.cc) answers every call with its own text when
    # libnccl could not be loaded; XLA quotes it as the result and as the last warning, on every replica: one
    # shared_library_missing for the file, no NCCL warning (NCCL never ran)
    text = (FIX / "lwm44_nccl_stub_unable_to_load.log").read_text()
    assert xla_nccl.detect(text)
    r = parse_text(text)
    assert [(f.kind, f.library, f.evidence.line) for f in r.facts] == [("shared_library_missing", "libnccl.so.2", 5)]
    assert r.errors == []
    # one of those lines alone
    r = parse_text(text.splitlines()[4])
    assert [f.kind for f in r.facts] == ["shared_library_missing"]
    # a failure without the stub's text is still read as before (jax-ml/jax#15628's form)
    r = parse_text("NCCL operation ncclGroupEnd() failed: unhandled cuda error. Last NCCL warning(error) log entry "
                   "(may be unrelated) ''.")
    assert [f.kind for f in r.facts] == ["xla_nccl_error"]


@pytest.mark.parametrize("rel, expect", [
    # google/flax#4942: the call quoted with calls in its arguments, an empty last message: both processes print it, one fact
    ("flax4942_allreduce_nested_call_invalid_argument.log",
     [("ncclAllReduce", "invalid argument (run with NCCL_DEBUG=WARN for details)", "ncclInvalidArgument", 13)]),
    # j-towns/vdvae-jax#2: older XLA, blanks in the quoted call, no message quoted, XLA's replica context after the result
    ("vdvaejax2_thunk_invalid_usage_while_running_replica.log", [("ncclAllReduce", "invalid usage", "ncclInvalidUsage", 1)]),
])
def test_quoted_call_with_blanks_and_nested_calls(rel, expect):
    text = (FIX / rel).read_text()
    assert xla_nccl.detect(text)
    r = parse_text(text)
    assert [(f.operation, f.result, f.nccl_error, f.evidence.line) for f in r.facts if f.kind == "xla_nccl_error"] == expect
    assert r.errors == []


@pytest.mark.parametrize("line", [
    "NCCL operation ncclAllReduce",  # a title cut before the call's arguments: no result
    "NCCL operation ncclAllReduce(a, b(c(d))) failed: invalid usage.",  # calls two deep: not XLA's quoting (CONSTRUCTED)
])
def test_near_misses_give_no_operation_failure(line):
    assert not [f for f in parse_text(line).facts if f.kind == "xla_nccl_error"]

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
     [("nccl_warn", None)]),
])
def test_xla_formats(line, expect):
    assert xla_nccl.detect(line)
    assert kinds(parse_text(line)) == expect


def test_other_text_is_not_claimed():
    assert not xla_nccl.detect("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nLast error:\n")

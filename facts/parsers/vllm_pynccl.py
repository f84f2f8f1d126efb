"""vLLM's and SGLang's own NCCL wrapper (PyNcclCommunicator) naming the NCCL library it loaded.

``logger.info("vLLM is using nccl==%s", self.nccl.ncclGetVersion())`` (vllm/distributed/
device_communicators/pynccl.py; SGLang's copy prints ``sglang is using nccl==%s``): the version
the library itself reports, so the NCCL in use whether or not ``NCCL_DEBUG`` was set (the NCCL
``NCCL version 2.20.5+cuda12.4`` line needs it). Real lines (threads named; samples)::

    INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5                                  (vllm-project/vllm#8058)
    (VllmWorkerProcess pid=1927518) INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5  (the same thread)
    (VllmWorkerProcess pid=24153) INFO 01-21 17:23:12 pynccl.py:63] vLLM is using nccl==2.20.5 gpu05:24037:24037 [0] NCCL INFO ...   (vllm-project/vllm#12292)

Facts: ``nccl_version`` (the kind NCCL's own version line gives: the NCCL version checks and the
known-issue table read it) per process that printed one: ``version``, ``pid`` from vLLM's
``(VllmWorkerProcess pid=N)`` prefix where there is one; ``cuda`` is not printed (None).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.nccl import NcclVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "vllm_pynccl"

_LINE = re.compile(r"\b(?:vLLM|sglang) is using nccl==(?P<version>\d+\.\d+\.\d+)")
# (VllmWorkerProcess pid=1927518) INFO ...    (EngineCore_DP0 pid=504) ...    (Worker pid=150) INFO ...
_PID = re.compile(r"\(\w+ pid=(?P<pid>\d+)\)")


def detect(head: str) -> bool:
    return _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[int | None, str]] = set()
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        p = _PID.search(artefact.raw_line(n))  # the line as written: normalise() took the process prefix off
        pid = int(p["pid"]) if p else None
        if (pid, m["version"]) in seen:
            continue
        seen.add((pid, m["version"]))
        fb.add(NcclVersion, n, version=m["version"], pid=pid)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:vLLM|sglang) is using nccl==",)

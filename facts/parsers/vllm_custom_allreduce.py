"""vLLM's custom all-reduce (and SGLang's copy of it) saying why it turned itself off at start-up.

``CustomAllreduce.__init__`` (vllm/distributed/device_communicators/custom_all_reduce.py; SGLang's
python/sglang/srt/distributed/device_communicators/custom_all_reduce.py) returns early with one
warning per worker when it cannot run, and the tensor-parallel all-reduce then goes through NCCL
(pynccl). The upstream format strings, every version::

    "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed.
     To silence this warning, specify disable_custom_all_reduce=True explicitly."   (0.4 on; 0.3:
     "... lacks GPU P2P capability. To silence this warning, specifydisable_custom_all_reduce=True explicitly.")
    "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence ..."
    "Custom allreduce is disabled due to an unsupported world size: %d. Supported world sizes: %s. To silence
     this warning, specify disable_custom_all_reduce=True explicitly."  (0.3: "To slience this warning, specifydisable_...")
    "Custom allreduce is disabled because this process group spans across nodes."  (newer: "CustomAllreduce is ...")
    "Custom allreduce is disabled because of missing custom allreduce library"      (logger.info, a build without _C ops)

Real sample lines (even-numbered threads)::

    (eager_allreduce pid=3040) WARNING 05-13 08:48:35 custom_all_reduce.py:166] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.   (vllm-project/vllm#4770)
    (VllmWorkerProcess pid=281) WARNING 03-22 18:40:47 [custom_all_reduce.py:137] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.   (vllm-project/vllm#15340)
    WARNING 01-30 21:39:03 custom_all_reduce.py:33] Custom allreduce is disabled due to an unsupported world size: 1. Supported world sizes: [2, 4, 6, 8]. To slience this warning, specifydisable_custom_all_reduce=True explicitly.   (vllm-project/vllm#2674)

Facts: ``custom_allreduce_disabled`` (info: a state of the interconnect the engine saw, NCCL is
used instead; not a fault alone), one per process and reason: ``reason`` p2p_unavailable |
pcie_only_over_two | world_size | cross_node | library_missing, ``world_size``, ``pid``.
SGLang's bracketed cross-node form is also read by sglang_start (its start-up hang check).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CustomAllreduceDisabled  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "vllm_custom_allreduce"

# Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence ...
# Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence ...
# Custom allreduce is disabled due to an unsupported world size: 16. Supported world sizes: [2, 4, 6, 8]. ...
# CustomAllreduce is disabled because this process group spans across nodes.
# Custom allreduce is disabled because of missing custom allreduce library
_LINE = re.compile(
    r"Custom ?[Aa]llreduce is disabled (?:because (?:(?P<p2p>your platform lacks GPU P2P capability)"
    r"|(?P<pcie>it's not supported on more than two PCIe-only GPUs)|(?P<nodes>this process group spans across nodes)"
    r"|(?P<lib>of missing custom allreduce library))|due to an unsupported world size: (?P<ws>\d+))"
)
# (VllmWorkerProcess pid=1927518) WARNING ...   (eager_allreduce pid=3040) ...   (VllmWorker rank=1 pid=1410768) ...
_PID = re.compile(r"\(\w+(?: rank=\d+)? pid=(?P<pid>\d+)\)")


def _reason(m: re.Match[str]) -> str:
    if m["p2p"]:
        return "p2p_unavailable"
    if m["pcie"]:
        return "pcie_only_over_two"
    if m["nodes"]:
        return "cross_node"
    if m["lib"]:
        return "library_missing"
    return "world_size"


def detect(head: str) -> bool:
    return _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    first: dict[tuple[int | None, str], tuple[int, re.Match[str]]] = {}  # (process, reason) -> its first line
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        p = _PID.search(artefact.raw_line(n))  # the prefix as written: normalise() took it off the text
        first.setdefault((int(p["pid"]) if p else None, _reason(m)), (n, m))
    fb = FactBuilder(artefact, result)
    for (pid, reason), (n, m) in first.items():
        fb.add(CustomAllreduceDisabled, n, reason=reason, world_size=int(m["ws"]) if m["ws"] else None,
               pid=pid, message=artefact.lines[n - 1].strip()[:300])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Custom ?[Aa]llreduce is disabled (?:because|due to)",)

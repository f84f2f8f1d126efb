"""DeepEP's timeouts: the expert-parallel all-to-all library (deepseek-ai/DeepEP, under SGLang's, vLLM's, Megatron's
and TensorRT-LLM's MoE layers) giving up on a peer. Its kernels spin on a peer's head/tail pointers or signals; past
NUM_TIMEOUT_CYCLES a kernel's timeout check prints where it was and executes ``trap`` (the process then fails with CUDA's
``unspecified launch failure``); the host, waiting for the received-token counts the kernel writes, throws past
NUM_CPU_TIMEOUT_SECS.

The forms (deepseek-ai/DeepEP, csrc/kernels/{internode,intranode,internode_ll}.cu, utils.cuh and csrc/deep_ep.cpp,
moved under csrc/kernels/legacy/ and csrc/legacy/ by DeepEP v2)::

    "DeepEP dispatch NVL receiver timeout, channel: %d, RDMA: %d, nvl: %d, src NVL: %d, head: %d, tail: %d"   internode.cu
    "DeepEP dispatch RDMA sender timeout, channel: %d, ..." "DeepEP RDMA sender coordinator timeout, channel: %d, ..."
    "DeepEP dispatch forwarder timeout (RDMA meta), channel: %d, ..." (also "(NVL check)", "(RDMA check)")
    "DeepEP combine NVL sender timeout, channel: %d, ..." "DeepEP combine forwarder (RDMA check) timeout, channel: %d, ..."
    "DeepEP combine RDMA receiver timeout, channel: %d, ..."
    "DeepEP timeout for dispatch senders, rank %d, responsible_channel = %d"                                    intranode.cu
      (also "dispatch receivers", "combine senders", "combine receivers")
    "Warning: DeepEP timeout for dispatch receive, rank %d, local_expert_idx %d, src_rank %d"                  internode_ll.cu
      (also "combine receive"; "Warning: DeepEP timeout for barrier, rank %d, dst_rank %d")
    "DeepEP timeout check failed: rank = %d, thread = %d, value = %d)"  (first "... failed: %d (rank = %d)")   utils.cuh barrier_block
    "DeepEP error: CPU recv timeout"          deep_ep.cpp intranode_dispatch (the host's wait for the counts)
    "DeepEP error: timeout (dispatch CPU)"    deep_ep.cpp internode_dispatch

Sample content, real lines (deepseek-ai/DeepEP#274, test_internode.py on 4 x 8 H800; then the process's end)::

    DeepEP dispatch NVL receiver timeout, channel: 6, RDMA: 0, nvl: 0, src NVL: 5, head: 315, tail: 315
    terminate called after throwing an instance of 'EPException'
      what():  Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:83 'unspecified launch failure'

Its own checks (csrc/kernels/exception.cuh; the EPException text is the same in the libraries built on that file:
UCCL-EP, Paddle's deep_ep)::

    EP_HOST_ASSERT(cond)    throw EPException("Assertion", __FILE__, __LINE__, #cond)
                            -> "Failed: " + name + " error " + file + ":" + line + " '" + error + "'"
    EP_DEVICE_ASSERT(cond)  printf("Assertion failed: %s:%d, condition: %s\n", __FILE__, __LINE__, #cond); trap

Real (deepseek-ai/DeepEP#392, low-latency dispatch on GB200, under torchrun's label)::

    [rank0]: RuntimeError: Failed: Assertion error /workspace/fireworks/third-party/DeepEP/csrc/deep_ep.cpp:1134 'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'    ^^^^^^^^

Facts: ``deepep_timeout`` per line: which kernels (internode, intranode or low_latency, by the file that prints the
form; barrier_block's check and the intranode CPU wait are the node's NVLink peers), dispatch / combine / barrier /
notify, the waiting role as printed, gpu or cpu, the rank, the peer and the channel where the line names them.
``deepep_assertion_failed`` per check line: host or device, the source file and line, the condition (up to the last
quote of a host check; a line cut before it keeps what is there). The device form's printf is also DeepGEMM's old
DG_HOST_ASSERT, so it is read only where the file's path names DeepEP (``deep_ep``, ``DeepEP``). DeepEP's EPException
for a CUDA error is the cuda_app reader's. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import DeepepAssertionFailed, DeepepTimeout  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "deepep_log"

# DeepEP dispatch NVL receiver timeout, channel: 6, RDMA: 0, nvl: 0, src NVL: 5, head: 315, tail: 315   (deepseek-ai/DeepEP#274)
# DeepEP combine forwarder (RDMA check) timeout, channel: 3, RDMA: 1, nvl: 2, dst RDMA: 0, head: 12, tail: 40   (format filled)
# DeepEP RDMA sender coordinator timeout, channel: 0, IB: 1, nvl 3, dst IB: 0, tail: 4, remaining: 2   (format filled)
_INTERNODE = re.compile(
    r"\bDeepEP (?:(?P<op>dispatch|combine) )?(?P<role>(?:RDMA |NVL )?(?:sender coordinator|sender|receiver|forwarder)"
    r"(?: \((?:RDMA|NVL) (?:meta|check)\))?) timeout(?: \((?P<check>(?:RDMA|NVL) (?:meta|check))\))?, channel: (?P<channel>\d{1,4})")
#   the peer the wait was for, later on the same line: "src NVL: 5", "dst RDMA lane: 0", "src RDMA: 1", "dst IB: 0"
_PEER = re.compile(r"\b(?:src|dst) (?:NVL|RDMA|IB)(?: lane)?: (?P<peer>\d{1,6})")
# DeepEP timeout for dispatch receivers, rank 3, responsible_channel = 5, tokens remained: 12   (format filled)
# Warning: DeepEP timeout for dispatch receive, rank 9, local_expert_idx 2, src_rank 14   (format filled)
# Warning: DeepEP timeout for barrier, rank 9, dst_rank 14   (format filled)
_FOR = re.compile(
    r"\bDeepEP timeout for (?:(?P<op>dispatch|combine) (?P<role>senders|receivers|receive)|(?P<barrier>barrier)), "
    r"rank (?P<rank>\d{1,6})(?:, responsible_channel = (?P<channel>\d{1,4})|, local_expert_idx \d{1,6}, src_rank (?P<src>\d{1,6})"
    r"|, dst_rank (?P<dst>\d{1,6}))?")
# DeepEP timeout check failed: rank = 2, thread = 5, value = 1)   (format filled; the first releases: "failed: %d (rank = %d)")
_CHECK = re.compile(r"\bDeepEP timeout check failed: (?:rank = (?P<rank>\d{1,6})|-?\d{1,12} \(rank = (?P<rank_old>\d{1,6})\))")
# RuntimeError: DeepEP error: CPU recv timeout        RuntimeError: DeepEP error: timeout (dispatch CPU)   (format filled)
_CPU = re.compile(r"\bDeepEP error: (?:(?P<recv>CPU recv timeout)|timeout \(dispatch CPU\))")

# RuntimeError: Failed: Assertion error /workspace/fireworks/third-party/DeepEP/csrc/deep_ep.cpp:1134 'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'    ^^^^   (deepseek-ai/DeepEP#392)
#   csrc/kernels/exception.cuh EPException: "Failed: " + name + " error " + file + ":" + std::to_string(line) + " '" + error + "'"
_HOST_ASSERT = re.compile(r"\bFailed: Assertion error (?P<path>[^\s':]{1,400}):(?P<line>\d{1,7}) '(?P<cond>[^\n]{1,1000})")
# Assertion failed: /build/DeepEP/csrc/kernels/internode_ll.cu:315, condition: num_recv_tokens <= num_max_dispatch_tokens_per_rank   (format filled)
#   csrc/kernels/exception.cuh EP_DEVICE_ASSERT: printf("Assertion failed: %s:%d, condition: %s\n", __FILE__, __LINE__, #cond)
#   (DeepGEMM's old DG_HOST_ASSERT prints the same words: only a path naming DeepEP is read)
_DEVICE_ASSERT = re.compile(r"\bAssertion failed: (?P<path>[^\s,:]{1,800}):(?P<line>\d{1,7}), condition: (?P<cond>[^\n]{1,1000})")
_DEEPEP_PATH = re.compile(r"deep_?ep", re.I)


def _device_assert(line: str) -> re.Match | None:
    m = _DEVICE_ASSERT.search(line)
    return m if m is not None and _DEEPEP_PATH.search(m["path"]) else None

_LITERALS = ("DeepEP ", "Failed: Assertion error ", "Assertion failed: ")
_FORMS = (_INTERNODE, _FOR, _CHECK, _CPU)
_ASSERTS = (_HOST_ASSERT, _DEVICE_ASSERT)


def detect(text: str) -> bool:
    if "DeepEP " in text and any(form.search(text) for form in _FORMS):
        return True
    return ("Failed: Assertion error " in text and _HOST_ASSERT.search(text) is not None) or (
        "Assertion failed: " in text and any(_DEEPEP_PATH.search(m["path"]) for m in _DEVICE_ASSERT.finditer(text)))


def _condition(cond: str, host: bool) -> str:
    """A host check's condition ends at its closing quote (what follows is the terminal's or Python's: carets, a
    traceback's tail); a line cut before that quote keeps what it has."""
    if host and "'" in cond:
        cond = cond[:cond.rfind("'")]
    return cond.strip()


def _int(value: str | None) -> int | None:
    return int(value) if value is not None else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_LITERALS, artefact):
        if (m := _INTERNODE.search(line)) is not None:
            peer = _PEER.search(line, m.end())
            role = m["role"] + (f" ({m['check']})" if m["check"] else "")
            fb.add(DeepepTimeout, n, path="internode", op=m["op"] or "dispatch", role=role, side="gpu",
                   channel=int(m["channel"]), peer=_int(peer["peer"]) if peer else None)
        elif (m := _FOR.search(line)) is not None:
            if m["barrier"]:
                path, op, role = "low_latency", "barrier", "barrier"
            else:
                path = "low_latency" if m["role"] == "receive" else "intranode"
                op, role = m["op"], m["role"]
            fb.add(DeepepTimeout, n, path=path, op=op, role=role, side="gpu", rank=int(m["rank"]),
                   channel=_int(m["channel"]), peer=_int(m["src"] or m["dst"]))
        elif (m := _CHECK.search(line)) is not None:
            fb.add(DeepepTimeout, n, path="intranode", op="barrier", role="barrier", side="gpu",
                   rank=int(m["rank"] or m["rank_old"]))
        elif (m := _CPU.search(line)) is not None:
            fb.add(DeepepTimeout, n, path="intranode" if m["recv"] else "internode", op="notify",
                   role="CPU recv" if m["recv"] else "dispatch CPU", side="cpu")
        elif (m := _HOST_ASSERT.search(line) or _device_assert(line)) is not None:
            host = m.re == _HOST_ASSERT  # (==, not is: m.re is the compiled pattern, facts/lazy_re.py)
            condition = _condition(m["cond"], host)
            if not condition:
                continue
            fb.add(DeepepAssertionFailed, n, side="host" if host else "device", source=m["path"],
                   source_line=int(m["line"]), condition=condition)
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py): one RE2 set over the whole text
SIGNATURES = tuple(form.pattern for form in _FORMS + _ASSERTS)

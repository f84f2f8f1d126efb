"""A program's own report of a failed libibverbs call in the C library's perror(3) form: the call's
name, ": ", then strerror(errno) (glibc ``"%s: %s\\n"``), which RDMA programs print for the verbs call
that failed (``perror("ibv_modify_qp")``), often behind their own prefix. Looked for anywhere in a
file: it is printed on the program's stderr, inside its own log lines.

Sample line (real, madsys-dev/smart#2, an RDMA key-value store's RC connection set-up on RoCE,
whose INIT -> RTR transition gave no GRH: ``ah_attr.is_global = 0``)::

    Error message: smart/smart/resource_manager.cpp:623: enable_queue_pair(): ibv_modify_qp: Invalid argument,

A queue pair the program could not create, in its own words and then strerror(errno), is read as
a failed ``ibv_create_qp`` (the device's provider refused the QP: with "Operation not supported" it
does not offer the type asked for, an RC QP on AWS EFA, which offers SRD and UD only). Samples
(real, meta-pytorch/torchforge#626 and kvcache-ai/Mooncake#2070, both on AWS EFA)::

    failed to create extended queue pair (QP): Operation not supported
    could not create loopback QP for device rdmap16s27:
    failed to create queue pair (QP): Operation not supported (os error 95)
    E0509 rdma_endpoint.cpp:76] Failed to create QP: Operation not supported [95]

Their formats: Monarch's rdmaxcel.c ``create_qp`` (``perror("failed to create queue pair (QP)")``
after ibv_create_qp, ``perror("failed to create extended queue pair (QP)")`` after
mlx5dv_create_qp, both an IBV_QPT_RC) and its Rust wrapper (``anyhow!("failed to create queue pair
(QP): {}", Error::last_os_error())``, Rust's io::Error printing ``<strerror> (os error <n>)``, inside
``"could not create loopback QP for device {}: {}"``, whose chain a log may break after the colon);
Mooncake's rdma_endpoint.cpp ``RdmaEndPoint::construct`` (ibv_create_qp of an IBV_QPT_RC, then
``PLOG(ERROR) << "Failed to create QP"``: glog's PLOG appends ``": " << strerror << " [" << errno
<< "]"``). The device is the one the line, or the line it continues, names.

A buffer the program could not register with the NIC, in its words, then strerror(errno), is read as
a failed ``ibv_reg_mr`` (the registration ibv_reg_mr or ibv_reg_dmabuf_mr refused). Samples (real,
sgl-project/sglang#6894 and kvcache-ai/Mooncake#454: Mooncake's rdma_context.cpp
``registerMemoryRegion``, ``PLOG(ERROR) << "Failed to register memory " << addr``)::

    E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: Invalid argument [22]
    E0605 17:54:16.878770 178707 rdma_context.cpp:198] Failed to register memory 0x7f56e6600000: Numerical result out of range [34]"

A program that prints the number a posting call returned (``ibv_post_send``, ``ibv_post_recv`` return an
errno value, not -1) in its own words, "<call> failed with error[ code][:] <n>", is read as that call failing
with that errno. Samples (real, ydb-platform/nbs#2690: NBS's block-store RDMA log, whose own strerror text
after the number came out garbled; and the form RDMA examples print, ``fprintf(stderr, "ibv_post_send
failed with error: %d\n", rc)``, ``"... failed with error code:%d,reason=%s"``)::

    2024-11-25T22:44:39.878920Z :BLOCKSTORE_RDMA ERROR: [1245282948318403695] ibv_post_recv failed with error 12: 0...

NCCL's ``Call to ibv_modify_qp failed with error Invalid argument`` (a strerror text, not a number) stays nccl_log's.

Only the bare ``<call>: <strerror>`` form is this reader's among the other forms: UCX's ``ibv_create_cq(cqe=4096) failed:
...`` and ``mlx5_0: ibv_create_cq() failed: ...`` (ucx_log), NCCL's ``Call to ibv_modify_qp failed
with error Invalid argument`` (nccl_log) and perftest's own messages (perftest) are their readers'.
The text after ": " must be a strerror() text of this C library (``os.strerror``), so a call's name
followed by other words (a help text, a log about the call) is not one.

Facts: ``verbs_call_failed`` once per call and error a file (every QP, every buffer, every retry prints one): the
call and the strerror text, the errno and the device where the line gives them. Empty input, or no
such line: nothing.
"""
from __future__ import annotations

import errno as _errno
import os
import re

from stethoscope.facts.kinds.network import VerbsCallFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "verbs_perror"

# enable_queue_pair(): ibv_modify_qp: Invalid argument,        (madsys-dev/smart#2; a trailing comma or period is the program's)
_LINE = re.compile(r"(?<![\w.>-])(?P<call>ibv_[a-z][a-z0-9_]{1,40}): (?P<err>[A-Z][A-Za-z' /-]{2,60}?)[,.;]?\s*$", re.M)
# failed to create extended queue pair (QP): Operation not supported                   (torchforge#626: Monarch's rdmaxcel.c perror)
# failed to create queue pair (QP): Operation not supported (os error 95)               (torchforge#626: Monarch's Rust io::Error)
# E0509 rdma_endpoint.cpp:76] Failed to create QP: Operation not supported [95]         (Mooncake#2070: glog's PLOG)
# On AWS EC2 p4de (Single Node): "failed to create extended queue pair (QP): Operation not supported"   (torchforge#626's title: quoted)
_QP = re.compile(r"(?i:\bfailed to create) (?:extended )?(?:queue pair \(QP\)|QP): (?P<err>[A-Z][A-Za-z' /-]{2,60}?)"
                 r"(?: \[(?P<errno>\d{1,4})\]| \(os error (?P<os>\d{1,4})\))?[,.;]?[\"'`]?\s*$", re.M)
# E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: Invalid argument [22]   (sglang#6894: Mooncake's PLOG)
# E0326 14:23:05.675921 18944 rdma_context.cpp:265] Failed to register memory 0x7f105035d000: Input/output error [5]`...   (Mooncake#1754, in backticks)
# (not: Mooncake's "RdmaTransport: Failed to register memory: addr 0x7f4cfa000000 length 4885774336", whose words follow the colon)
_MR = re.compile(r"(?i:\bfailed to register memory)(?: (?:region )?(?:0x[0-9a-fA-F]{1,16}|\(nil\)))?: (?P<err>[A-Z][A-Za-z' /-]{2,60}?)"
                 r"(?: \[(?P<errno>\d{1,4})\]| \(os error (?P<os>\d{1,4})\))?[,.;]?[\"'`]?(?:\.\.\.)?\s*$", re.M)
# could not create loopback QP for device rdmap16s27: failed to create queue pair (QP): ...   (Monarch, on one line or broken after the colon)
_QP_DEVICE = re.compile(r"\bQP for device (?P<dev>[A-Za-z][\w.-]{0,63}):\s*$")
# 2024-11-25T22:44:39.878920Z :BLOCKSTORE_RDMA ERROR: [1245282948318403695] ibv_post_recv failed with error 12: 0...   (ydb-platform/nbs#2690)
# ibv_post_send failed with error code:12,reason=Cannot allocate memory        (an RDMA example's fprintf of the returned value)
_RETURNED = re.compile(r"(?<![\w.>-])(?P<call>ibv_[a-z][a-z0-9_]{1,40})(?:\(\))? failed with error(?: code)?:? ?(?P<num>-?\d{1,4})\b")
#: the C library's strerror texts ("Invalid argument", "Bad address", "Cannot allocate memory", ...)
_STRERRORS = frozenset(os.strerror(n) for n in sorted(set(_errno.errorcode)))


def detect(head: str) -> bool:
    return (("ibv_" in head and any(m["err"] in _STRERRORS for m in _LINE.finditer(head)))
            or ("QP" in head and any(m["err"] in _STRERRORS for m in _QP.finditer(head)))
            or ("register memory" in head and any(m["err"] in _STRERRORS for m in _MR.finditer(head)))
            or ("failed with error" in head and any(_returned(head, m) is not None for m in _RETURNED.finditer(head))))


def _returned(text: str, m: re.Match[str]) -> tuple[str, int | None] | None:
    """(strerror text, errno) of a "<call> failed with error <n>" match; None where the words are NCCL's
    ("Call to <call> failed with error ..." is nccl_log's, whatever follows) or the number no errno."""
    if text.endswith("Call to ", 0, m.start()):
        return None
    n = int(m["num"])
    if n == -1:  # a call that returns -1 and sets errno: the number says nothing more
        return "returned -1", None
    n = abs(n)  # some programs print the negated errno
    if n not in _errno.errorcode:
        return None
    return os.strerror(n), n


def _qp_device(artefact: Artefact, n: int, m: re.Match[str]) -> tuple[str | None, bool]:
    """The device a QP failure names: on its own line before it, or at the end of the line before
    (a chain broken after its colon). Returns (device, whether it came from the line before)."""
    text = artefact.text
    start = text.rfind("\n", 0, m.start()) + 1
    if (d := _QP_DEVICE.search(text, start, m.start())) is not None:
        return d["dev"], False
    if n > 1 and (d := _QP_DEVICE.search(artefact.lines[n - 2])) is not None:
        return d["dev"], True
    return None, False


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[str, str]] = set()
    for n, m in iter_matches(_LINE, artefact):
        if m["err"] not in _STRERRORS:
            continue
        result.lines_used += 1
        if (m["call"], m["err"]) not in seen:
            seen.add((m["call"], m["err"]))
            fb.add(VerbsCallFailed, n, call=m["call"], error=m["err"])
    _registrations(artefact, fb, result, seen)
    _returned_numbers(artefact, fb, result, seen)
    if "QP" not in artefact.text:
        return result
    found: dict[str, dict] = {}  # one fact per error: the first line, the device and errno any of its lines gives
    for n, m in iter_matches(_QP, artefact):
        if m["err"] not in _STRERRORS:
            continue
        device, before = _qp_device(artefact, n, m)
        result.lines_used += 1 + before
        num = m["errno"] or m["os"]
        f = found.setdefault(m["err"], {"line": n, "device": None, "errno": None})
        f["device"] = f["device"] or device
        f["errno"] = f["errno"] if f["errno"] is not None else (int(num) if num else None)
    for err, f in found.items():
        if ("ibv_create_qp", err) not in seen:
            seen.add(("ibv_create_qp", err))
            fb.add(VerbsCallFailed, f["line"], call="ibv_create_qp", error=err, errno=f["errno"], device=f["device"])
    return result


def _registrations(artefact: Artefact, fb: FactBuilder, result: ParseResult, seen: set[tuple[str, str]]) -> None:
    """A buffer the NIC would not register, in the program's words: one ``ibv_reg_mr`` fact per error
    (every buffer of a failing device prints one)."""
    if "egister memory" not in artefact.text:
        return
    for n, m in iter_matches(_MR, artefact):
        if m["err"] not in _STRERRORS:
            continue
        result.lines_used += 1
        if ("ibv_reg_mr", m["err"]) not in seen:
            seen.add(("ibv_reg_mr", m["err"]))
            num = m["errno"] or m["os"]
            fb.add(VerbsCallFailed, n, call="ibv_reg_mr", error=m["err"], errno=int(num) if num else None)


def _returned_numbers(artefact: Artefact, fb: FactBuilder, result: ParseResult, seen: set[tuple[str, str]]) -> None:
    """A call's failure as the number it returned ("ibv_post_recv failed with error 12"): one fact per call and
    error a file (every posted request of a full queue prints one)."""
    if "failed with error" not in artefact.text:
        return
    for n, m in iter_matches(_RETURNED, artefact):
        got = _returned(artefact.text, m)
        if got is None:
            continue
        result.lines_used += 1
        err, num = got
        if (m["call"], err) not in seen:
            seen.add((m["call"], err))
            fb.add(VerbsCallFailed, n, call=m["call"], error=err, errno=num)


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)\bibv_[a-z][a-z0-9_]{1,40}: [A-Z][A-Za-z' /-]{2,60}[,.;]?\s*$",
              r"(?m)(?i:\bfailed to create) (?:extended )?(?:queue pair \(QP\)|QP): [A-Z][A-Za-z' /-]{2,60}"
              r"(?: \[\d{1,4}\]| \(os error \d{1,4}\))?[,.;]?[\"'`]?\s*$",
              r"(?m)(?i:\bfailed to register memory)(?: (?:region )?(?:0x[0-9a-fA-F]{1,16}|\(nil\)))?: [A-Z][A-Za-z' /-]{2,60}"
              r"(?: \[\d{1,4}\]| \(os error \d{1,4}\))?[,.;]?[\"'`]?(?:\.\.\.)?\s*$",
              r"\bibv_[a-z][a-z0-9_]{1,40}(?:\(\))? failed with error(?: code)?:? ?-?\d{1,4}\b")

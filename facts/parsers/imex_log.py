"""NVIDIA IMEX daemon (``nvidia-imex``) log: the memory-export service of a multi-node NVLink domain.

On GB200/GB300 NVL72 racks and other multi-node NVLink systems ``nvidia-imex`` runs on every node
of an IMEX domain (on the host, or in the ComputeDomain daemon pods of the Kubernetes DRA driver)
and lets CUDA import fabric memory (``CU_MEM_HANDLE_TYPE_FABRIC``) exported by GPUs on other nodes.
It writes ``/var/log/nvidia-imex.log`` (or stderr in the DRA driver's pods: ``kubectl logs -l
resource.nvidia.com/computeDomain``) in the same framing as fabric manager's log; people also paste
its lines with the time and thread cut off. Sample content (NVIDIA cloud-native-docs
gpu-operator/dra-driver.rst "View IMEX channel creation logs"; the bare lines as quoted in
kubernetes-sigs/dra-driver-nvidia-gpu#948 from a GB200/GB300 compute-domain-daemon)::

    IMEX Log initializing at: 3/3/2025 17:26:19.102
    [Mar 03 2025 17:26:19] [INFO] [tid 38] IMEX version 570.00 is running with the following configuration options
    [Mar 03 2025 17:26:19] [INFO] [tid 38] Logging file name/path = /var/log/nvidia-imex.log
    [ERROR] Failed to get new memory reference with rc: 87
    [ERROR] Received import response from node id 0 with failure status 3

Fact: ``imex_error`` for each ``[ERROR]`` or ``[FATAL]`` line: its level, message, the peer
``node id N`` it names, a ``category`` from the message (``memory_export_import``,
``peer_connection``, ``config``, ``other``) and the time where the line has one. ``[INFO]``,
``[WARNING]`` and ``[DEBUG]`` lines and the ``IMEX Log initializing`` banner are counted as read.
A level line without a message is a ParseError.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import ImexError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "imex_log"

# [Mar 03 2025 17:26:19] [INFO] [tid 38] IMEX version 570.00 is running with the following configuration options
# [Aug 8 2025 14:23:12] [INFO] [tid 39] Logging level = 4
# [ERROR] Failed to get new memory reference with rc: 87                      (time and thread cut off when quoted)
# [INFO] IMEX version 570.133.20 is running with configuration options
_LINE = re.compile(r"^(?:\[(?P<ts>[A-Z][a-z]{2} +\d{1,2} \d{4} [\d:]+)\] )?\[(?P<level>ERROR|FATAL|WARNING|WARN|INFO|DEBUG)\]"
                   r"(?: (?:\[tid \d+\] ?)?(?P<msg>.*))?$")
# IMEX Log initializing at: 3/3/2025 17:26:19.102
_BANNER = re.compile(r"IMEX Log initializing at: ")
# ... IMEX version 570.124.06 is running with the following configuration options
_VERSION = re.compile(r"\bIMEX version \d[\w.]* is running\b")
# what marks a file of level lines as IMEX's: its banner, its version line, its own name, or the
# peers it names the way IMEX does ("from node id 0", "to node 1 with IP 10.0.0.2", "node config")
_IMEX_WORDS = re.compile(r"IMEX Log initializing at|\bIMEX version \d|nvidia-imex|\bnode id \d+|\bnode config(?:uration)? file\b"
                         r"|\bIMEX (?:channel|daemon|domain|session)", re.I)
_LINE_ANY = re.compile(_LINE.pattern, re.M)
# Received import response from node id 0 with failure status 3   |   Connection established to node 0 with IP ...
_PEER = re.compile(r"\bnode (?:id )?(?P<node>\d+)\b")

#: lowercased message fragments -> category of an IMEX error (first match wins)
CATEGORIES: tuple[tuple[str, str], ...] = (
    ("memory reference", "memory_export_import"), ("export", "memory_export_import"), ("import", "memory_export_import"),
    ("disconnect", "peer_connection"), ("connect", "peer_connection"), ("unreachable", "peer_connection"),
    ("timed out", "peer_connection"), ("timeout", "peer_connection"),
    ("network interface", "config"), ("config", "config"), ("ip address", "config"),
)


#: literals of _IMEX_WORDS's branches as they are written: a cheap first test
_LITERALS = ("IMEX", "imex", "node id ", "node config")


def detect(head: str) -> bool:
    if "[" not in head or not any(lit in head for lit in _LITERALS) or _IMEX_WORDS.search(head) is None:
        return False
    return _BANNER.search(head) is not None or _LINE_ANY.search(head) is not None


def _category(msg: str) -> str:
    low = msg.lower()
    return next((c for frag, c in CATEGORIES if frag in low), "other")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        text = line.strip()
        if _BANNER.search(text):
            result.lines_used += 1
            continue
        if (m := _LINE.match(text)) is None:
            continue
        msg = (m["msg"] or "").strip()
        if not msg:
            b.error(n, "IMEX log line without a message")
            continue
        result.lines_used += 1
        if m["level"] in ("ERROR", "FATAL"):
            peer = _PEER.search(msg)
            b.add(ImexError, n, level=m["level"], category=_category(msg), message=msg,
                  peer_node=int(peer["node"]) if peer else None, timestamp=m["ts"])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_BANNER, _LINE_ANY)

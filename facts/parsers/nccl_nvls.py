"""NCCL's NVLink SHARP (NVLS) lines in an ``NCCL_DEBUG=INFO`` log: whether the GPU offers
multicast, how many NVLS channels the communicator set up, and the NVLS set-up steps that
were logged (``NCCL_DEBUG_SUBSYS=NVLS`` or ``ALL`` prints them).

Sample content (real: nccl#1706, nccl-tests#128, nccl-tests#216, nccl#1788)::

    deepseek:2081594:2081601 [1] NCCL INFO 4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer
    SH-IDC1-10-142-6-130:75327:75381 [2] NCCL INFO 2 coll channels, 2 p2p channels, 2 p2p channels per peer
    c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824
    NVLS multicast support is available on dev 3

The strings, from src/transport/nvls.cc and src/init.cc of github.com/NVIDIA/nccl:
``NVLS multicast support is %savailable on dev %d`` (2.17.1 on; 2.27 adds `` (NVLS_NCHANNELS
%d)``), printed only when NVLS is enabled and the node has enough GPUs (see
knowledge/nvls.yaml); ``%d coll channels, [%d collnet channels, ][%d nvls channels, ]%d p2p
channels, %d p2p channels per peer`` (nvls from 2.17, collnet from 2.21); the NCCL_NVLS
messages ``NVLS Bind mem``, ``NVLS Creat(ed|ing) Multicast group``, ``NVLS Mapped``, ``NVLS
group ... adding dev``, ``NVLS importing shareableHandle``, ``NVLS rank N (dev N) alloc
done``, ``NVLS comm``, ``NVLS Trees``, ``Connected NVLS tree``.

Facts: ``nccl_nvls_support`` (multicast available or not), ``nccl_channel_counts``,
``nccl_nvls_setup`` (the first line of each set-up step per process). Each is kept once per
(node, process, values) at its first line: every rank of every communicator prints its own.
``lines_used`` is 0: the nccl_log parser counts NCCL-prefixed lines of the same file.

Empty input, or a log without these lines: no facts (NCCL older than 2.17, NVLS disabled,
too few GPUs, or ``NCCL_DEBUG`` below INFO).
"""
from __future__ import annotations

import re

import re2

from stethoscope.facts import classify
from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclChannelCounts, NcclNvlsSetup, NcclNvlsSupport, NcclNvlsUse,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, lines_with
from stethoscope.facts.parsers import nccl_log_scan
from stethoscope.facts.parsers.nccl_log import line_counter

KIND = "nccl_nvls"

__all__ = ["KIND", "detect", "parse", "NcclNvlsSupport", "NcclChannelCounts", "NcclNvlsSetup"]

# the messages this parser reads, each with its real form:
# NVLS multicast support is available on dev 3                                            (nccl#1788)
# deepseek:2081594:2081600 [0] NCCL INFO 4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer
# c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824
# [1,3]<stdout>:test-nccl-efa-worker-0:23:75 [3] NCCL INFO Connected NVLS tree
_MESSAGES = (r"NVLS multicast support is (?:not )?available on dev -?\d+|\d+ coll channels, (?:\d+ \w+ channels, )*\d+ p2p channels per peer"
             r"|NVLS (?:Bind mem|Creat(?:ed|ing) Multicast group|Mapped |group \S+ adding dev|importing shareableHandle"
             r"|rank \d+ \(dev \d+\) alloc done|comm 0x[0-9a-f]+ headRank|Trees :)|Connected NVLS tree")
_DETECT = re.compile(r"(?:NCCL INFO |^)(?:" + _MESSAGES + ")", re.M)
# candidates: the lines holding one of these literals ("NVLS", "Connected NVLS", "<n> coll
# channels"); each is found by a plain substring search (an alternation such as "NVLS |\d coll"
# makes the regex engine try every position: 15 ms on a 170 KB log against 1 ms)
_LITERALS = (" coll channels, ", "NVLS ")  # the longer first: detect() stops at the first line
# whether each literal occurs, answered by the classifier's pass (facts/classify.py gate()): a literal it
# did not find costs parse() no search of its own (one str.find over a 175 kB log: 0.1 ms; most logs have no "NVLS ")
_LITERAL_GATES = tuple(re2.compile(re.escape(lit)) for lit in _LITERALS)
TEXT_GATES = _LITERAL_GATES
# NCCL's prefix (src/debug.cc "%s:%d:%d [%d] NCCL INFO "), whatever came before it, or the bare message
# test-nccl-efa-worker-0:23:75 [3] NCCL INFO Connected NVLS tree
_LINE = re.compile(
    r"^(?:.*?(?<![\w.\-])(?P<host>[\w.\-]+):(?P<pid>\d+):\d+ \[(?P<dev>-?\d+)\] (?:\S+:\d+ )?NCCL INFO |(?:.*?NCCL INFO )?)"
    r"(?P<msg>(?:" + _MESSAGES + r").*?)\s*$"
)
# NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)           (2.27 on)
_SUPPORT = re.compile(r"^NVLS multicast support is (?P<not>not )?available on dev (?P<dev>-?\d+)(?: \(NVLS_NCHANNELS (?P<nch>\d+)\))?")
# 4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer
# 2 coll channels, 2 p2p channels, 2 p2p channels per peer                    (before 2.17, nccl-tests#128)
_COUNTS = re.compile(
    r"^(?P<coll>\d+) coll channels, (?:(?P<collnet>\d+) collnet channels, )?(?:(?P<nvls>\d+) nvls channels, )?"
    r"(?P<p2p>\d+) p2p channels, (?P<peer>\d+) p2p channels per peer"
)
# the set-up step: the words that name it
_STEP = re.compile(r"^(?:NVLS (?P<step>Bind mem|Creat(?:ed|ing) Multicast group|Mapped|importing shareableHandle|Trees|comm)"
                   r"|NVLS (?P<group>group) |NVLS rank \d+ \(dev \d+\) (?P<alloc>alloc done)|(?P<tree>Connected NVLS tree))")


def detect(head: str) -> bool:
    """One line holding a literal of _LITERALS that _LINE reads: each literal's lines in turn, the
    search stopped at the first such line (lines_with finds every line of every literal first)."""
    find, rfind = head.find, head.rfind
    for lit in _LITERALS:
        pos = find(lit)
        while pos != -1:
            end = find("\n", pos)
            end = len(head) if end == -1 else end
            if _LINE.match(head[rfind("\n", 0, pos) + 1:end]):  # the line alone: _LINE starts with "^" and a look-behind
                return True
            pos = find(lit, end + 1)
    return False


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple] = set()
    text = artefact.text
    line_of = line_counter(text)  # the artefact's own counter left for the next reader (see line_counter)
    literals = tuple(lit for lit, g in zip(_LITERALS, _LITERAL_GATES) if classify.gate(text, g) is not False)
    # a log NCCL wrote alone: its lines routed by nccl_log's pass (every line _LINE reads lies in its runs)
    regions = nccl_log_scan.routed_regions(artefact) if literals else None
    if regions is not None:  # (its lines' numbers counted from their run's start)
        line_of = nccl_log_scan.routed_lines(artefact) or line_of
    for start, line in (lines_with(text, literals) if regions is None else nccl_log_scan.lines_in(text, regions, literals)):
        m = _LINE.match(line)
        if m is None:
            continue
        msg = m["msg"]
        pid = int(m["pid"]) if m["pid"] else None
        node = artefact.node_for(m["host"]) if m["host"] else artefact.node
        dev = int(m["dev"]) if m["dev"] else None
        if s := _SUPPORT.match(msg):
            fields = dict(available=not s["not"], nvls_channels=int(s["nch"]) if s["nch"] else None)
            cls = NcclNvlsSupport
            dev = int(s["dev"]) if dev is None else dev
        elif c := _COUNTS.match(msg):
            fields = dict(coll=int(c["coll"]), collnet=_int(c["collnet"]), nvls=_int(c["nvls"]), p2p=int(c["p2p"]),
                          p2p_per_peer=int(c["peer"]))
            cls = NcclChannelCounts
        elif st := _STEP.match(msg):
            name = st["step"] or st["group"] or st["alloc"] or "tree_connected"
            fields = dict(step=re.sub(r"\W+", "_", name.lower()).strip("_"))
            cls = NcclNvlsSetup
        else:
            fb.error(line_of(start), f"NVLS or channel line not read: {msg!r}")
            continue
        key = (cls, node, pid, *fields.values())
        if key in seen:
            continue  # (its line not counted: every rank prints the line, the first one is cited)
        seen.add(key)
        # the line quoted as Artefact.lines gives it: the builder would split the whole text for it
        fb.add(cls, line_of(start), node=node, text=line[:-1] if line[-1:] == "\r" else line, pid=pid, local_device=dev,
               **fields)
    result.lines_used = 0  # see the module docstring: nccl_log counts these lines
    return result


def _int(raw: str | None) -> int | None:
    return int(raw) if raw is not None else None


#: the line signatures this reader owns (facts/classify.py)
SIGNATURES = (_DETECT,)

"""Which lines of an NCCL log :mod:`nccl_log` reads, found in whole-text scans (issue 12: a bench
node's NCCL logs hold 10,000 lines, of which a few hundred can give a fact).

The plain scan (_SCAN) yields one match per candidate line: NCCL's prefixed lines, the lines
that carry an NCCL marker elsewhere, the messages NCCL's users paste bare. The fast path (ASCII
text of _FAST_FROM characters or more) lets RE2 pick, in one pass over the bytes, the prefixed
lines that can give a fact (_WANTED_PREFIXED: a WARN, or an INFO message maybe() takes), and
counts the prefixed lines without reading them; a log NCCL wrote alone is told by one anchored
RE2 match (_ALL_PREFIXED). Where no candidate lacks the prefix, the wanted lines come as runs
(Runs: one findall a run); otherwise as match objects merged in text order with the others.
The Runs leave out NCCL's "Channel ... via" lines (most of a log's wanted lines, each giving one
channel of a pair): nccl_log finds them by substring search (CHANNEL_AT) and reads each
between the runs where it stands. Either way nccl_log reads exactly the lines, and the facts, of
the plain scan (tests/parsers/test_nccl_log_fast_path.py, test_nccl_log_golden.py). In a log NCCL
wrote alone the same RE2 pass also picks the lines of nccl_log's companions (nccl_channels' ring orders
and communicators, nccl_nvls', nccl_net_oob's), made once per text for whichever reader asks first
(shared_candidates, kept on the artefact): each companion reads only inside its runs (routed_regions),
where it made a pass over the whole text of its own (tests/parsers/test_nccl_scans.py).

Sample content::

    vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
    [2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found
"""
from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from itertools import repeat
from typing import Any, Callable

import re2

from stethoscope.facts import classify
from stethoscope.facts.parsers import nccl_warn_kinds

# NCCL's line prefix, as src/debug.cc prints it: "%s:%d:%d [%d] " (host, pid, thread, CUDA device), then in a WARN
# line (and 2.32's ATTN) "%s:%d " (the source file and line), from 2.30 on "(%s) " (the function) before the level:
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
# gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN Failed to bind ...
#: the one spelling of NCCL's prefix (what stands before "NCCL INFO", "NCCL WARN", "NCCL ATTN"): _SCAN's first branch,
#: CHANNEL_PREFIX (nccl_log's channel lines, nccl_channels' candidates: matched whole on the text before "NCCL INFO")
#: and nccl_topo_print's _PREFIX (found at the end of that text, a host's start not inside a word) are made of it
PREFIX = r"(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>-?\d+)\] (?:(?P<src>\S+):(?P<srcline>\d+) (?:\(\w+\) )?)?"
# _SCAN's and its derivatives' groups (host, pid, dev, src, srcline, level, msg: _ROWS's findall rows) without the thread's
_PREFIX_UNNAMED_TID = PREFIX.replace(r"(?P<tid>\d+)", r"\d+", 1)
assert _PREFIX_UNNAMED_TID != PREFIX

# Whole-text scan, one match per candidate line: one that holds "NCCL INFO", "NCCL WARN", "NCCL ATTN" (2.32),
# "NCCL version <digit>", NCCL <= 2.3's "<file>.cc:<line> WARN ", 2.2's "] INFO " (its INFO prefix
# "host:pid:tid [dev] INFO ", told apart by nccl_log._OLD_INFO), or one of the messages NCCL's
# users paste without any prefix (_BARE_MESSAGE). The common line starts with NCCL's full prefix
# and is split by the first branch in C; any other candidate goes through _HEADER, _BARE_VERSION
# and _BARE_MESSAGE below, exactly as a line-by-line scan would.
# vm:1552:1564 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo
# gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN Failed to bind ...   (2.30+: the function)
# NCCL 2.32's ATTN level ("noteworthy, not an error": src/debug.cc prints it as WARN, "[%d] %s:%d (%s) NCCL ATTN %s"):
# vm:1633:1640 [0] plugin/profiler.cc:140 (ncclProfilerPluginInit) NCCL ATTN Profiler init failed with error '1': Operation not permitted. Continue without profiler.   (CONSTRUCTED from the format)
_SCAN = re.compile(
    r"^(?:" + _PREFIX_UNNAMED_TID + r"NCCL (?P<level>INFO|WARN|ATTN) (?P<msg>[^\n]*)"
    r"|[^\n]*?(?:NCCL (?:INFO|WARN|ATTN|version \d)|\.(?:cc|cu|h|c|cpp):\d+ WARN |\] INFO |shared memory segment /dev/shm/nccl-"
    r"|failed to extend /dev/shm/nccl-|Got completion from peer|Mismatched collective detected|Unable to load libnccl-net"
    r"|^NCCL_[A-Z0-9_]+ set (?:by environment )?to|^[ \t]*(?:" + nccl_warn_kinds.BARE + r")|" + nccl_warn_kinds.QUOTED + r")[^\n]*)",
    re.M,
)

# An INFO message can give a fact only if maybe() says so (a superset of every test that
# NcclLogState.line and nccl_log_setup.handle make of an INFO line; connection failures, missing
# interfaces and exceeded retries count only at WARN): most INFO lines ("Connected to proxy",
# "New proxy recv connection", topology dumps, ring and tree lines) are passed over after it.
# The plugin messages line() reads all start as its _PLUGIN_* patterns do (NET/Plugin, Plugin Path,
# "<verb> NET plugin"), and the P2P ones as nccl_log_setup's _P2P_NVLINK and _P2P_ENABLE: the other
# plugins' lines ("ENV/Plugin: ...", "PROFILER/Plugin: Loaded ...", "TOPO/NET : Importing network plugins to topology")
# and "P2P Chunksize set to 131072" give nothing, but for a plugin not found (nccl_plugin_not_found where a
# variable named it: "TUNER/Plugin: Could not find: libnccl-tuner-mytuner.so"). NCCL 2.27.3-2.30.4's INFO
# "socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>" is read as the WARN it was.
# NCCL's missing verbs library is an INFO in later releases (a WARN up to 2.8 at least), read as nccl_no_ib_device:
# h100-kickoff-llama-70b-chat-20230328-bcf75c4f6-gn6nd:2340:2384 [4] NCCL INFO Failed to open libibverbs.so[.1]   (nccl#1410)
# NCCL 2.2-2.3's network choice and socket interface (2.3.7 src/init.cu INFO(INIT,"Using internal Network %s", ...) /
# "Using external Network %s"; src/include/socket.h INFO(INIT|NET,"NET : Using interface %s:%s", ...)):
# C4140-V100-1:24:201 [0] INFO Using internal Network Socket                  (horovod/horovod#288, NCCL 2.2.12)
# C4140-V100-1:24:201 [0] INFO NET : Using interface ib0:192.168.11.1<0>      (horovod/horovod#288)
# NCCL 2.22+'s "Init timings[ - <function>]: rank %d nranks %d total ..." after a communicator's init (nccl_log._INIT_TIMINGS)
# Two scans, not one alternation: the literal-only one lets the regex engine skip ahead by
# first character, which an alternation with "[\w./\-]+" cannot (2.4x faster).
_MAYBE_START = re.compile(
    r"(?:Channel|Ring) .*? via |NCCL version|Using network |NET/IB|NET/Socket|Bootstrap|[\w./\-]+:\d+ -> "
    r"|NET/Plugin|Plugin Path|(?:Initialized|Failed to initialize|Assigned) NET plugin|P2P is disabled|Could not enable P2P"
    r"|Failed to open libibverbs|(?:GIN|TUNER|PROFILER|ENV)/Plugin ?: ?Could not find:|socketFinalizeAccept: didn't receive"
    r"|Could not find real path of /sys/class/net/|Using (?:internal|external) Network |NET : Using interface "
    r"|Init timings|Invalid value |External profiler plugin "
)
_MAYBE_ANY = re.compile(
    r"GPU Direct RDMA|shared memory|posix_fallocate|failed to extend|Call to ibv|Duplicate GPU|Cuda failure"
    r"|Init START|Init COMPLETE|Destroy COMPLETE|Abort START|Abort COMPLETE|set by environment to|NCCL_\w+ set to|Got completion|, retrying"
    r"|^Unable to load lib"
)


def maybe(msg: str, start=_MAYBE_START.match, any_=_MAYBE_ANY.search) -> bool:
    return start(msg) is not None or any_(msg) is not None


#: Python's ``\S`` on ASCII text, for RE2 (whose ``\s`` lacks \v and \x1c-\x1f: its ``\S`` took a line
#: that _PREFIXED_GROUPS, in Python, then did not, and the fast path failed on it)
_NOT_SPACE = r"[^\t\n\x0b\x0c\r\x1c-\x1f ]"

# The fast path (ASCII text, the common case): which lines of NCCL's full prefix can give a
# fact is decided in one RE2 pass over the bytes (a DFA: the many alternatives cost nothing per
# line), so the INFO lines that give none ("New proxy recv connection", "Connected to proxy",
# topology dumps: about 85 % of a log) never reach Python. It accepts every WARN and ATTN line and every
# INFO line maybe() accepts (those are still checked by maybe(): a superset here is harmless).
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
_WANTED_PREFIXED = re2.compile(
    r"(?m)^[\w.\-]+:\d+:\d+ \[-?\d+\] (?:" + _NOT_SPACE + r"+:\d+ (?:\(\w+\) )?)?NCCL (?:WARN |ATTN |INFO (?:(?:"
    + _MAYBE_START.pattern + r"|Unable to load lib)|[^\n]*?(?:" + _MAYBE_ANY.pattern.replace("|^Unable to load lib", "")
    + r")))"
)
# Runs of consecutive wanted lines, one match each (RE2's Python wrapper costs ~5 us a match: a log's
# ~320 wanted lines come in ~70 runs); the lines are told apart by their newlines.
_WANTED_RUNS = re2.compile(r"(?m)^(?:" + _WANTED_PREFIXED.pattern[len("(?m)^"):] + r"[^\n]*(?:\n|\z))+")
# The same without the "Channel ... via" lines, for the Runs path: those are most of a log's wanted lines
# (~190 of ~260 in an nccl-tests log) and are found by substring search (CHANNEL_AT). Where other lines stand between
# them (a training log that interleaves its own lines with NCCL's) each was a run, an RE2 match, of its
# own: nccl_log.parse of such a 232 kB log 7.5-7.7 -> 6.9-7.1 ms; a log NCCL wrote alone reads in the
# same time either way (its RE2 pass 0.54 -> 0.35 ms and 61 -> 14 runs, what the substring search costs)
_WANTED_RUNS_BUT_CHANNELS = re2.compile(_WANTED_RUNS.pattern.replace("(?:Channel|Ring) .*? via ", "Ring .*? via ", 1))
assert _WANTED_RUNS_BUT_CHANNELS.pattern != _WANTED_RUNS.pattern
# The same pass for a log NCCL wrote alone (every line prefixed) also picks the lines nccl_log's companions read
# (issue 12: one compiled scan routes a log's lines to its readers, where each made its own pass over the text:
# nccl_channels' regex scan and literal searches 0.16 ms, nccl_nvls' two literal searches 0.12 ms, nccl_net_oob's
# 0.01 ms of a bench node's 175 kB log): an INFO line holding, after its prefix or after a "NCCL INFO " in its
# message, what their scans look for (each reads a superset of its candidate lines as it reads the whole text:
# routed_regions). nccl_log passes these lines over where maybe() refuses them (_read_runs), as the pass without
# them never gave them (on ASCII text it takes exactly the lines maybe() takes, but for trailing blanks).
# vm:1428:1439 [0] NCCL INFO Channel 00/24 : 0 1                                       (nccl_channels: a ring order)
# vm:1428:1439 [0] NCCL INFO comm 0x55e484784590 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0   (its communicator)
# deepseek:2081594:2081600 [0] NCCL INFO 4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer
# c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824
# [1,3]<stdout>:test-nccl-efa-worker-0:23:75 [3] NCCL INFO Connected NVLS tree                 (nccl_nvls)
# vm:1708:1708 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>                         (nccl_net_oob)
_COMPANION_MESSAGES = (r"(?:[^\n]*?NCCL INFO )?(?:Channel \d+/\d+ :[\t\r\x0b\x0c\x1c-\x1f \d-]*$|(?:\w+ )?comm 0x"
                       r"|NVLS |\d+ coll channels, |Connected NVLS tree|NET/(?:IB|Socket))")
_WANTED_RUNS_ROUTED = re2.compile(_WANTED_RUNS_BUT_CHANNELS.pattern.replace(
    "NCCL (?:WARN |ATTN |INFO (?:", "NCCL (?:WARN |ATTN |INFO (?:" + _COMPANION_MESSAGES + "|", 1))
assert _WANTED_RUNS_ROUTED.pattern != _WANTED_RUNS_BUT_CHANNELS.pattern
#: what a message of the routed pass starts with, or holds, where only a companion may want it (nccl_log's
#: _read_runs asks maybe() of these alone): every message _COMPANION_MESSAGES takes is one of them
#: maybe()'s answer for such a message (a fleet's nodes print the same ring orders and channel counts: asked once a
#: process; a message longer than _KEPT_CHARS is asked each time, not kept as a key)
_COMPANION_MAYBE: dict[str, bool] = {}
_COMPANION_MAYBE_MAX, _KEPT_CHARS = 8192, 512


def companion_maybe(msg: str) -> bool:
    """maybe() of a routed run's message that only a companion may want (kept per message)."""
    got = _COMPANION_MAYBE.get(msg)
    if got is None:
        got = maybe(msg)
        if len(msg) <= _KEPT_CHARS:
            if len(_COMPANION_MAYBE) >= _COMPANION_MAYBE_MAX:
                _COMPANION_MAYBE.clear()
            _COMPANION_MAYBE[msg] = got
    return got


COMPANION_STARTS = ("Channel ", "comm 0x", "NVLS ", "Connected NVLS tree", "NET/", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")
# The lines that start with NCCL's full prefix (counted as used, whether they give a fact or not).
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
_PREFIXED_LINE = re.compile(r"^[\w.\-]+:\d+:\d+ \[-?\d+\] (?:\S+:\d+ (?:\(\w+\) )?)?NCCL (?:INFO|WARN|ATTN) ", re.M)
# Every other candidate line: one without NCCL's full prefix at its start that holds an NCCL
# marker (_SCAN's second branch); such lines go through _HEADER and the bare forms as before.
# [2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found
# C4140-V100-1:24:201 [0] INFO Using internal Network Socket        (NCCL 2.2's INFO: "] INFO "; horovod/horovod#288)
_MARKERS = (r"(?:NCCL (?:INFO|WARN|ATTN|version \d)|\.(?:cc|cu|h|c|cpp):\d+ WARN |\] INFO |shared memory segment /dev/shm/nccl-"
            r"|failed to extend /dev/shm/nccl-|Got completion from peer|Mismatched collective detected|Unable to load libnccl-net"
            r"|^NCCL_[A-Z0-9_]+ set (?:by environment )?to|^[ \t]*(?:" + nccl_warn_kinds.BARE + r")|" + nccl_warn_kinds.QUOTED + r")")
_OTHER = re.compile(
    r"^(?![\w.\-]+:\d+:\d+ \[-?\d+\] (?:\S+:\d+ (?:\(\w+\) )?)?NCCL (?:INFO|WARN|ATTN) )"
    r"[^\n]*?" + _MARKERS + r"[^\n]*",
    re.M,
)
# Runs of consecutive lines that start with NCCL's full prefix, in RE2 over the bytes (most of a log:
# a few runs; its newlines count the lines): _PREFIXED_LINE's lines, half the cost of findall
_PREFIXED_RUNS = re2.compile(
    r"(?m)^(?:[\w.\-]+:\d+:\d+ \[-?\d+\] (?:" + _NOT_SPACE + r"+:\d+ (?:\(\w+\) )?)?NCCL (?:INFO|WARN|ATTN) [^\n]*(?:\n|\z))+")
# The same when the whole text is one such run (fullmatch)
_ALL_PREFIXED = re2.compile(_PREFIXED_RUNS.pattern[len("(?m)^"):])
# and as a pattern of the whole text, a member of the classifier's set (facts/classify.py gate()): the
# classifier's pass over a log NCCL wrote alone answers it, with no pass of its own (0.3 ms of a 175 kB log)
ALL_PREFIXED_TEXT = re2.compile(r"\A" + _ALL_PREFIXED.pattern + r"\z")
# The lines that start with NCCL's full prefix, counted from the newline before each (a literal
# the scan skips to; "^" under re.M is tried at every character): run on "\n" + text.
_PREFIXED_AFTER_NL = re.compile(r"\n" + _PREFIXED_LINE.pattern[1:])
# Markers that, found anywhere, make _OTHER's scan needed (see _no_other): one RE2 pass over the
# bytes tells whether any occurs (21 "in" tests over the text cost 5x more); a member of the
# classifier's set too (nccl_log.TEXT_GATES): its pass over the file answers it
_OTHER_LITERALS = ("shared memory segment /dev/shm/nccl-", "failed to extend /dev/shm/nccl-", "Got completion from peer",
                   "Mismatched collective detected", "Unable to load libnccl-net", "\nNCCL_")
# and NCCL 2.2's INFO prefix without "NCCL" at a line's start (nccl_log._OLD_INFO; _MARKERS holds its "] INFO " only):
# C4140-V100-1:24:201 [0] INFO Using internal Network Socket                  (horovod/horovod#288, NCCL 2.2.12)
ANY_OTHER_LITERAL = re2.compile(
    r"(?m)^NCCL_|^[\w.\-]+:\d+:\d+ \[-?\d+\] INFO |"
    + "|".join(re.escape(lit) for lit in (*_OTHER_LITERALS[:-1], *nccl_warn_kinds.BARE_GATES)))


_FAST_FROM = 4096  # characters: below, one _SCAN pass costs less than the RE2 passes (a 6 KB train log: 5% more)


def _no_other(text: str, prefixed: int, data: bytes | None = None, marked: int | None = None) -> bool:
    """Whether _OTHER can match no line, told by substring counts (C speed): every marker of
    _MARKERS lies in a line that starts with NCCL's full prefix. Each such line holds "NCCL INFO"
    or "NCCL WARN" (or 2.32's "NCCL ATTN"); as many of those as prefixed lines means none elsewhere; every "NCCL version"
    right after "NCCL INFO ", every " WARN " inside "NCCL WARN " (no "x.cc:12 WARN "), and none of
    the other markers (nor a literal of the WARNs read bare: nccl_warn_kinds.BARE_GATES), nor a line
    starting "NCCL_". ``marked``: the count of "NCCL INFO", "NCCL WARN" and "NCCL ATTN", where the caller has it."""
    count = text.count
    return ((count("NCCL INFO") + count("NCCL WARN") + count("NCCL ATTN") if marked is None else marked) == prefixed
            and count("NCCL version") == count("NCCL INFO NCCL version")
            and count(" WARN ") == count("NCCL WARN ")
            and not _any_other_literal(text, data))


def _any_other_literal(text: str, data: bytes | None) -> bool:
    """Whether ANY_OTHER_LITERAL occurs: the classifier's pass answers it (a TEXT_GATES member of
    nccl_log) for the text it scanned last, else one RE2 pass (0.38 ms over a 175 kB log)."""
    known = classify.gate(text, ANY_OTHER_LITERAL)
    if known is not None:
        return known
    return ANY_OTHER_LITERAL.search(text.encode("utf-8", "surrogatepass") if data is None else data) is not None


# What _SCAN's first branch gives at the start of a line _WANTED_PREFIXED found (the same groups):
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
_PREFIXED_GROUPS = re.compile(_SCAN.pattern[len("^(?:"):_SCAN.pattern.index("|[^\\n]*?")])


class Runs(list):
    """The fast path's wanted lines where every other candidate is known absent, NCCL's "Channel ...
    via" lines but those a run holds left to a substring search (CHANNEL_AT): per RE2 run of consecutive wanted
    lines, its offset, its end, its first line's number and its lines' _ROWS groups;
    ``newlines``: how many newlines the text holds before ``end``, the last run's end."""

    newlines = end = 0
    #: how many lines the text holds where every one carries NCCL's prefix (the newlines, and a last line
    #: without one): what candidates() counts as prefixed then; else None
    lines: int | None = None
    #: whether the runs hold the companions' lines too (_WANTED_RUNS_ROUTED: a log NCCL wrote alone)
    routed = False
    #: the runs' (start, end) offsets, made once for the companions (routed_regions)
    regions: list[tuple[int, int]] | None = None
    #: the runs' start offsets and first lines' numbers, made once for the companions (routed_lines)
    starts: list[int] | None = None
    firsts: list[int] | None = None


# A wanted line's _PREFIXED_GROUPS as findall gives them over a run ("" for a group that took no
# part): host, pid, dev, src, srcline, level, msg; "^" keeps every match at a line's start
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
_ROWS = re.compile("^" + _PREFIXED_GROUPS.pattern + r"\n?", re.M)


#: google-re2's anchor for an unanchored search (its wrapper's own name; None where a release renames it: finditer then)
_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
_NO_SPAN = (-1, -1)


def spans(pattern: Any, data: bytes) -> list[tuple[int, int]]:
    """``[m.span() for m in pattern.finditer(data)]`` of an RE2 pattern over bytes, asked of its compiled RE2
    object the way google-re2's finditer asks it (the same searches, from the same offsets), without the
    generator and the _Match object it makes a match: ~1.8 of its ~5 us a match (a bench node's rank log gives
    9 runs, an NCCL log 23). Where the wrapper holds no such object (another release), finditer itself."""
    regexp = getattr(pattern, "_regexp", None)
    if regexp is None or _UNANCHORED is None:
        return [m.span() for m in pattern.finditer(data)]
    match, anchor = regexp.Match, _UNANCHORED
    out: list[tuple[int, int]] = []
    pos, endpos = 0, len(data)
    while True:
        span = match(anchor, data, pos, endpos)[0]
        if span == _NO_SPAN:
            return out
        out.append(span)
        if pos == endpos:
            return out
        pos = pos + 1 if pos == span[1] else span[1]


# The routed pass over a log NCCL wrote alone, found from each run's first device bracket (issue 12, rounds rZ1 and
# rQ7): a run pattern starts with "^", so RE2 has no literal to skip to and its DFA reads every byte; started at the
# "] " after the device instead, RE2 skips to each "] " (memchr from its start state) and reads a line from there on,
# not its host, pid and thread (22 of a bench line's ~87 characters): the pass over a bench node's 4 nccl-tests logs
# 3.42 -> 3.18 M instructions a log (bench/speed_rZ1.md, speed_rQ7.md). In such a text every line starts with NCCL's prefix,
# whose host, pid and thread hold no "]": a line's first "] " is its device's, so a match that starts after another
# "] " of its line (one inside a message that gives nothing: "New proxy] NCCL WARN x") starts its run on the next line
# vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
_RUN_HEAD = r"(?m)^(?:[\w.\-]+:\d+:\d+ \[-?\d+\] (?:"
assert _WANTED_RUNS_ROUTED.pattern.startswith(_RUN_HEAD) and _WANTED_RUNS_ROUTED.pattern.endswith(")+")
_ROUTED_LINE = _WANTED_RUNS_ROUTED.pattern[len(_RUN_HEAD):-len(")+")]  # a line from after its device's "] " on
_ROUTED_FROM_DEVICE = re2.compile(r"(?m)\] (?:" + _ROUTED_LINE + r"(?:" + _RUN_HEAD[len("(?m)^(?:"):] + _ROUTED_LINE + r")*")


def routed_spans_alone(text: str, data: bytes) -> list[tuple[int, int]]:
    """``spans(_WANTED_RUNS_ROUTED, data)`` of ASCII ``text`` (``data``: it encoded) whose every line starts with
    NCCL's prefix (_ALL_PREFIXED), by _ROUTED_FROM_DEVICE: each match's start moved back to its line's start, or on
    to the next line where a "] " stands before it in its line (none: no run)."""
    out: list[tuple[int, int]] = []
    rfind, find = text.rfind, text.find
    for at, end in spans(_ROUTED_FROM_DEVICE, data):
        start = rfind("\n", 0, at) + 1
        if find("] ", start, at) != -1:  # inside a message: the run starts on the next line
            start = find("\n", at, end) + 1
            if not start or start == end:
                continue
        out.append((start, end))
    return out


def _wanted_runs(text: str, data: bytes, scan: Any = _WANTED_RUNS_BUT_CHANNELS, alone: bool = False) -> Runs | None:
    """Each run of wanted lines (_WANTED_RUNS_BUT_CHANNELS) as (offset, end, first line, rows): one
    findall a run, not a match a line, the lines counted on from run to run (one pass over the
    newlines, where nccl_log counted them again); None where a run's lines and rows disagree in
    number (never seen: then match by match). ``alone``: every line of ``text`` starts with NCCL's
    prefix (the routed pass then runs from the device brackets: routed_spans_alone)."""
    runs = Runs()
    count, rows_of = text.count, _ROWS.findall
    newlines = last = 0
    for start, end in (routed_spans_alone(text, data) if alone and scan is _WANTED_RUNS_ROUTED else spans(scan, data)):
        rows = rows_of(text, start, end)
        newlines += count("\n", last, start)
        inside = count("\n", start, end)
        if len(rows) != inside + (data[end - 1] != 10):
            return None
        runs.append((start, end, newlines + 1, rows))
        newlines += inside
        last = end
    runs.newlines, runs.end, runs.routed = newlines, last, scan is _WANTED_RUNS_ROUTED
    return runs


# The part of a prefixed line before "NCCL INFO Channel " (_PREFIXED_GROUPS's, as nccl_log's _read_runs finds it;
# nccl_channels' candidates the same), matched whole (fullmatch): PREFIX, its thread a group of its own
# vm:1708:1708 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
CHANNEL_PREFIX = re.compile(PREFIX)
assert _PREFIXED_GROUPS.pattern.startswith(_PREFIX_UNNAMED_TID + "NCCL (?P<level>")
#: the literal nccl_log's _read_runs finds NCCL's "Channel ... via" lines by (substring search): a Runs text's
#: every line holding it starts with NCCL's prefix or holds it inside another message (CHANNEL_PREFIX tells them apart)
CHANNEL_AT = "NCCL INFO Channel "


def _wanted_starts(text: str, data: bytes) -> list[int]:
    """Where each line _WANTED_PREFIXED matches starts (``data``: ``text`` encoded, ASCII)."""
    starts, find = [], text.find
    for run in _WANTED_RUNS.finditer(data):
        pos, end = run.span()
        while pos < end:
            starts.append(pos)
            pos = find("\n", pos, end) + 1 or end
    return starts


#: at most this many lines without a marker (the text's lines less its markers, fewer than the lines without NCCL's
#: prefix where a line holds two markers): RE2 counts the prefixed lines by runs whatever the text's size (~3 us a
#: run; the runs are at most one more than the lines without NCCL's prefix)
_FEW_OTHER_LINES = 16


def _prefixed_count(text: str, data: bytes, marked: int) -> int:
    """How many lines start with NCCL's full prefix (``data``: ``text`` encoded, ASCII; ``marked``: how
    many "NCCL INFO", "NCCL WARN" and "NCCL ATTN" it holds, at least one in each such line). RE2 counts them by
    runs of consecutive prefixed lines, one match each (~3 us in its Python wrapper): a log NCCL
    wrote, a few other lines among its own, takes a few runs; a training log that interleaves its
    own lines with NCCL's would take one a line (2,008 NCCL lines among 1,004 others, 241 kB: RE2's
    runs 3.4 ms, one findall 1.0 ms), so where one line in 16 or more is not NCCL's, and more than
    _FEW_OTHER_LINES are, findall counts. (A rank log's torchrun banner and last line, 5 of its 61 lines,
    make 1-3 runs: instructions over a bench node's 8 rank logs, RE2's runs 1.69 M, findall 2.24 M.)"""
    count, n = text.count, 0
    other = count("\n") + 1 - marked  # (at most: a line may hold more than one marker)
    if other * 16 > marked and other > _FEW_OTHER_LINES:
        return len(_PREFIXED_AFTER_NL.findall("\n" + text))
    for start, end in spans(_PREFIXED_RUNS, data):
        n += count("\n", start, end) + (data[end - 1] != 10)  # the text's last line, without its newline
    return n


def candidates(text: str) -> tuple[Any, int | None]:
    """The candidate matches of _SCAN in text order, and how many lines carry NCCL's full
    prefix (None: count them one by one). ASCII text takes the fast path: where no candidate
    lacks the prefix, the wanted lines' runs (Runs)."""
    if len(text) < _FAST_FROM:  # a pasted fragment: one scan costs less than three
        return _SCAN.finditer(text), None
    data = text.encode("utf-8", "surrogatepass")
    if len(data) != len(text):  # not ASCII: RE2's byte offsets are not the text's
        return _SCAN.finditer(text), None
    other: list[Any] = []
    alone = classify.gate(text, ALL_PREFIXED_TEXT)
    if alone or (alone is None and _ALL_PREFIXED.fullmatch(data)):  # a log NCCL wrote alone: every line prefixed, so no other candidate
        if (runs := _wanted_runs(text, data, _WANTED_RUNS_ROUTED, alone=True)) is not None:  # its lines: the runs' newlines, then the rest's
            runs.lines = runs.newlines + text.count("\n", runs.end) + (data[-1] != 10)
            return runs, runs.lines
        prefixed = text.count("\n") + (data[-1] != 10)
    else:
        marked = text.count("NCCL INFO") + text.count("NCCL WARN") + text.count("NCCL ATTN")
        prefixed = _prefixed_count(text, data, marked)
        if not _no_other(text, prefixed, data, marked):
            other = [_SCAN.match(text, m.start()) for m in _OTHER.finditer(text)]
    if not other and (runs := _wanted_runs(text, data)) is not None:
        return runs, prefixed
    wanted = list(map(_PREFIXED_GROUPS.match, repeat(text), _wanted_starts(text, data)))
    if not other:
        return wanted, prefixed
    return heapq.merge(wanted, other, key=lambda m: m.start()), prefixed


def shared_candidates(artefact: Any, scan: Any = None) -> tuple[Any, int | None]:
    """candidates() of ``artefact.text``, made once for the NCCL readers of a log NCCL wrote alone: the
    routed runs are kept on the artefact (its ``scans``) for nccl_log and its companions, whichever asks
    first (the classifier's order asks nccl_channels before nccl_log); ``scan``: candidates() where None."""
    text = artefact.text
    got = artefact.scans.get(__name__)
    if got is not None and got[0] is text:
        return got[1]
    found = (scan or candidates)(text)
    if type(found[0]) is Runs and found[0].routed:
        artefact.scans[__name__] = (text, found)
    return found


def routed_regions(artefact: Any) -> list[tuple[int, int]] | None:
    """The (start, end) offsets of the routed runs of ``artefact.text``, a log NCCL wrote alone (the
    classifier's pass said so: its ALL_PREFIXED_TEXT member), ASCII and long enough for the fast path:
    every line of it that nccl_channels (where the router leaves it only the ring orders), nccl_nvls or
    nccl_net_oob can read lies in one; None for another text (the reader then scans it all)."""
    text = artefact.text
    got = artefact.scans.get(__name__)
    if got is None or got[0] is not text:
        if len(text) < _FAST_FROM or classify.gate(text, ALL_PREFIXED_TEXT) is not True or not text.isascii():
            return None
        got = (text, shared_candidates(artefact))
    runs = got[1][0]
    if type(runs) is not Runs or not runs.routed:
        return None
    if runs.regions is None:
        runs.regions = [(start, end) for start, end, _, _ in runs]
    return runs.regions


def routed_lines(artefact: Any) -> Callable[[int], int] | None:
    """:meth:`Artefact.line_of` for the companions of a log whose routed runs routed_regions() gave: the line of
    an offset counted from the start of the run it lies in, whose number the runs know (an offset before
    every run: from the text's start). Each companion counted the newlines from the text's start to its
    last fact's line (over a bench node's NCCL log ~130,000 characters together, as much as the runs' own
    count). None where the artefact has no routed runs (the reader counts its lines itself)."""
    got = artefact.scans.get(__name__)
    if got is None or got[0] is not artefact.text:
        return None
    runs = got[1][0]
    if type(runs) is not Runs or not runs.routed:
        return None
    if runs.starts is None:
        runs.starts, runs.firsts = [run[0] for run in runs], [run[2] for run in runs]
    starts, firsts, count = runs.starts, runs.firsts, artefact.text.count

    def line_of(offset: int) -> int:
        i = bisect_right(starts, offset) - 1
        return firsts[i] + count("\n", starts[i], offset) if i >= 0 else 1 + count("\n", 0, offset)
    return line_of


def lines_in(text: str, regions: list[tuple[int, int]], literals: tuple[str, ...]) -> list[tuple[int, str]]:
    """facts/parsers/base.py lines_with() of the lines inside ``regions`` (whole lines, in text order):
    (offset of the line's start, line) of each line holding one of ``literals``, in text order, once per line."""
    starts: set[int] = set()
    find, rfind = text.find, text.rfind
    for lo, hi in regions:
        for lit in literals:
            pos = find(lit, lo, hi)
            while pos != -1:
                starts.add(rfind("\n", 0, pos) + 1)
                end = find("\n", pos, hi)
                if end == -1:
                    break
                pos = find(lit, end + 1, hi)
    out = []
    for start in sorted(starts):
        end = find("\n", start)
        out.append((start, text[start:] if end == -1 else text[start:end]))
    return out

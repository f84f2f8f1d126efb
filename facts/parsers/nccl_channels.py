"""NCCL's ring and tree lines in an ``NCCL_DEBUG=INFO`` log (``NCCL_DEBUG_SUBSYS=INIT`` prints
the ring order and the trees, ``GRAPH`` adds the per-rank ``Ring``/``Tree`` lines): which rank
sends to which, channel by channel, per communicator.

Sample content (real, ``all_reduce_perf -g 2`` on a 2 x H200 host, NCCL 2.28.9, and
an AWS two-node run of NCCL 2.7)::

    vm:1428:1439 [0] NCCL INFO comm 0x55e484784590 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0
    vm:1428:1439 [0] NCCL INFO Channel 00/24 : 0 1
    vm:1428:1439 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1 [6] -1/-1/-1->0->1
    vm:1428:1440 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0
    vm:1428:1439 [0] NCCL INFO Tree 6 : 1 -> 0 -> -1/-1/-1
    [0m ip-172-31-0-137:14605:14688 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1|-1->0->1/-1/-1

Facts: ``nccl_ring_order`` per (communicator, order) from ``Channel NN/MM :  r r r`` (rank 0
prints it), ``nccl_ring_neighbour`` per (communicator, rank, prev, next) from ``Ring NN : p ->
r -> n``, ``nccl_tree_link`` per (communicator, rank, parent, children) from ``Trees [c]
d/d/d->r->u`` and ``Tree c : u -> r -> d/d/d``; each lists its channels and cites its first
line. ``nccl_comm_nodes`` per (process, communicator) from NCCL 2.20's ``comm 0x... rank r nRanks n
nNodes k localRanks l localRank i MNNVL m`` (every rank prints it, a ring order only rank 0). The communicator is the ``commId`` of the ``ncclCommInitRankConfig`` line (else the
``comm 0x...`` pointer) last printed by the same process and thread. The ``Channel NN/M :
a[x] -> b[y] via ...`` transport lines belong to the nccl_log parser.

``lines_used`` is 0: every line read here carries NCCL's ``host:pid:tid [dev] NCCL INFO``
prefix, which the nccl_log parser counts for the same file (coverage adds the two).

Where the facts' router (engine/ruleengine/routing.py) says no rule in use binds ring neighbours
or tree links (both in ``router.dead``), their lines are not read at all: only the ring orders
and the communicator lines are scanned (most of a large log's NCCL INFO lines are ``Ring``/``Tree``).

Empty input, or a log without these lines (``NCCL_DEBUG_SUBSYS`` without INIT/GRAPH): no facts.
"""
from __future__ import annotations

import re
from typing import Any

from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclCommNodes, NcclRingNeighbour, NcclRingOrder, NcclTreeLink,
)
from stethoscope.facts import classify
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers import nccl_log_scan
from stethoscope.facts.parsers.nccl_log import line_counter

KIND = "nccl_channels"

# vm:1428:1439 [0] NCCL INFO Channel 00/24 : 0 1      (the prefix as nccl_log reads it)
_HEADER = re.compile(r"(?<![\w.\-])(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>-?\d+)\] (?:\S+:\d+ )?NCCL INFO (?P<msg>(?:.*\S)?)\s*$")
# the messages this parser may use (what _COMM, _ORDER, "Trees ", _TREE and _RING start with); a
# ring order's ranks run to the end of the line, so the transport lines of nccl_log ("Channel 00/0 :
# 0[0] -> 1[1] via P2P/CUMEM", most of a log's Channel lines) are no candidates
_WANTED = r"(?:Channel \d+/\d+ :(?:[^\S\n]+-?\d+)+[^\S\n]*$|Trees |Tree \d|Ring \d+ : -?\d+ -> -?\d+ -> -?\d+[^\S\n]*$|(?:\w+ )?comm 0x)"
# Candidates: "NCCL INFO " then a wanted message (the scan starts with a literal, so the regex
# engine skips ahead by substring search). The common line starts with NCCL's prefix right
# before it: _PREFIX, matched in place, gives the groups _HEADER would; any other candidate line
# (a timestamp or mpirun tag in front, the wanted text after another message) goes through
# _HEADER as a whole line.
_CANDIDATES = re.compile(r"NCCL INFO " + _WANTED + r"[^\n]*", re.M)
# the same when no rule in use binds ring neighbours or tree links (the router's dead kinds):
# only the ring orders and the communicator lines they need
_ORDER_CANDIDATES = re.compile(r"NCCL INFO (?:Channel \d+/\d+ :(?:[^\S\n]+-?\d+)+[^\S\n]*$|(?:\w+ )?comm 0x)[^\n]*", re.M)
# _ORDER_CANDIDATES's two forms looked for apart, each from a longer literal (scanning for "NCCL
# INFO " alone stops at every line of a log): the ring orders, and every "comm 0x" whose line has
# "NCCL INFO " or "NCCL INFO <word> " right before it (see _order_candidates)
# vm:1428:1439 [0] NCCL INFO Channel 00/24 : 0 1
_ORDER_AT = re.compile(r"NCCL INFO Channel \d+/\d+ :(?:[^\S\n]+-?\d+)+[^\S\n]*$", re.M)
# vm:1428:1439 [0] NCCL INFO ncclCommInitRankConfig comm 0x55e484784590 rank 0 nranks 2 ...
_WORD = re.compile(r"\w+")
_LINKS = frozenset({"nccl_ring_neighbour", "nccl_tree_link"})
# NCCL's prefix, matched whole on the text before "NCCL INFO " (nccl_log_scan.PREFIX, as nccl_log reads it):
# vm:1428:1439 [0]       vm:1428:1439 [0] init.cc:1000
_PREFIX = nccl_log_scan.CHANNEL_PREFIX
_DETECT = re.compile(r"NCCL INFO (?:Channel \d+/\d+ :(?:\s+-?\d+)+\s*$|Trees \[\d+\] "
                     r"|comm 0x[0-9a-fA-F]+ rank \d+ nRanks \d+ nNodes \d+ )", re.M)
# Channel 00/24 : 0 1        Channel 00/04 :    0   1   2   3
_ORDER = re.compile(r"^Channel (?P<ch>\d+)/(?P<n>\d+) :(?P<ranks>(?:\s+-?\d+)+)$")
# Trees [0] 1/-1/-1->0->-1 [1] ...      (2.7: [0] 1/-1/-1->0->-1|-1->0->1/-1/-1)
_TREES_ENTRY = re.compile(r"\[(?P<ch>\d+)\] (?P<trees>\S+)")
_TREE_PART = re.compile(r"^(?P<a>-?\d+(?:/-?\d+)*)->(?P<rank>-?\d+)->(?P<b>-?\d+(?:/-?\d+)*)$")
# Tree 6 : 1 -> 0 -> -1/-1/-1          (up -> rank -> down/down/down)
_TREE = re.compile(r"^Tree (?P<ch>\d+) : (?P<up>-?\d+) -> (?P<rank>-?\d+) -> (?P<down>-?\d+(?:/-?\d+)*)$")
# Ring 00 : 0 -> 1 -> 0                 (prev -> rank -> next)
_RING = re.compile(r"^Ring (?P<ch>\d+) : (?P<prev>-?\d+) -> (?P<rank>-?\d+) -> (?P<next>-?\d+)$")
# ncclCommInitRankConfig comm 0x55e484784590 rank 0 nranks 2 ... commId 0xb308046427702aaf - Init START
# comm 0x55e484784590 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0
# fsdp-worker-1:74:357 [1] NCCL INFO comm 0x56169dab8e50 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0
#   (fixtures/artefacts/nccl_channels/two_nodes_2x2_socket.log; NVIDIA/nccl src/init.cc from v2.20.3-1 on:
#    INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d", ...); no release
#    before prints the node count)
_COMM = re.compile(r"^(?:\w+ )?comm (?P<ptr>0x[0-9a-fA-F]+) rank (?P<rank>\d+) n[Rr]anks (?P<nranks>\d+)"
                   r"(?: nNodes (?P<nnodes>\d+) localRanks (?P<local>\d+) localRank (?P<lrank>\d+)(?: MNNVL (?P<mnnvl>\d+))?(?![^ ]))?"
                   r"(?:.*?commId (?P<id>0x[0-9a-fA-F]+))?")
# the node-count line's own words after its pointer (a communicator line past the last ring order is read for it)
_SPAN_WORDS = " nNodes "


def detect(head: str) -> bool:
    # the classifier's pass over the text answers whether _DETECT occurs (facts/classify.py found(): RE2's \s and \d
    # are ASCII, Python's take more, so wherever RE2 finds it Python does): no search of its own (~27 us over a 175 kB log)
    if classify.found(head, _DETECT):
        return True
    return bool(_DETECT.search(head))


def _order_candidates(text: str) -> list[tuple[int, int]]:
    """(start, end) of each match _ORDER_CANDIDATES.finditer gives, found from literals: a line's
    leftmost "NCCL INFO " that a ring order or a "[<word> ]comm 0x" follows, to the line's end;
    but none after the last line that can give a fact (a ring order, a "Trees comm 0x" line that
    parse() reads as trees, or a communicator line with its node count: " nNodes " in the match):
    a communicator line after it would name the communicator of nothing."""
    return _order_candidates_in(text, ((0, len(text)),))


def _order_candidates_in(text: str, regions: Any) -> list[tuple[int, int]]:
    """_order_candidates() where every line that holds a candidate lies in one of ``regions`` (whole
    lines, in text order): the scan of a log NCCL wrote alone that routes its lines (nccl_log_scan.routed_regions)."""
    head = "NCCL INFO "
    starts = [m.start() for lo, hi in regions for m in _ORDER_AT.finditer(text, lo, hi)]
    comms: list[int] = []
    # the last line that can give a fact: a ring order's, or the last "NCCL INFO Trees comm 0x..." (read
    # as trees); the communicator lines are looked for up to its end only (a log's Init COMPLETE and
    # Destroy COMPLETE lines come after its ring orders: half a bench node's log not searched)
    rfind = text.rfind
    last = max(starts[-1] if starts else -1, max((rfind("NCCL INFO Trees comm 0x", lo, hi) for lo, hi in regions), default=-1))
    # or the last communicator line that says how many nodes it spans (NCCL 2.20 on: an nccl_comm_nodes fact; every
    # rank prints one, a ring order only rank 0): the candidate of a line that holds " nNodes " after its start
    for lo, hi in reversed(regions):
        p = rfind(_SPAN_WORDS, lo, hi)
        while p > last:
            line_start, line_end = rfind("\n", 0, p) + 1, text.find("\n", p)
            m = _ORDER_CANDIDATES.search(text, line_start, len(text) if line_end == -1 else line_end)
            if m is not None and m.start() < p:
                last = max(last, m.start())
                break
            p = rfind(_SPAN_WORDS, lo, line_start)
        if p > last or hi <= last:
            break
    find, startswith, word = text.find, text.startswith, _WORD.fullmatch
    upto = 0 if last == -1 else find("\n", last)  # no such line: no communicator line is wanted
    upto = len(text) if upto == -1 else upto
    for lo, hi in regions:
        if lo >= upto:
            break
        hi = min(hi, upto)
        q = find("comm 0x", lo, hi)
        while q != -1:
            if q >= 10 and startswith(head, q - 10):  # NCCL INFO comm 0x...
                comms.append(q - 10)
            if q > 10 and text[q - 1] == " ":  # NCCL INFO ncclCommInitRankConfig comm 0x...
                w = rfind(" ", 0, q - 1) + 1
                if w >= 10 and word(text, w, q - 1) and startswith(head, w - 10):
                    comms.append(w - 10)
            q = find("comm 0x", q + 1, hi)
    starts += [c for c in comms if c <= last]
    out: list[tuple[int, int]] = []
    end = -1
    for start in sorted(starts):
        if start > end:  # the line's first: the match runs to the line's end
            end = find("\n", start)
            end = len(text) if end == -1 else end
            out.append((start, end))
    return out


#: a candidate message's reading (most of a fleet's ring orders, and often its Init lines, are the same
#: messages on every node: read once a process): ("comm", pointer, commId or None, nranks) where _COMM
#: takes it; ("order", channel, ranks, ranks joined by one blank) where _ORDER does; ("other",) else
_READINGS: dict[str, tuple] = {}
_READINGS_MAX = 8192
#: the longest message _READINGS keeps (a hostile file's long lines are read each time)
_KEPT_CHARS = 512


def _reading(msg: str) -> tuple:
    if m := _COMM.match(msg):
        span = (int(m["rank"]), int(m["nnodes"]), int(m["local"]), int(m["lrank"]),
                int(m["mnnvl"]) if m["mnnvl"] else None) if m["nnodes"] else None
        reading: tuple = ("comm", m["ptr"], m["id"], int(m["nranks"]), span)
    elif m := _ORDER.match(msg):
        order = tuple(m["ranks"].split())
        reading = ("order", int(m["ch"]), order, " ".join(order))
    else:
        reading = ("other",)
    if len(msg) <= _KEPT_CHARS:
        if len(_READINGS) >= _READINGS_MAX:
            _READINGS.clear()
        _READINGS[msg] = reading
    return reading


def _ranks(text: str) -> list[int]:
    return [int(x) for x in text.split("/") if int(x) >= 0]


class _Acc:
    """Facts keyed by their values, channels collected, the offset of the first line's start kept
    (its line number and text are the evidence)."""

    def __init__(self) -> None:
        self.items: dict[tuple, tuple[int, str, dict, set[int]]] = {}

    def add(self, cls: type, key: tuple, start: int, node: str, ch: int, /, **fields) -> None:
        # given by place only: no field is compared with a parameter's name (FactBuilder.add says why)
        full = (cls, node, *key)
        got = self.items.get(full)
        if got is None:
            got = self.items[full] = (start, node, fields, set())
        got[3].add(ch)

    def extend(self, cls: type, key: tuple, node: str, ch: int) -> bool:
        """Add channel ``ch`` to the fact already held for these values; False where there is none yet (then
        add() it: its fields are built only for a fact not seen before, a fleet's ring orders being repeats)."""
        got = self.items.get((cls, node, *key))
        if got is None:
            return False
        got[3].add(ch)
        return True


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    acc = _Acc()
    comm_of: dict[tuple[str, int, int], tuple[str, int]] = {}  # (host, pid, tid) -> (comm, nranks)
    id_of: dict[str, str] = {}  # comm pointer -> commId
    text, node_for, rfind = artefact.text, artefact.node_for, artefact.text.rfind
    line_of = line_counter(text)  # the artefact's own counter left for the next reader (see line_counter)
    prefix = _PREFIX.fullmatch  # (on the prefix's text alone: _PREFIX looks at nothing around it)
    router = artefact.router
    if router is not None and _LINKS <= router.dead:
        # a log NCCL wrote alone: its lines routed by nccl_log's pass (the candidate lines lie in its runs)
        regions = nccl_log_scan.routed_regions(artefact)
        spans = _order_candidates(text) if regions is None else _order_candidates_in(text, regions)
    else:
        regions, spans = None, [m.span() for m in _CANDIDATES.finditer(text)]
    threads: dict[tuple[str, str, str], tuple[str, int, tuple[str, int, int]]] = {}  # the prefix's groups, read
    # a line's prefix as written -> its (host, pid, tid), or None where _PREFIX does not take it (a
    # communicator's ring-order and Init lines share their thread's prefix)
    prefixes: dict[str, tuple[str, str, str] | None] = {}
    reading_of = _READINGS
    for at, cand_end in spans:
        start = rfind("\n", 0, at) + 1
        pfx = text[start:at]
        if (raw := prefixes.get(pfx, False)) is False:
            h = prefix(pfx)
            raw = prefixes[pfx] = h.group("host", "pid", "tid") if h else None
        if raw is not None:  # NCCL's prefix at the start of the line, then the wanted message
            msg = text[at + 10:cand_end].rstrip()  # what _HEADER's "(?P<msg>(?:.*\S)?)\s*$" leaves
        else:
            h = _HEADER.search(text[start:cand_end])
            if not h:
                continue
            msg = h["msg"]
            raw = h.group("host", "pid", "tid")
        got = threads.get(raw)
        if got is None:
            host, pid_, tid = raw
            node = node_for(host)
            got = threads[raw] = (node, int(pid_), (node, int(pid_), int(tid)))
        node, pid, thread = got
        if (reading := reading_of.get(msg)) is None:
            reading = _reading(msg)
        if reading[0] == "comm":
            _, ptr, cid, n, span = reading
            if cid:
                id_of[ptr] = cid
            comm = id_of.get(ptr, ptr)
            comm_of[thread] = (comm, n)
            if span is not None and not acc.extend(NcclCommNodes, (pid, comm), node, 0):
                rank, nnodes, local, lrank, mnnvl = span
                acc.add(NcclCommNodes, (pid, comm), start, node, 0, comm=comm, rank=rank, nranks=n, nnodes=nnodes,
                        local_ranks=local, local_rank=lrank, mnnvl=mnnvl, pid=pid)
            continue
        held = comm_of.get(thread)
        comm, nranks = held if held is not None else (f"pid{pid}", 0)
        if reading[0] == "order":
            _, ch, order, joined = reading
            if not acc.extend(NcclRingOrder, (comm, order), node, ch):
                acc.add(NcclRingOrder, (comm, order), start, node, ch, comm=comm, nranks=nranks or len(order), order=joined, pid=pid)
            continue
        no = line_of(start)
        if msg.startswith("Trees "):
            entries = list(_TREES_ENTRY.finditer(msg))
            if not entries:
                fb.error(no, f"NCCL Trees line without trees: {msg!r}")
            for i, e in enumerate(entries):
                for part in e["trees"].split("|"):
                    t = _TREE_PART.match(part)
                    if not t and i == len(entries) - 1 and e.end() == len(msg.rstrip()):
                        # NCCL cuts its log lines at a fixed buffer size: with 64 channels the
                        # last tree of the line is cut short (real: "... [47] -1/-1/-1->")
                        continue
                    if not t:
                        fb.error(no, f"NCCL Trees line: unreadable tree {part!r}")
                        continue
                    # the side with three slash-separated ranks lists the children
                    down, up = (t["a"], t["b"]) if "/" in t["a"] or "/" not in t["b"] else (t["b"], t["a"])
                    _tree(acc, comm, int(t["rank"]), up, down, start, node, int(e["ch"]), pid)
        elif m := _TREE.match(msg):
            _tree(acc, comm, int(m["rank"]), m["up"], m["down"], start, node, int(m["ch"]), pid)
        elif m := _RING.match(msg):
            r, p, n = int(m["rank"]), int(m["prev"]), int(m["next"])
            acc.add(NcclRingNeighbour, (comm, r, p, n), start, node, int(m["ch"]), comm=comm, rank=r, prev_rank=p, next_rank=n, pid=pid)
    # (the items' first lines in the order they were met: line_of's own order may differ; where the runs routed
    # the lines, counted from the run's start: nccl_log_scan.routed_lines)
    lines = (regions is not None and nccl_log_scan.routed_lines(artefact)) or line_counter(text)
    for (cls, *_), (start, node, fields, chans) in acc.items.items():
        if cls is NcclCommNodes:
            fb.add(cls, lines(start), node=node, text=_line_at(text, start), **fields)
            continue
        extra = {"channel_count": len(chans)} if cls is NcclRingOrder else {}
        fb.add(cls, lines(start), node=node, text=_line_at(text, start), channels=",".join(map(str, sorted(chans))), **fields, **extra)
    result.lines_used = 0  # see the module docstring: nccl_log counts these lines
    return result


def _line_at(text: str, start: int) -> str:
    """The line that starts at ``start``, as ``Artefact.lines`` gives it (a trailing "\\r" dropped)."""
    end = text.find("\n", start)
    line = text[start:] if end == -1 else text[start:end]
    return line[:-1] if line.endswith("\r") else line


def _tree(acc: _Acc, comm: str, rank: int, up: str, down: str, start: int, node: str, ch: int, pid: int) -> None:
    parents = _ranks(up)
    children = " ".join(map(str, _ranks(down)))
    parent = parents[0] if parents else -1
    acc.add(NcclTreeLink, (comm, rank, parent, children), start, node, ch, comm=comm, rank=rank, parent=parent, children=children, pid=pid)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

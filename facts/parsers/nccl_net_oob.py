"""The out-of-band address NCCL's IB transport announces (``NCCL_DEBUG=INFO``, subsystem INIT
or NET): the address a peer names in ``Got completion from peer ADDR`` lines.

Sample content (real lines: two Azure IB nodes, NVIDIA/nccl-tests#36; an IB/SHARP job, NVIDIA/nccl-tests#294)::

    pkb-aa8dbd1b-0:9100:9100 [0] NCCL INFO NET/IB : Using [0]mlx4_0:1/IB ; OOB eth0:10.0.0.5<0>
    h100-4:739792:739876 [6] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB/SHARP [1]mlx5_2:1/IB/SHARP ... [7]mlx5_8:1/IB/SHARP [RO]; OOB ens7:172.27.32.104<0>

Facts: ``nccl_oob_address`` per (node, interface, address), citing its first line, with the
HCA ports NCCL listed on that line. The nccl_log parser reads the device list of the same line
(``nccl_net_device``) and counts the line; ``lines_used`` is 0 here so coverage does not count
it twice.

Empty input, or a log without ``; OOB``: no facts.
"""
from __future__ import annotations

import re
from typing import Iterator

import re2

from stethoscope.facts.kinds.nccl import NcclOobAddress  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, lines_with
from stethoscope.facts.parsers import nccl_log_scan
from stethoscope.facts.parsers.nccl_log import line_counter

KIND = "nccl_net_oob"

# vm:1708:1708 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>
_LINE = re.compile(
    r"(?<![\w.\-])(?P<host>[\w.\-]+):(?P<pid>\d+):\d+ \[-?\d+\] (?:\S+:\d+ )?NCCL INFO NET/(?P<net>IB|Socket) ?: ?Using(?P<list>[^;\n]*); "
    r"OOB (?P<oob>[^\s<]+)(?:<\d+>)?\s*$",
    re.M,
)
_DETECT = re.compile(r"NCCL INFO NET/(?:IB|Socket) ?: ?Using[^;\n]*; OOB \S")
# the lines _LINE is tried on: those holding both literals it needs (_LINE itself, tried at every
# position of the text, would cost more than the rest of this parser). In an ASCII text RE2 finds
# "; OOB " over the bytes, skipping to each ";" (rare in a log): 7 us on a bench node's 175 kB log,
# where CPython's str.find passes take 100 us for "; OOB " and 70 for the "NCCL INFO NET/" lines
# (28 of them); another text: the lines holding "NCCL INFO NET/", by substring search
_NET, _OOB = "NCCL INFO NET/", "; OOB "
_OOB_AT = re2.compile(re.escape(_OOB))
# [0]mlx5_10:1/RoCE
_DEV = re.compile(r"\[\d+\](?P<dev>[A-Za-z][\w-]*:\d+)")
# enp220s0np0:11.1.128.136        ib0:fe80::1%ib0
_IFADDR = re.compile(r"^(?P<iface>[^:]+):(?P<addr>.+)$")


def detect(head: str) -> bool:
    return bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[str, str, str]] = set()
    line_of = line_counter(artefact.text)  # the artefact's own counter left for the next reader (see line_counter)
    # a log NCCL wrote alone: its lines routed by nccl_log's pass (every line _LINE reads lies in its runs)
    regions = nccl_log_scan.routed_regions(artefact)
    if regions is not None:  # (its lines' numbers counted from their run's start)
        line_of = nccl_log_scan.routed_lines(artefact) or line_of
    for start, line in (_lines_with_both(artefact.text) if regions is None
                        else ((at, ln) for at, ln in nccl_log_scan.lines_in(artefact.text, regions, (_OOB,)) if _NET in ln)):
        m = _LINE.search(line)
        if not m:
            continue
        no = line_of(start)
        a = _IFADDR.match(m["oob"])
        if not a:
            fb.error(no, f"NCCL OOB entry without an address: {m['oob']!r}")
            continue
        node = artefact.node_for(m["host"])
        key = (node, a["iface"], a["addr"])
        if key in seen:
            continue  # every rank of the node prints the same line
        seen.add(key)
        # the line quoted as Artefact.lines gives it: the builder would split the whole text for it
        fb.add(NcclOobAddress, no, node=node, text=line[:-1] if line[-1:] == "\r" else line, network=m["net"],
               interface=a["iface"], address=a["addr"], devices=",".join(d["dev"] for d in _DEV.finditer(m["list"])),
               pid=int(m["pid"]))
    result.lines_used = 0
    return result


def _lines_with_both(text: str) -> Iterator[tuple[int, str]]:
    """(offset of the line's start, line) of each line holding both _NET and _OOB, in text order."""
    if not text.isascii():  # RE2's byte offsets would not be the text's
        yield from ((start, line) for start, line in lines_with(text, (_NET,)) if _OOB in line)
        return
    find, rfind, end = text.find, text.rfind, -1
    for m in _OOB_AT.finditer(text.encode("ascii")):
        at = m.start()
        if at < end:
            continue  # another "; OOB " of the line just read
        start = rfind("\n", 0, at) + 1
        end = find("\n", at)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if _NET in line:
            yield start, line


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

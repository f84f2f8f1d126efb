"""A failed RDMA work completion that a program prints in its own words, its status named as
libibverbs names it: the transfer engines and storage services that poll their own completion
queues (UCCL, NBS, ...) log ``struct ibv_wc``'s status with ``ibv_wc_status_str()``'s text or the
enum's name, in their own line forms. Their lines are looked for anywhere in a file.

Sample content (real, fixtures/artefacts/verbs_completion/)::

    [WARN chi-mi325x-pod2-098 1468470 1468470 pollOnce rdma/providers/ib_data_channel_impl.cc:202] pollOnce - channel_id: 4, CQE error, wr_id=3, status=2 (local QP operation error), opcode=1, byte_len=0, vendor_err=0x3, qp_num=0x2c91, wc_flags=0x0   (uccl-project/uccl#972)
    2024-11-25T22:44:39.878861Z :BLOCKSTORE_RDMA ERROR: [1245282948318403695] RECV 635E9C6F.0.FB: IBV_WC_RETRY_EXC_ERR   (ydb-platform/nbs#2690)

Three general forms are read, each checked against knowledge/ib_wc_status.yaml (rdma-core
libibverbs/enum_strs.c ``ibv_wc_status_str()``, libibverbs/verbs.h ``enum ibv_wc_status``):

- ``status=N (<text>)`` / ``status=N(<text>)`` / ``status: N (<text>)``: the number and the text must be
  the same table row (a number alone is never read: programs number other things "status" too);
- ``status: <text>``: the text must be a row's name exactly, ended by the line or punctuation;
- an ``IBV_WC_<NAME>_ERR`` enum name in a line that says it failed (an error word or form,
  facts/parsers/unrecognised_text.error_line): the row whose ``ibv`` is that name.

NCCL's own "NET/IB : Got completion ..." lines are nccl_log's (``nccl_rdma_completion_error``) and
are left to it. Facts: ``verbs_completion_error``, one per status a file (the first line, with how many
lines printed it; UCCL prints one per channel). Lines in these forms whose text or enum no row
names are not read (left to the catch-all). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.network import VerbsCompletionError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with
from stethoscope.facts.parsers.unrecognised_text import error_line

KIND = "verbs_completion"

# ... CQE error, wr_id=3, status=2 (local QP operation error), opcode=1, byte_len=0, vendor_err=0x3, ...   (uccl#972)
# CQE ERROR wr_id=7 status=12(transport retry counter exceeded) ...   (CONSTRUCTED in UCCL EP's form, as rX5 noted it)
_NUMBERED = re.compile(r"\bstatus ?[=:] ?(?P<num>\d{1,2}) ?\((?P<text>[A-Za-z][A-Za-z ]{2,60}?)\)")
# send failed, status: remote access error   (CONSTRUCTED: "status: " then ibv_wc_status_str()'s text)
_NAMED = re.compile(r"\bstatus: (?P<rest>[A-Za-z][^\n]{2,80})")
# :BLOCKSTORE_RDMA ERROR: [1245282948318403695] RECV 635E9C6F.0.FB: IBV_WC_RETRY_EXC_ERR   (nbs#2690)
_ENUM = re.compile(r"\b(?P<ibv>IBV_WC_[A-Z_]{2,30}?_ERR)\b")
# ..., vendor_err=0x3, ...   (uccl#972); "vendor err 129" / "vendor_err: 0x81" in other forms
_VENDOR = re.compile(r"\bvendor[_ ]err(?:or)?[=: ] ?(?P<v>0x[0-9a-fA-F]{1,8}|\d{1,10})\b")
# NET/IB : Got completion from peer ... with status=IBV_WC_RETRY_EXC_ERR(12) ...   (nccl_log's)
_NCCL = "Got completion "
_LITERALS = ("status=", "status:", "status =", "IBV_WC_")


def detect(head: str) -> bool:
    return any(_line_status(line) is not None for line in head.split("\n") if "status" in line or "IBV_WC_" in line)


def _line_status(line: str):
    """The table row a line names a failed completion by, or None."""
    if _NCCL in line:
        return None
    table = knowledge.load("ib_wc_status.yaml")
    for m in _NUMBERED.finditer(line):
        entry = table.entry(int(m["num"]))
        if entry is not None and entry.name == m["text"]:
            return entry
    for m in _NAMED.finditer(line):
        entry = table.leading_name(m["rest"])
        if entry is not None and re.match(r"(?:$|[\s,.;)\]])", m["rest"][len(entry.name):]):
            return entry
    m = _ENUM.search(line)
    if m is not None and error_line(line):
        return next((s for s in table.statuses if s.ibv == m["ibv"]), None)
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: dict[int, tuple[int, str, str | None]] = {}
    counts: dict[int, int] = {}
    for n, line in iter_lines_with(_LITERALS, artefact):
        entry = _line_status(line)
        if entry is None:
            continue
        result.lines_used += 1
        counts[entry.status] = counts.get(entry.status, 0) + 1
        if entry.status not in seen:
            v = _VENDOR.search(line)
            seen[entry.status] = (n, line.strip()[:400], v["v"] if v else None)
    for status, (n, message, vendor) in seen.items():
        entry = knowledge.load("ib_wc_status.yaml").entry(status)
        fb.add(VerbsCompletionError, n, status=status, status_text=entry.name, message=message, vendor_err=vendor,
               count=counts[status])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bstatus ?[=:] ?\d{1,2} ?\([a-zA-Z][a-zA-Z ]+\)", r"\bstatus: [A-Za-z]", r"\bIBV_WC_[A-Z_]+_ERR\b")

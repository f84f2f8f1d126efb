"""What PyTorch's flight-recorder analyser prints: ``torchfrtrace`` (``python -m
torch.distributed.flight_recorder.fr_trace``; ``tools/flight_recorder/fr_trace.py`` in 2.5) run over
the per-rank dumps that ``TORCH_NCCL_DUMP_ON_TIMEOUT`` / ``TORCH_FR_BUFFER_SIZE`` wrote. It matches
each collective across ranks and reports the first one they disagree on: the ranks that never joined
it, the rank whose call differs, or that it cannot decide because some ranks wrote no dump.

Forms (torch/distributed/flight_recorder/components/builder.py error_analysis and types.py
EntryState.log, 2.6+; tools/flight_recorder/components/builder.py before), one value a line::

    Not all ranks joining collective, sequence number: 4       (2.7+: "Not all ranks joining collective, sequence number: %s")
    Not all ranks joining collective 5 at entry 4              (2.5-2.6: "Not all ranks joining collective %s at entry %s";
                                                                the flight-recorder tutorial's sample, pytorch/tutorials)
    internal record id: 31116
    group info: 0:default_pg
    collective: nccl:all_reduce
    missing ranks: {1}
    input sizes: [[3, 4]]
    world size: 2
    collective state: scheduled
    Collective sequence number: 39 has errors                  (2.7+: "Collective sequence number: %s has errors")
    Collective 39 at entry 38 errors                           (2.5-2.6: "Collective %s at entry %s errors")
    error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does not match found input sizes: '[[262144]]'
                                                               (2.5: "error message: %s"; ", ".join(f"Culprit rank {r}; {MatchInfo}"))
    Input/output mismatch in the collective sequence number: 7 (all_to_all: the totals differ, no culprit named)
    We cannot decide what's wrong with this collective entry because we missed FR dumps from ranks ({3}) so we don't have enough information. ...
    No errors found for this collective entry, There could be some other reasons why we see collective timeout.

and 2.4's one-line print: ``Not all ranks joining collective for group 0:default_pg collective
nccl:all_reduce  Missing ranks are {1}``. A report line may carry a logger prefix (``INFO:...:``).

Facts: one ``torch_fr_analysis`` per report: ranks_missing (the missing ranks: they never called the
collective the others wait in), mismatch (the culprit ranks and the error type), io_mismatch,
dumps_missing (undecided: no dump from the named ranks) and no_errors. A head whose block names no
rank still makes its fact (ranks None).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchFrAnalysis  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "torch_fr_trace"

# Not all ranks joining collective, sequence number: 4        Not all ranks joining collective 5 at entry 4
# Not all ranks joining collective: sequence number: 31117    (an internal build's wording, same head)
# Not all ranks joining collective for group 0:default_pg collective nccl:all_reduce  Missing ranks are {1}   (2.4 print)
_MISSING_HEAD = re.compile(r"Not all ranks joining collective(?:[,:] sequence number: (?P<seq>\d{1,12})| (?P<seq2>\d{1,12}) at entry \d{1,12}"
                           r"| for group (?P<pg>\S{1,200}) collective (?P<op>\S{1,100})(?:[ \t]{1,8}Missing ranks are \{(?P<ranks>[\d, ]{0,2000})\})?)")
# Collective sequence number: 39 has errors       Collective 39 at entry 38 errors
_ERRORS_HEAD = re.compile(r"Collective (?:sequence number: (?P<seq>\d{1,12}) has errors|(?P<seq2>\d{1,12}) at entry \d{1,12} errors)")
# Input/output mismatch in the collective sequence number: 7
_IO_HEAD = re.compile(r"Input/output mismatch in the collective sequence number: (?P<seq>\d{1,12})")
# We cannot decide what's wrong with this collective entry because we missed FR dumps from ranks ({3}) so ...
_UNDECIDED = re.compile(r"We cannot decide what's wrong with this collective entry because we missed FR dumps from ranks \(\{?(?P<ranks>[\d, ]{0,2000})\}?\)")
# No errors found for this collective entry, There could be some other reasons why we see collective timeout.
_NO_ERRORS = "No errors found for this collective entry"
_HEADS = ("Not all ranks joining collective", "Collective sequence number: ", " at entry ", "Input/output mismatch in the collective",
          "missed FR dumps from ranks", _NO_ERRORS)

# the block's lines ("key: value", after any logger prefix)
#   group info: 0:default_pg        collective: nccl:all_reduce        missing ranks: {3, 4, 5, 6, 7}
#   world size: 8                   collective state: scheduled
_FIELD = re.compile(r"(?:^|:)[ \t]{0,4}(?P<key>group info|collective|missing ranks|world size|collective state|error msg|error message): "
                    r"(?P<value>[^\n]{1,4000})")  # greedy and unanchored: one pass a line (a lazy value before $ rescanned 4,000 chars from every key of a long line); trailing blanks stripped where read
#   error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: ...
_CULPRIT = re.compile(r"Culprit rank (?P<rank>\d{1,9}); Error type: (?P<type>[A-Z_]{1,40})")
_RANK_LIST = re.compile(r"\d{1,9}")


def detect(head: str) -> bool:
    return any(h in head for h in ("Not all ranks joining collective", "Input/output mismatch in the collective sequence number",
                                   "missed FR dumps from ranks")) or _ERRORS_HEAD.search(head) is not None


def _ranks(text: str | None) -> list[int]:
    return sorted({int(r) for r in _RANK_LIST.findall(text or "")})


def _head(line: str) -> tuple[str, re.Match[str] | None] | None:
    for issue, pattern in (("ranks_missing", _MISSING_HEAD), ("mismatch", _ERRORS_HEAD), ("io_mismatch", _IO_HEAD),
                           ("dumps_missing", _UNDECIDED)):
        m = pattern.search(line)
        if m is not None:
            return issue, m
    if _NO_ERRORS in line:
        return "no_errors", None
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    n = 0
    while n < len(lines):
        line = lines[n]
        head = _head(line) if any(h in line for h in _HEADS) else None
        if head is None:
            n += 1
            continue
        issue, m = head
        d = m.groupdict() if m is not None else {}
        seq = d.get("seq") or d.get("seq2")
        fields: dict[str, str] = {}
        if d.get("pg"):
            fields["group info"], fields["collective"] = d["pg"], d["op"]
        if d.get("ranks") is not None:
            fields["missing ranks"] = d["ranks"]
        used = 1
        # its block: the key lines below, until the next head or a line that is no field (stack frames are not read)
        for nxt in lines[n + 1:n + 40]:
            if _head(nxt) is not None and any(h in nxt for h in _HEADS):
                break
            f = _FIELD.search(nxt)
            if f is None:
                continue
            fields.setdefault(f["key"], f["value"].rstrip())
            used += 1
        ranks: list[int]
        error_type = None
        if issue == "mismatch":
            culprits = _CULPRIT.findall(fields.get("error msg") or fields.get("error message") or "")
            ranks = sorted({int(r) for r, _t in culprits})
            error_type = ", ".join(dict.fromkeys(t for _r, t in culprits)) or None
        elif issue == "dumps_missing":
            ranks = _ranks(d.get("ranks"))
        else:
            ranks = _ranks(fields.get("missing ranks"))
        world = fields.get("world size")
        fb.add(TorchFrAnalysis, n + 1, issue=issue, seq_num=int(seq) if seq else None, pg=fields.get("group info"),
               op_type=fields.get("collective"), ranks=", ".join(map(str, ranks)) or None, first_rank=ranks[0] if ranks else None,
               error_type=error_type, state=fields.get("collective state"),
               world_size=int(world) if world and world.isdigit() else None)
        result.lines_used += used
        n += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Not all ranks joining collective",
              r"Collective (?:sequence number: \d+ has errors|\d+ at entry \d+ errors)",
              r"Input/output mismatch in the collective sequence number: \d",
              r"missed FR dumps from ranks")

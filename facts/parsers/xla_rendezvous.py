"""XLA's in-process rendezvous that did not fill: the threads that drive one collective or one
NCCL clique's set-up (one per local device) wait for each other, and XLA says when some never come.

xla/service/rendezvous.cc AwaitAndLogIfStuck (the words of each XLA generation)::

    This thread has been waiting for `%s` for %d seconds and may be stuck. Expected %d threads to join the rendezvous, but not all of them arrived on time.
    This thread has been waiting for `%s` for %d seconds and may be stuck.          (before the counts)
    This thread has been waiting for %d seconds and may be stuck:                    (older)
    Thread is unstuck! Warning above was a false-positive. Perhaps the timeout is too short.
    Termination timeout for `%s` of %d seconds exceeded. Exiting to ensure a consistent program state. Expected %d threads to join the rendezvous, but only %d of them arrived on time.

Sample content (real line, jax-ml/jax#22740's host0, two processes of 8 GPUs each, whose NCCL
clique's set-up then failed on RoCE)::

    2024-07-29 17:14:59.920189: E external/xla/xla/service/rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; stream=0; run_id=724296073` for 10 seconds and may be stuck. Expected 8 threads to join the rendezvous, but not all of them arrived on time.

Facts: one ``xla_rendezvous_stuck`` per file: the first rendezvous named, the largest expected
count, ``terminated`` when XLA exited on it. A file where every stuck warning was followed by
"Thread is unstuck!" and none terminated yields none (XLA says the warning was a false positive).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import XlaRendezvousStuck  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "xla_rendezvous"

# This thread has been waiting for `initialize clique for rank 6; ...` for 10 seconds and may be stuck. Expected 8 threads ...
# Termination timeout for `all gather RendezvousKey{...}` of 40 seconds exceeded. Exiting to ensure a consistent program state.
_LINE = re.compile(
    r"(?:This thread has been waiting for (?:`(?P<what>[^`\n]{0,400})`? for )?(?P<waited>\d+) seconds and may be stuck"
    r"|Termination timeout (?:for `(?P<twhat>[^`\n]{0,400})`? )?of (?P<twaited>\d+) seconds exceeded"
    r"|(?P<unstuck>Thread is unstuck! Warning above was a false-positive))"
    r"(?:.*?Expected (?P<expected>\d+) threads to join the rendezvous, but (?:only (?P<arrived>\d+) of them|not all of them) arrived)?")


def detect(text: str) -> bool:
    # asked only where SIGNATURES matched (facts/classify.py): its literals say enough
    return any(w in text for w in ("and may be stuck", "consistent program state", "Thread is unstuck!"))


def parse(artefact: Artefact) -> ParseResult:
    fields: dict = {"terminated": False}  # the first rendezvous named, the largest count, whether XLA exited
    first: int | None = None
    stuck = unstuck = 0
    result = ParseResult()
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        result.lines_used += 1
        if m["unstuck"]:
            unstuck += 1
            continue
        terminated = m["twaited"] is not None
        stuck += not terminated
        first = first or n
        fields.setdefault("what", m["what"] or m["twhat"])
        fields.setdefault("waited_s", int(m["waited"] or m["twaited"]))
        if m["expected"]:
            fields["expected"] = max(int(m["expected"]), fields.get("expected") or 0)
        if m["arrived"]:
            fields["arrived"] = int(m["arrived"])
        fields["terminated"] = fields["terminated"] or terminated
    if first is not None and (fields["terminated"] or stuck > unstuck):
        FactBuilder(artefact, result).add(XlaRendezvousStuck, first, **fields)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"seconds and may be stuck|seconds exceeded\. Exiting to ensure a consistent program state|Thread is unstuck! Warning above",)

"""Horovod's stall inspector: tensors that some ranks submitted for a collective and the others
did not, past the stall-check time. Horovod prints it among the job's own output (rank 0's
stderr, under mpirun's ``[1,0]<stderr>:`` or a launcher's prefix), so it is looked for anywhere.

Horovod's coordinator warns when a tensor has waited ``HOROVOD_STALL_CHECK_TIME_SECONDS`` (60 by
default) for the remaining ranks, and with ``HOROVOD_STALL_SHUTDOWN_TIME_SECONDS`` set it ends the
job. Its forms (horovod/common/stall_inspector.cc ``CheckForStalledTensors``; operations.cc before
it; the samples are real, fixtures/artefacts/horovod_stall/)::

    [1,0]<stderr>:[2019-10-09 15:36:43.594972: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remaind
    er of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.
    [1,0]<stderr>:Stalled ranks:
    [1,0]<stderr>:6: [horovod_allreduce.0, horovod_allreduce.1, horovod_allreduce.10, horovod_allreduce.100, horovod_allreduce.101, horovod_allreduce.102 ...]
                                                                                       (horovod/horovod#1442)

- today's source says ``Missing ranks:`` where 0.18/0.19 said ``Stalled ranks:``; a rank past
  the shutdown time is marked ``N!:`` and the message ends ``One or more rank (marked by "!") is
  stalled for longer than N seconds. Will shutdown.``
- 0.16 (operations.cc) listed one stalled tensor a line: ``Stalled ops:<tensor> [missing ranks: 0]``
  (NVIDIA/OpenSeq2Seq#456); before horovod#342 (2018) the ranks that *had* submitted:
  ``<tensor> [ready ranks: 1],`` (horovod/horovod#100).

The ranks listed (or, in the oldest form, left out) are the ones the others wait for: a rank that
stopped, hung, or runs another code path (an evaluation on one rank only).

Facts: ``horovod_stall`` per warning: ``missing_ranks`` ("6", "0, 1, 4"), or ``ready_ranks`` in
the oldest form, ``seconds`` (the stall-check time named), ``shutdown`` and ``tensors`` (names
listed); with ``ready_ranks`` and the job's size in the same file (the launch command's
``horovodrun -np N`` / ``mpirun -np N``), ``job_ranks`` and ``absent_ranks`` (the job's ranks not in
the ready list: the ones waited for); without the size, ``absent_ranks`` are the ranks below the highest ready one
that are not in the list (ranks run 0..N-1: those exist and did not submit; ranks above it may be missing too), so
``[ready ranks: 0, 7, 3, 2, 4, 6]`` of an 8-GPU job (horovod/horovod#364) waits at least for 1 and 5; ``rank`` is
the one rank waited for where exactly one is named or known absent. A warning whose rank lines the paste cut off
still makes a fact without ranks. Empty input, or no such warning: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import HorovodStall  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines, iter_lines_with

KIND = "horovod_stall"

# One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds.
# (a viewer may wrap it anywhere: "... submitted to be reduce" / "d, gathered ...", horovod#2402)
_HEAD = "One or more tensors were submitted to be reduce"
# This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.
_HEAD2 = "different ranks are trying to submit different tensors"
_SECONDS = re.compile(r"for more than (\d{1,9}) seconds")
# Missing ranks:  (stall_inspector.cc)   Stalled ranks:  (0.18/0.19)
_RANKS_HEADER = re.compile(r"^[ \t]*(?:Missing|Stalled) ranks:[ \t]*$")
# 6: [horovod_allreduce.0, horovod_allreduce.1 ...]      3!: [grad_0]
_RANK_LINE = re.compile(r"^[ \t]*(?P<rank>\d{1,7})(?P<bang>!?): \[(?P<rest>.*)$")
# facts/lines.py takes "6: " off a line as srun's task label ("[1,0]<stderr>:6: [..." reads "[..."): the rank is in the raw line
_RAW_RANK = re.compile(r"(?P<rank>\d{1,7})(?P<bang>!?): \[")
# <tensor> [missing ranks: 0, 1, 3, 4]     <tensor> [ready ranks: 5, 6, 3, 1, 4, 0],
_BRACKET = re.compile(r"\[(?P<which>missing|ready) ranks: ?(?P<ranks>\d{1,7}(?:, ?\d{1,7})*)\]")
# the job's size, where the paste keeps the launch command (Horovod's docs, docs/running.rst and docs/mpi.rst):
# horovodrun -np 4 -H localhost:4 python train.py
# mpirun -np 4 -bind-to none -map-by slot -x NCCL_DEBUG=INFO -x LD_LIBRARY_PATH -x PATH -mca pml ob1 -mca btl ^openib python train.py
_LAUNCH = re.compile(r"\b(?:horovodrun|mpirun|mpiexec)\b[^\n]{0,300}?\s-(?:np|n)[ =](?P<n>\d{1,6})\b")
_SHUTDOWN = "Will shutdown."
_WINDOW = 400  # lines a warning's lists may take


def detect(head: str) -> bool:
    # the tensor lines alone (a paste that kept the list and not the sentence above it) are
    # Horovod's own words too: operations.cc wrote " [ready ranks: " / " [missing ranks: " after
    # each tensor's name (horovod/horovod#530: "<tensor> [ready ranks: 5, 6, 3, 1, 4, 0], ")
    return _HEAD in head or _HEAD2 in head or _BRACKET.search(head) is not None


def _ranks(values: set[int]) -> str | None:
    return ", ".join(str(r) for r in sorted(values)) if values else None


def _job_ranks(artefact: Artefact) -> int | None:
    """The rank count the launch command in the same file gives (-np N), the last one when it was run again."""
    size = None
    for _, line in iter_lines_with(("horovodrun", "mpirun", "mpiexec"), artefact):
        if (m := _LAUNCH.search(line)) is not None and int(m["n"]) > 0:
            size = int(m["n"])
    return size


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    size = _job_ranks(artefact)
    starts: list[int] = []  # 0-based lines that begin a warning
    for n, line in iter_lines_with((_HEAD, _HEAD2), artefact):
        # the second sentence of a warning whose head is on one of the two lines above is the same warning
        if _HEAD in line or not any(_HEAD in lines[k] for k in range(max(0, n - 3), n - 1)):
            starts.append(n - 1)
    if not starts:
        # the oldest form's tensor lines without the head sentence (a paste cut above it)
        first = next(iter_lines(_BRACKET, artefact), None)
        if first is None:
            return result
        starts.append(first[0] - 1)
    warnings: list[tuple[int, dict]] = []  # (line, fields) of each warning read, added at the end
    named: dict | None = None  # the fields of the last warning that named its missing ranks
    for s, start in enumerate(starts):
        end = min(starts[s + 1] if s + 1 < len(starts) else len(lines), start + _WINDOW)
        missing: set[int] = set()
        ready: set[int] = set()
        tensors = 0
        shutdown = False
        seconds = _SECONDS.search(" ".join(lines[start:start + 2]).replace("\n", ""))
        in_list = False
        for i in range(start, end):
            line = lines[i]
            if _SHUTDOWN in line:
                shutdown = True
            for m in _BRACKET.finditer(line):
                (missing if m["which"] == "missing" else ready).update(int(r) for r in m["ranks"].split(","))
                tensors += 1
            if _RANKS_HEADER.match(line):
                in_list = True
                continue
            m = _RANK_LINE.match(line) if in_list else None
            if in_list and m is None and line.startswith("["):
                m = _RAW_RANK.search(artefact.raw_line(i + 1))
            if m is not None:
                missing.add(int(m["rank"]))
                shutdown = shutdown or bool(m["bang"])
                # the rank's tensor names: this line and its continuations up to the closing "]"
                body, k = line.split("[", 1)[1], i
                while "]" not in body and k + 1 < end and not lines[k + 1].lstrip().startswith("[") \
                        and not _RANK_LINE.match(lines[k + 1]):
                    k += 1
                    body += lines[k]
                tensors += body.split("]", 1)[0].count(",") + 1
        # the oldest form lists the ranks that did submit: with the job's size known, the others are the laggards;
        # without it, Horovod's ranks being 0..N-1, those below the highest listed that are not listed (a lower bound)
        absent: set[int] = set()
        job = None
        if ready and not missing:
            if size is not None and max(ready) < size:
                absent, job = set(range(size)) - ready, size
            else:
                absent = set(range(max(ready))) - ready
        waited = missing or absent
        result.lines_used += 1
        if not missing and not ready and named is not None:
            # a warning that lists no ranks at all after one that named its missing ranks: Horovod warns again each
            # stall-check interval while the tensors still wait, and a paste cut inside that repeat lost its list
            # (horovod/horovod#1442: rank 6's warning at 15:36:43, the next at 15:39:43 cut in its first sentence):
            # that stall's repeat, counted on the named warning, not a stall of unknown ranks
            named["repeats"] = (named["repeats"] or 0) + 1
            continue
        fields = dict(
            missing_ranks=_ranks(missing), ready_ranks=_ranks(ready), seconds=int(seconds[1]) if seconds else None,
            shutdown=shutdown, tensors=tensors or None, job_ranks=job if absent else None, absent_ranks=_ranks(absent),
            rank=next(iter(waited)) if len(waited) == 1 else None, repeats=None)
        warnings.append((start + 1, fields))
        if fields["missing_ranks"]:
            named = fields
    for line, fields in warnings:
        fb.add(HorovodStall, line, **fields)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"One or more tensors were submitted to be reduce",
              r"different ranks are trying to submit different tensors",
              r"\[(?:missing|ready) ranks: ?\d")

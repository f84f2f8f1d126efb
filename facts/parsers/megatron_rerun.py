"""Megatron's result validation: the verdict its rerun state machine logs after rerunning an
iteration whose result it rejected (a NaN or Inf loss or gradient norm, a spiky loss, with
--rerun-mode validate_results), in a training job's own output.

The state machine (megatron/core/rerun_state_machine.py, validate_result) reruns the iteration in
place on the same GPU; if the result differs there it logs ``Possible transient error``; if it is
the same it saves a checkpoint, exits for a restart on a different GPU, and there logs ``Possible
persistent error`` when that GPU does not reproduce it, ``Correct result (but possible Application
error)`` when it does. Each verdict is one line of ``log_failure`` (``logger.error(f"Rank {rank},
node {node}, device {device}: {message}!")``); sample content in that form (the host and numbers
placeholders; no public paste of these lines was found, the form is the source's)::

    Rank 5, node gpu-node-12, device 5: Possible transient error!
    Rank 5, node gpu-node-07, device 2: Possible persistent error!
    Rank 5, node gpu-node-07, device 2: Correct result (but possible Application error) (found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective)!

Megatron core 0.17 and later (Megatron-LM commit b4e4d961) put the iteration before the colon (``Rank 5, node gpu-node-12, device 5,
iteration #12: Possible transient error!``); both forms are read.

The rank, node and device are of the process that logs the line: for a transient error the GPU
that gave the wrong result, for the two others the different GPU of the second rerun (the
suspect one ran the same rank before the restart).

Facts: ``training_result_validation`` per line (verdict ``transient``, ``persistent`` or
``correct``, rank, host, device, the failed check's message for ``correct``). Text without these
lines yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TrainingResultValidation  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "megatron_rerun"

# Rank 5, node gpu-node-12, device 5: Possible transient error!       (rerun_state_machine.py log_failure)
# mcore >= 0.17 (Megatron-LM commit b4e4d961) puts the iteration before the colon (log_failure: f"Rank {rank}, node {node}, device {device},
# iteration #{it}: {message}!"), as in its other lines:
# ERROR:megatron.core.rerun_state_machine:Rank 3, node core-ci-test-1779833921-task-1-0, device 3, iteration #3: First rerun: unexpected result is reproducible within the tolerance (nan = nan). Need to rerun on a different GPU to verify cor    (NVIDIA/Megatron-LM#5026, the form; not a verdict)
_VERDICT = re.compile(r"(?<![A-Za-z])Rank (?P<rank>\d+), node (?P<host>[^\s,]{1,255}), device (?P<dev>\d+)"
                      r"(?:, iteration #?-?\d{1,12})?: "
                      r"(?:Possible (?P<v>transient|persistent) error!"
                      r"|Correct result \(but possible Application error\)(?: \((?P<msg>[^\n]{0,500})\))?!)")
_SIGNATURE = r"Possible (?:transient|persistent) error!|Correct result \(but possible Application error\)"


def detect(head: str) -> bool:
    return ("Possible " in head or "Correct result" in head) and _VERDICT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_VERDICT, artefact):
        result.lines_used += 1
        fb.add(TrainingResultValidation, n, verdict=m["v"] or "correct", rank=int(m["rank"]), host=m["host"],
               device=int(m["dev"]), message=m["msg"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_SIGNATURE,)

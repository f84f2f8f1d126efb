"""What the start-up readers share (:mod:`vllm_start`, :mod:`sglang_start`, :mod:`tensorrt_llm_start`): which step a
line names, and the capture limit of a start-up log that stops before its server says it is ready.

Each reader's ``_STEP`` is one alternation of named groups ``s0`` .. ``s<k>``, a step each in start-up order; the
furthest step logged is where the start-up got to. A log that ends there, its server never seen ready, is a start-up
that hung at its next step or a log cut short: either way it does not show the server working (``cut_short``: the
verdict cannot be healthy on it). Not a reader (no KIND).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult


def step_of(m: re.Match[str]) -> int:
    """The step a match of a reader's ``_STEP`` names: the index of its group ``s<k>`` that matched."""
    return int(next(k for k, v in m.groupdict().items() if v is not None)[1:])


def stopped_short(artefact: Artefact, result: ParseResult, program: str, line: int, reached: str, ready: str,
                  next_step: str) -> None:
    """Add the ``cut_short`` limit of a start-up log whose furthest step, ``reached`` at ``line``, is its last."""
    FactBuilder(artefact, result).limit(
        line, "cut_short", f"{program}'s start-up log reaches {reached} (line {line}) and stops there, the server not seen "
        f"ready ('{ready}'): a start-up that hung at its next step, {next_step}, or a log cut short")

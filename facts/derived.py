"""Facts that rules derive (``then.assert``) for later rules: each carries ``sources``,
the ids of the facts that produced it, so a finding can quote the original lines."""
from __future__ import annotations

from stethoscope.facts.kinds.derived import (  # noqa: F401 - the fact classes live in facts/kinds
    FactSummary, ParseProblemFact, RdmaExpected, UnexplainedFact,
)

"""The names the tests and older callers import; the pipeline itself is engine/pipeline.py."""
from __future__ import annotations

from stethoscope.engine.pipeline import (  # noqa: F401 - re-exported
    Evaluator,
    Observation,
    diagnose,
    diagnose_bundle,
    evaluate,
    evaluate_all,
    parse_artefacts,
)

#: the observation of a bundle (was a class of its own)
Observed = Observation

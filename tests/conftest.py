from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def ruleset():
    from stethoscope.engine.ruleengine.loader import load_rules

    rs = load_rules()
    assert not rs.errors, rs.errors
    return rs


@pytest.fixture
def pipeline_steps(monkeypatch) -> list[str]:
    """The steps of engine/pipeline.py a diagnosis ran, in order: each combiner's name, then
    'localise' (tests/test_pipeline.py, tests/live/test_live_twin.py)."""
    from stethoscope.engine import pipeline

    seen: list[str] = []

    def wrap(name, fn):
        def run(combined):
            seen.append(name)
            return fn(combined)
        return name, run

    monkeypatch.setattr(pipeline, "COMBINERS", tuple(wrap(n, f) for n, f in pipeline.COMBINERS))
    real = pipeline.localise

    def localise(*a, **k):
        seen.append("localise")
        return real(*a, **k)

    monkeypatch.setattr(pipeline, "localise", localise)
    return seen

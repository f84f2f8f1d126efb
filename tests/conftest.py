from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def ruleset():
    from stethoscope.engine.loader import load_rules

    rs = load_rules()
    assert not rs.errors, rs.errors
    return rs

"""The project's vocabulary read from ``knowledge/``: causes, components, actions."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


from stethoscope.engine import yamlio


@dataclass(frozen=True)
class Vocabulary:
    components: dict[str, str]
    causes: dict[str, str]
    severities: tuple[str, ...]
    actions: dict[str, str]


def _load(name: str) -> dict:
    text = resources.files("stethoscope.knowledge").joinpath(name).read_text(encoding="utf-8")
    return yamlio.safe_load(text)


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    tax = _load("taxonomy.yaml")
    acts = _load("actions.yaml")
    return Vocabulary(
        components=dict(tax["components"]),
        causes=dict(tax["causes"]),
        severities=tuple(tax["severities"]),
        actions=dict(acts["actions"]),
    )


POLARITIES = ("error", "warning", "state", "info")


@dataclass(frozen=True)
class Polarity:
    """What a fact kind means for the verdict (knowledge/fact_polarity.yaml)."""

    polarity: str
    component: str | None = None
    unread_reason: str | None = None


@lru_cache(maxsize=1)
def load_polarity() -> dict[str, Polarity]:
    """kind -> its declared polarity; checked against the vocabulary by tests/test_polarity.py."""
    raw = _load("fact_polarity.yaml")["kinds"]
    return {k: Polarity(**v) for k, v in raw.items()}


@dataclass(frozen=True)
class ArtefactCoverage:
    """What one artefact kind checks (knowledge/coverage.yaml)."""

    component: str
    covers: tuple[str, ...] = ()
    document: bool = False


@lru_cache(maxsize=1)
def load_coverage() -> dict[str, ArtefactCoverage]:
    raw = _load("coverage.yaml")["kinds"]
    return {k: ArtefactCoverage(component=v["component"], covers=tuple(v.get("covers") or ()),
                               document=bool(v.get("document"))) for k, v in raw.items()}

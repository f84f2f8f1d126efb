"""Parser modules are found by scanning ``facts/parsers`` (a new artefact kind is one file).

A module is a parser when it defines ``KIND``, ``detect`` and ``parse``; other modules there hold
what several parsers share. Fact classes live in facts/kinds, every module of which is imported
here so that each kind is registered.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from types import ModuleType

import stethoscope.facts.kinds as _kinds
import stethoscope.facts.parsers as _pkg
from stethoscope.facts.model import FACT_KINDS, Fact

# every fact class registers its kind where it is defined (facts/kinds): the derived, live-only and
# monitoring-stack kinds too, which no parser module imports
for _info in pkgutil.iter_modules(_kinds.__path__):
    importlib.import_module(f"{_kinds.__name__}.{_info.name}")


def fact_kinds() -> dict[str, type[Fact]]:
    """Every fact kind (facts/kinds, all imported above): what the rule loader checks rules
    against, without importing a reader."""
    return FACT_KINDS


@lru_cache(maxsize=1)
def load_parsers() -> tuple[ModuleType, ...]:
    found: list[ModuleType] = []
    for info in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        mod = importlib.import_module(f"{_pkg.__name__}.{info.name}")
        if all(hasattr(mod, a) for a in ("KIND", "detect", "parse")) and not getattr(mod, "FALLBACK", False):
            found.append(mod)
    kinds = [m.KIND for m in found]
    dup = {k for k in kinds if kinds.count(k) > 1}
    if dup:
        raise RuntimeError(f"artefact kinds defined twice: {sorted(dup)}")
    return tuple(found)


@lru_cache(maxsize=1)
def load_fallbacks() -> tuple[ModuleType, ...]:
    """Parsers that read a file only when no other parser recognised it (``FALLBACK = True``)."""
    load_parsers()
    out = []
    for info in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        mod = importlib.import_module(f"{_pkg.__name__}.{info.name}")
        if getattr(mod, "FALLBACK", False) and all(hasattr(mod, a) for a in ("KIND", "detect", "parse")):
            out.append(mod)
    return tuple(out)


def parsers_by_kind() -> dict[str, ModuleType]:
    return {m.KIND: m for m in load_parsers()}

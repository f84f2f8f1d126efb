"""Issue 12's layout: every fact class lives in facts/kinds, by family; parsers and the engine
build facts but define no fact class (their modules may re-export the classes they build)."""
import ast
from pathlib import Path

from stethoscope.facts.model import FACT_KINDS, Fact
from stethoscope.facts.registry import load_parsers

ROOT = Path(__file__).resolve().parent.parent
KINDS = "stethoscope.facts.kinds."


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_registered_fact_class_is_defined_in_facts_kinds():
    load_parsers()
    import stethoscope.engine.pipeline  # noqa: F401 - the engine's summaries and their kinds

    classes = set(FACT_KINDS.values()) | {c for c in _subclasses(Fact) if c.__module__.startswith("stethoscope.")}
    outside = sorted(f"{c.__module__}.{c.__qualname__}" for c in classes if not c.__module__.startswith(KINDS))
    assert not outside, f"define these in facts/kinds/<family>.py and import them from there: {outside}"


def test_no_module_outside_facts_kinds_defines_a_fact_class():
    """Read from the source: a class whose base is a fact class, defined outside facts/kinds
    (a parser module nobody has imported yet counts too). Bases are matched by name against
    the fact classes: the kinds' own names and Fact."""
    load_parsers()
    names = {c.__name__ for c in _subclasses(Fact) if c.__module__.startswith(KINDS)} | {"Fact"}
    bad = []
    for folder in ("facts", "engine"):
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT)
            if rel.parts[:2] == ("facts", "kinds") or rel == Path("facts/model.py"):
                continue
            for node in ast.parse(p.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in names for b in node.bases):
                    bad.append(f"{rel}: {node.name}")
    assert not bad, f"a fact class belongs in facts/kinds/<family>.py (its module imports it from there): {bad}"


def test_every_python_package_of_the_tree_is_in_pyprojects_package_list():
    """A sub-package missing from pyproject.toml's explicit list is left out of the wheel: the
    installed tool then fails at import (facts/knowledge/, session 48). Every folder of facts/,
    engine/ and cli/ holding an __init__.py is listed, and nothing listed is missing."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    tree = {"stethoscope." + ".".join(p.parent.relative_to(ROOT).parts)
            for top in ("facts", "engine", "cli") for p in (ROOT / top).rglob("__init__.py")
            if "__pycache__" not in p.parts}
    assert tree - listed == set(), f"add to [tool.setuptools] packages: {sorted(tree - listed)}"
    assert {p for p in listed if p.split(".")[1] in ("facts", "engine", "cli")} <= tree

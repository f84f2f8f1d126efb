"""Every module's docstring examples run as doctests (STYLE: a parser's examples run as doctests): the kinds
nccl_warn_kinds gives its sample messages, and whatever example a module shows, so that a change that breaks one fails
here. A docstring's sample of a terminal session that is not an example to run says ``# doctest: +SKIP``."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("stethoscope.facts", "stethoscope.engine", "stethoscope.cli")


def _modules() -> list[str]:
    names = []
    for pkg in PACKAGES:
        for info in pkgutil.walk_packages(importlib.import_module(pkg).__path__, pkg + "."):
            names.append(info.name)
    return sorted(names)


def _with_examples() -> list[str]:
    finder = doctest.DocTestFinder()
    return [n for n in _modules() if any(t.examples for t in finder.find(importlib.import_module(n)))]


WITH_EXAMPLES = _with_examples()


def test_modules_show_examples():
    # nccl_warn_kinds' 36 sample messages and their kinds at least (round rW7 split it by area; its examples guard that)
    assert "stethoscope.facts.parsers.nccl_warn_kinds" in WITH_EXAMPLES, WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name):
    got = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert got.failed == 0, f"{name}: {got.failed} of {got.attempted} examples failed"

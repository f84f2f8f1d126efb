"""A small bundle written from text and diagnosed in-process: the cascade, accounting and
never-false-healthy tests build one from a few files each (``import small_bundle``, as
tests/test_fuzz_parsers.py imports tests/fuzzing.py)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.engine.pipeline import diagnose_bundle


def write(where: Path, files: dict[str, str]) -> Path:
    """``{path inside the bundle: text}`` written under ``where``/b (made here; one bundle a test)."""
    bundle = where / "b"
    bundle.mkdir(parents=True)
    for rel, text in files.items():
        p = bundle / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return bundle


def diagnose(where: Path, files: dict[str, str], ruleset):
    """The report of the bundle ``files`` make (see :func:`write`), read in one process."""
    return diagnose_bundle(write(where, files), ruleset, jobs=1)

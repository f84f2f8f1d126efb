"""Never a false HEALTHY, audited on fragments: lines of the readers' real fixtures pasted alone.

A ticket often holds a few lines of an artefact. A fragment that shows nothing of a component's
state (a header, a version line, the head of a report whose body was cut) must not make a bundle
HEALTHY. This samples windows of ``--lines`` consecutive non-blank lines from every file under
fixtures/artefacts/, diagnoses each alone (one file in an otherwise empty bundle, in-process,
``jobs=1``) and prints the verdict counts, then every window that read HEALTHY with the components
it claimed checked, for a person to judge: a claim the lines do not support is a bug of the
reader's ``checks`` / ``context`` in knowledge/coverage.yaml (tests/test_never_false_healthy.py
keeps each one found).

    .venv/bin/python bench/fragment_audit.py --samples 600 --seed 1             # single lines
    .venv/bin/python bench/fragment_audit.py --samples 700 --seed 5 --lines 3   # three-line windows

Session 16's rounds: 600 single lines (seed 1) 14 HEALTHY, 900 (seed 11) 17, 700 three-line
windows (seed 5) 26; the false claims among them were fixed (commits b52003b, 8c80ff6, f08c934).
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".md", ".py", ".yaml", ".gz", ".tgz", ".zip", ".tar", ".xz", ".bz2"}


def windows(seed: int, per_file: int, size: int) -> list[tuple[Path, str]]:
    rng = random.Random(seed)
    out = []
    for p in sorted((ROOT / "fixtures" / "artefacts").rglob("*")):
        if not p.is_file() or p.suffix in SKIP:
            continue
        try:
            rows = [ln for ln in p.read_text(errors="replace").split("\n") if ln.strip()]
        except OSError:
            continue
        if len(rows) < size:
            continue
        for _ in range(per_file):
            i = rng.randrange(0, len(rows) - size + 1)
            out.append((p, "\n".join(rows[i:i + size])))
    rng.shuffle(out)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=600, help="windows diagnosed (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=int, default=1, help="consecutive non-blank lines a window (default 1)")
    ap.add_argument("--per-file", type=int, default=3, help="windows drawn from each fixture (default 3)")
    a = ap.parse_args()
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    sample = windows(a.seed, a.per_file, a.lines)[:a.samples]
    verdicts: collections.Counter[str] = collections.Counter()
    healthy = []
    with tempfile.TemporaryDirectory() as d:
        paste = Path(d) / "paste.txt"
        for src, text in sample:
            paste.write_text(text + "\n")
            rep = diagnose_bundle(d, rules, jobs=1)
            verdicts[rep.verdict] += 1
            if rep.verdict == "healthy":
                healthy.append((src.relative_to(ROOT / "fixtures" / "artefacts"), text, sorted({c.component for c in rep.checked})))
    print(f"{len(sample)} windows of {a.lines} line(s), seed {a.seed}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    for src, text, checked in healthy:
        print(f"\nHEALTHY (checked: {', '.join(checked)}) from {src}:")
        for ln in text.split("\n"):
            print(f"    {ln[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
    .venv/bin/python bench/fragment_audit.py --paths fixtures/harvest/cases --lines 1-5 --per-file 4 --samples 3000 --seed 17

``--paths`` draws from other files or folders (the harvested cases, a corpus outside the tree);
``--lines A-B`` draws each window's size between A and B.

``--mix append|insert|both`` pastes two windows of two artefact kinds into one file, as tickets do
(session 26, A8): ``append`` the second after the first with a blank line between (a kernel window,
then an nvidia-smi one), ``insert`` the second inside the first at a line drawn between its rows (a
traceback among NCCL lines), ``both`` either, drawn per pair. A window's kind is its folder under
fixtures/artefacts, elsewhere its file name's first word (``dmesg``, ``nvidia-smi`` -> ``nvidia``);
the two windows come from files of different kinds. ``--samples`` then counts pairs.

    .venv/bin/python bench/fragment_audit.py --mix both --lines 1-6 --per-file 2 --samples 1200 --seed 119

Session 16's rounds: 600 single lines (seed 1) 14 HEALTHY, 900 (seed 11) 17, 700 three-line
windows (seed 5) 26; the false claims among them were fixed (commits b52003b, 8c80ff6, f08c934).
Session 17's and 18's rounds (harvest cases, the dev corpus, fixtures/artefacts, 1-5 lines): bench/README.md.
"""
from __future__ import annotations

import argparse
import collections
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".md", ".py", ".yaml", ".gz", ".tgz", ".zip", ".tar", ".xz", ".bz2"}


def files(paths: list[str]) -> list[Path]:
    """The files under ``paths`` (files or folders, relative to the repository root or absolute),
    without documents, code and archives."""
    out: list[Path] = []
    for s in paths:
        p = Path(s) if Path(s).is_absolute() else ROOT / s
        out += [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())
    return [p for p in dict.fromkeys(out) if p.suffix not in SKIP]


def windows(seed: int, per_file: int, sizes: range, paths: list[str]) -> list[tuple[Path, str]]:
    rng = random.Random(seed)
    out = []
    for p in files(paths):
        try:
            rows = [ln for ln in p.read_text(errors="replace").split("\n") if ln.strip()]
        except OSError:
            continue
        for _ in range(per_file):
            size = rng.choice(sizes) if len(sizes) > 1 else sizes[0]  # one size: session 16's draws
            if len(rows) < size:
                continue
            i = rng.randrange(0, len(rows) - size + 1)
            out.append((p, "\n".join(rows[i:i + size])))
    rng.shuffle(out)
    return out


def kind(p: Path) -> str:
    """The artefact kind a file holds, as far as its path says: its folder under fixtures/artefacts
    (``nccl_log``), elsewhere its name's first word (``nvidia-smi-after-fix.txt`` -> ``nvidia``)."""
    parts = p.parts
    if "artefacts" in parts and parts.index("artefacts") + 2 < len(parts):
        return parts[parts.index("artefacts") + 1]
    return re.split(r"[-_.\d]", p.name.lower(), maxsplit=1)[0] or p.name


def mixed(seed: int, mode: str, pool: list[tuple[Path, str]]) -> list[tuple[str, str]]:
    """Pairs of windows of ``pool`` (already shuffled) from files of two kinds, pasted into one text:
    (what was pasted, the text). Each window is used once."""
    rng = random.Random(seed * 7919 + 1)
    out: list[tuple[str, str]] = []
    rest = list(pool)
    while len(rest) >= 2:
        (pa, a), rest = rest[0], rest[1:]
        j = next((i for i, (pb, _) in enumerate(rest) if kind(pb) != kind(pa)), None)
        if j is None:
            break
        pb, b = rest.pop(j)
        how = mode if mode != "both" else rng.choice(("append", "insert"))
        rows = a.split("\n")
        if how == "insert" and len(rows) > 1:
            at = rng.randrange(1, len(rows))
            text = "\n".join(rows[:at] + b.split("\n") + rows[at:])
            shown = f"{_shown(pb)} inside {_shown(pa)} after its line {at}"
        else:
            text = a + "\n\n" + b
            shown = f"{_shown(pa)}, then {_shown(pb)}"
        out.append((shown, text))
    return out


def _sizes(arg: str) -> range:
    lo, _, hi = arg.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def _shown(p: Path) -> Path:
    return p.relative_to(ROOT) if p.is_relative_to(ROOT) else p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=600, help="windows diagnosed (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=_sizes, default=range(1, 2),
                    help="consecutive non-blank lines a window: N, or A-B for a size drawn per window (default 1)")
    ap.add_argument("--per-file", type=int, default=3, help="windows drawn from each fixture (default 3)")
    ap.add_argument("--paths", nargs="+", default=["fixtures/artefacts"],
                    help="files or folders to draw from (default fixtures/artefacts)")
    ap.add_argument("--mix", choices=("append", "insert", "both"),
                    help="paste two windows of two kinds into one file (append, insert, or either per pair)")
    a = ap.parse_args()
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    drawn = windows(a.seed, a.per_file, a.lines, a.paths)
    sample = (mixed(a.seed, a.mix, drawn) if a.mix else [(str(_shown(p)), t) for p, t in drawn])[:a.samples]
    verdicts: collections.Counter[str] = collections.Counter()
    healthy = []
    with tempfile.TemporaryDirectory() as d:
        paste = Path(d) / "paste.txt"
        for src, text in sample:
            paste.write_text(text + "\n")
            rep = diagnose_bundle(d, rules, jobs=1)
            verdicts[rep.verdict] += 1
            if rep.verdict == "healthy":
                healthy.append((src, text, sorted({c.component for c in rep.checked})))
    size = f"{a.lines[0]}-{a.lines[-1]}" if len(a.lines) > 1 else a.lines[0]
    what = f"pairs ({a.mix}) of windows" if a.mix else "windows"
    print(f"{len(sample)} {what} of {size} line(s), seed {a.seed}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    for src, text, checked in healthy:
        print(f"\nHEALTHY (checked: {', '.join(checked)}) from {src}:")
        for ln in text.split("\n"):
            print(f"    {ln[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

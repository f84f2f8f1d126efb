"""Every regex of every reader against long hostile lines: which backtrack (issue 13, bounded time).

A benchmark script, not a test. For each compiled pattern of each reader module (and of the
modules the readers share), up to three lines of its own reader's real fixtures that it matches
are made into long lines, each cut at ``--chars``: the line repeated (with and without a space),
its second half repeated, a run of spaces put in its middle, the line repeated without its last
character. ``pattern.search`` runs on each under a ``--limit`` second alarm (Python's regex
engine checks for signals while it backtracks). A pattern that needs longer on any of them is
printed with the line it came from: quadratic or worse in the line's length, it would hold a
diagnosis for minutes on a line of the 1 MiB the bundle reader keeps (facts/limits.py).

    .venv/bin/python bench/redos.py                  # 120,000-character lines, 2 s each
    .venv/bin/python bench/redos.py --chars 30000 --limit 1

The usual cure: a lazy run before an optional or repeated part (``(?P<msg>.*?)\\s*$``,
``proc'd: (.*?)\\s+errors:``) bounded (``.{0,300}?``) or made greedy up to a non-space
(``(?:.*\\S)?``); tests/fuzzing.py's time limit (10 s an input) catches what this misses.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzing  # noqa: E402


def variants(line: str, chars: int) -> list[str]:
    h = len(line) // 2
    tail = line[h:] or line
    # and a run of blanks before the last word with the line's end kept after it (a lazy last column before
    # ``\s*$`` scans such a run once per step into it: R4, session 18, slurm_scheduler _N_ROW 53 s)
    w, run = line.rstrip().rfind(" ") + 1 or h, " " * max(0, chars - len(line))
    return [v[:chars] for v in (line * (chars // max(1, len(line)) + 1), (line + " ") * (chars // (len(line) + 1) + 1),
                                line[:h] + tail * (chars // len(tail) + 1), line[:h] + " " * chars + line[h:],
                                line[:-1] * (chars // max(1, len(line) - 1) + 1))] + [line[:w] + run + line[w:]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=120_000, help="length of each hostile line")
    ap.add_argument("--limit", type=float, default=2.0, help="seconds a search may take")
    args = ap.parse_args()
    import stethoscope.facts.parsers as pkg

    by_kind: dict[str, list[str]] = {}
    for seed in fuzzing.corpus():
        for kind in seed.owners:
            by_kind.setdefault(kind, []).extend(ln for ln in fuzzing.decode(seed.data).splitlines() if ln.strip())
    every = [ln for lines in by_kind.values() for ln in lines]
    t0, searches, seen, slow = time.perf_counter(), 0, set(), []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        own = by_kind.get(getattr(mod, "KIND", ""), [])
        for name, pat in sorted(vars(mod).items()):
            if not isinstance(pat, re.Pattern) or id(pat) in seen:
                continue
            seen.add(id(pat))
            pool = own[:3000] or every[:20000]
            lines = [ln for ln in pool if pat.search(ln)][:3]
            worst, where = 0.0, ""
            for line in lines:
                for v in variants(line, args.chars):
                    searches += 1
                    t = time.perf_counter()
                    try:
                        with fuzzing.time_limit(args.limit):
                            pat.search(v)
                    except fuzzing.Slow:
                        worst, where = args.limit, line
                        break
                    if time.perf_counter() - t > worst:
                        worst, where = time.perf_counter() - t, line
                if worst >= args.limit:
                    break
            if worst >= args.limit:
                slow.append((info.name, name, where))
    print(f"{len(seen)} patterns, {searches} searches of {args.chars:,}-character lines in "
          f"{time.perf_counter() - t0:.0f} s; {len(slow)} took more than {args.limit:g} s:")
    for mod, name, line in slow:
        print(f"  {mod}.{name:24} {line[:90]!r}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())

"""What single passes over a bundle's text cost next to ``grep`` (issue 12: the floor under 10x grep).

Issue 12 asks for ``steth diagnose`` within 10x of ``grep -rcE`` over the same files. This prints,
in one run on one synthetic bundle (bench/synth_bundle.py), the wall time of ``grep -rcE`` with
bench_diagnose.py's pattern beside the time one CPython process needs for each single step that
every file of a diagnosis goes through, each as a ratio to grep:

- reading the files into text (open, read, UTF-8 decode),
- one ``str.count`` of a literal (a memchr-speed pass: the cheapest Python pass there is),
- ``str.split('\\n')`` (what any per-line reading costs before a line is looked at),
- one RE2 set of one literal signature (google-re2's ``Set.Match``: a DFA pass, no skipping ahead),
- the classifier: the RE2 set of every reader's signatures (facts/classify.py),
- the wrapper gate (facts/lines.normalise) after the classifier's set, which answers its questions
  (PLAIN_GATE, UNCUT_GATE are members of the set: parse_one passes the answers), and alone,
- the whole per-file reading (engine/parse_pool.parse_one: classifier, gate, readers, facts).

Each in-process step is the best of ``--repeat`` passes over texts already in memory (the first
pass builds RE2's DFA, as each worker of a diagnosis does once), one core, like grep. The sum of
the steps a file must take is a lower bound on the readers' share of a diagnosis: if it alone is
near 10x grep, 10x needs those passes merged into one or moved out of Python.

    .venv/bin/python bench/scan_floor.py                 # 64 nodes (~84 MB)
    .venv/bin/python bench/scan_floor.py --nodes 16 --repeat 3
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_diagnose import GREP_PATTERN  # noqa: E402  (the same pattern as the 10x target's grep)


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import re2

    from stethoscope.engine import parse_pool
    from stethoscope.engine.pipeline import load_rules
    from stethoscope.engine.ruleengine import routing
    from stethoscope.facts import classify
    from stethoscope.facts.classify import MAX_MEM, classifier
    from stethoscope.facts.lines import UNCUT_GATE, normalise
    from stethoscope.facts.parsers.base import Artefact

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(HERE / "synth_bundle.py"), tmp, "--nodes", str(args.nodes)],
                       check=True, stdout=subprocess.DEVNULL)
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file())

        def grep() -> None:
            res = subprocess.run(["grep", "-rcE", GREP_PATTERN, tmp], capture_output=True, text=True)
            if res.returncode > 1:
                sys.exit(f"grep failed: {res.stderr}")

        grep()  # the page cache warm for both
        grep_s = _best(grep, args.repeat)
        read_s = _best(lambda: [p.read_text(errors="replace") for p in files], args.repeat)
        texts = [(str(p.relative_to(tmp)), p.read_text(errors="replace")) for p in files]
    mb = sum(len(t) for _, t in texts) / 1e6

    options = re2.Options()
    options.max_mem = MAX_MEM
    one = re2.Set.SearchSet(options)
    one.Add('"entries"')  # torch_flight_recorder's signature: a plain literal
    one.Compile()
    cls = classifier()
    router = routing.router_for(load_rules().rules)
    answers = []  # the wrapper gate's, from the set's pass (parse_one: Classifier.scan)
    for _, t in texts:
        wrapped = cls.scan(t)[1]
        answers.append((t, not wrapped, classify.gate(t, UNCUT_GATE)))
    classify.forget()

    def parse_all() -> None:
        for path, text in texts:
            parse_pool.parse_one(Artefact(path=path, text=text, node=path.split("/")[0]), router)

    steps: list[tuple[str, object]] = [
        ("str.count of one literal", lambda: [t.count("NVRM: Xid") for _, t in texts]),
        ("str.split on newlines", lambda: [t.split("\n") for _, t in texts]),
        ("RE2 set of one literal", lambda: [one.Match(t) for _, t in texts]),
        ("classifier: RE2 set of every signature", lambda: [cls.candidates(t) for _, t in texts]),
        ("wrapper gate after the set (normalise)", lambda: [normalise(t, plain, [], uncut) for t, plain, uncut in answers]),
        ("lines.normalise alone (its own pass)", lambda: [normalise(t) for _, t in texts]),
        ("whole reading (parse_pool.parse_one)", parse_all),
    ]
    print(f"{args.nodes} nodes, {len(texts)} files, {mb:.1f} MB; one process, one core; best of {args.repeat}")
    print(f"\n{'step':42s} {'s':>8s} {'x grep':>8s} {'MB/s':>8s}")
    print(f"{'grep -rcE (its process, reading the files)':42s} {grep_s:8.3f} {1:8.1f} {mb / grep_s:8.0f}")
    print(f"{'read the files into text':42s} {read_s:8.3f} {read_s / grep_s:8.1f} {mb / read_s:8.0f}")
    for name, fn in steps:
        fn()  # the first pass builds the DFAs and caches
        s = _best(fn, args.repeat)
        print(f"{name:42s} {s:8.3f} {s / grep_s:8.1f} {mb / s:8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

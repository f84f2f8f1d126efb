"""Check that no shipped rule makes durable-rules read past a pattern's join tests.

durable-rules 2.0.28 (src/rules/events.c, reduceExpressionSequence) skips forward to the next
OP_END when an ``$and`` group short-circuits, after stepping past the failed test: when that test
was the group's last, the skip starts beyond the group's own OP_END and reads whatever memory
follows until it meets an OP_END byte, and a SIGSEGV in assert_fact when it walks off the heap
first (the crashes of sessions 26-27). engine/ruleengine/session.py ends every pattern that has a
join test with a group (``_close_joins``) so that the skip stops inside the sequence.

This script builds durable's C engine from its source with that loop bounded (an out-of-bounds
step prints OVERRUN and aborts), puts the build first on sys.path and runs every rule file's
cases (tests/rules) under it, in this process. It prints the figures and exits 0 when no overrun
occurred; on one it prints OVERRUN and the process aborts (exit status 134).

    pip download --no-binary :all: --no-deps durable_rules==2.0.28 -d /tmp/dr && tar xzf /tmp/dr/*.tar.gz -C /tmp/dr
    .venv/bin/python bench/durable_overrun.py --source /tmp/dr/durable_rules-2.0.28 [--runs 3]

(gcc and the Python headers are needed; nothing here runs in the tests.)
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_SKIP = """            while (currentExpression->operator != OP_END) {
                ++*i;
                currentExpression = &exprs->expressions[*i];
            }"""
_BOUNDED = """            while (currentExpression->operator != OP_END) {
                ++*i;
                if (*i >= exprs->length) {
                    fprintf(stderr, "OVERRUN: a short-circuit skipped past the end of a sequence of %d\\n", exprs->length);
                    abort();
                }
                currentExpression = &exprs->expressions[*i];
            }"""


def build(source: Path, out: Path) -> Path:
    src = out / "src"
    shutil.copytree(source / "src", src)
    events = src / "rules" / "events.c"
    text = events.read_text()
    if text.count(_SKIP) != 1:
        sys.exit(f"durable_overrun: {events}: the short-circuit loop of 2.0.28 was not found once")
    events.write_text("#include <stdio.h>\n#include <stdlib.h>\n" + text.replace(_SKIP, _BOUNDED))
    target = out / ("durable_rules_engine" + sysconfig.get_config_var("EXT_SUFFIX"))
    c = [str(src / "rulespy" / "rules.c")] + [str(src / "rules" / f"{n}.c") for n in ("json", "rete", "state", "events", "regex")]
    subprocess.run(["gcc", "-O1", "-g", "-fPIC", "-shared", "-w", f"-I{sysconfig.get_paths()['include']}",
                    f"-I{src / 'rules'}", *c, "-o", str(target)], check=True)
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, required=True, help="durable_rules 2.0.28's unpacked source")
    ap.add_argument("--runs", type=int, default=1, help="passes over every rule file (default 1)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        built = build(a.source, Path(tmp))
        sys.path.insert(0, str(built.parent))
        import durable_rules_engine

        assert Path(durable_rules_engine.__file__).parent == built.parent, durable_rules_engine.__file__
        from stethoscope.engine.ruleengine.loader import load_rules
        from stethoscope.engine.ruletests import discover, run_file

        rules = load_rules()
        files = discover(ROOT / "tests" / "rules")
        cases = 0
        for _ in range(a.runs):
            for f in files:
                cases += len(run_file(f, rules))
        print(f"durable_overrun: built in {tmp} with the skip bounded; {a.runs} pass(es) over {len(files)} rule "
              f"files, {cases} case runs (each under durable and the reference): no overrun "
              f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()

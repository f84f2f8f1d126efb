"""Where a bench node's reading time goes, reader by reader (a benchmark that prints figures).

Writes a small bench bundle (bench/synth_bundle.py), then reads each file of its nodes the way
``steth diagnose`` does (engine/parse_pool.parse_one with the rules' router) and measures, in
CPU ms per node (the best of ``--repeat`` passes, so that other work on the machine counts less):

- ``parse_one`` per file kind (the whole per-file cost),
- the classifier's RE2 set scan, and each reader's ``detect`` it asks (a reader whose
  signature occurs in a file it does not own, and whose ``detect`` is slow, shows here: a
  ``detect`` that ran a regex over every blank of each NCCL log once cost 60 ms a node),
- each reader's ``parse``, and the wrapper gate (facts/lines.normalise) as parse_one runs it: given
  the answers of the classifier's set (its PLAIN_GATE and UNCUT_GATE members), so without a pass
  of its own (normalise alone, as a caller without the set runs it, shown beside it),
- what the parse pool's pipe costs: the FileResults pickled (a worker) and unpickled (the parent).

``--phases`` measures instead where parse_one's time goes as it runs (in place, each file after the one
before it, as a worker reads a chunk: engine/parse_pool.parse_items, its small files scanned ahead by the set), the
classifier's set (its scans ahead included), normalise, each reader's parse (FactBuilder.add
inside them shown apart too), every detect, and parse_one's own steps after the readers; then the facts it
keeps by kind, how many of them some rule pattern's constant tests accept, and what building, pickling and
unpickling them costs. The set costs more in place than scanned alone (its DFA's states are evicted by the
readers' work between two files: 6.2-6.7 against 3.8 CPU ms a node, bench/speed_rR7.md); a chunk's small files
are scanned back to back before their readers run for that reason (bench/speed_rV6.md).

Run it after adding a reader or a signature; compare with the same run on the commit before
(``PYTHONPATH`` to a worktree of it):

    .venv/bin/python bench/reader_costs.py                 # 4 nodes, 5 passes
    .venv/bin/python bench/reader_costs.py --nodes 8 --repeat 3
    .venv/bin/python bench/reader_costs.py --phases        # parse_one's phases in place, kept facts by kind
    .venv/bin/python bench/reader_costs.py --phases --files 'train/rank*.log'   # the same over some files only
"""
from __future__ import annotations

import argparse
import collections
import fnmatch
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _best(fn, repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--phases", action="store_true", help="parse_one's phases as it runs, and the facts it keeps")
    ap.add_argument("--files", default="*", help="only the nodes' files whose path below the node matches this glob "
                    "(e.g. 'train/rank*.log': a bench node's 8 rank logs, 46 kB, cost in place about what its 4 nccl-tests "
                    "logs, 700 kB, do: bench/speed_rT7.md)")
    args = ap.parse_args()

    from stethoscope.engine import parse_pool
    from stethoscope.engine.pipeline import load_rules
    from stethoscope.engine.ruleengine import routing
    from stethoscope.facts import classify
    from stethoscope.facts.classify import classifier
    from stethoscope.facts.lines import UNCUT_GATE, normalise
    from stethoscope.facts.parsers.base import Artefact

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(HERE / "synth_bundle.py"), tmp, "--nodes", str(args.nodes)],
                       check=True, stdout=subprocess.DEVNULL)
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file())
        texts = [(str(p.relative_to(tmp)), p.read_text(errors="replace")) for p in files
                 if fnmatch.fnmatchcase(str(p.relative_to(tmp)).split("/", 1)[1], args.files)]
    router = routing.router_for(load_rules().rules)
    cls = classifier()
    n = args.nodes
    if args.phases:
        return phases(texts, router, n, args.repeat)

    def kind_of(path: str) -> str:  # node0001/train/rank3.log -> train/rank*.log
        name = path.split("/", 1)[1]
        return "train/rank*.log" if name.startswith("train/rank") else name

    per_kind: dict[str, float] = collections.defaultdict(float)
    parts: dict[str, float] = collections.defaultdict(float)
    for kind in sorted({kind_of(p) for p, _ in texts}):
        mine = [(p, t) for p, t in texts if kind_of(p) == kind]
        per_kind[kind] = _best(lambda: [parse_pool.parse_one(Artefact(path=p, text=t, node=p.split("/")[0]), router)
                                        for p, t in mine], args.repeat) * 1e3 / n
    # the gate's answers from the set's pass (parse_one: Classifier.scan, then Artefact.normalise)
    answers = []
    for _, t in texts:
        wrapped = cls.scan(t)[1]
        answers.append((t, not wrapped, classify.gate(t, UNCUT_GATE)))
    classify.forget()
    parts["(wrapper gate after the set: normalise)"] = _best(
        lambda: [normalise(t, plain, [], uncut) for t, plain, uncut in answers], args.repeat) * 1e3 / n
    parts["(lines.normalise alone: its own pass)"] = _best(lambda: [normalise(t) for _, t in texts], args.repeat) * 1e3 / n
    parts["(classifier: RE2 set)"] = _best(lambda: [cls.candidates(t) for _, t in texts], args.repeat) * 1e3 / n
    asked: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    for p, t in texts:
        for mod in cls.candidates(t):
            asked[mod.KIND].append((p, t))
    mods = {m.KIND: m for m in cls.parsers}
    for k, items in asked.items():
        mod = mods[k]
        parts[f"detect {k}"] = _best(lambda: [mod.detect(t) for _, t in items], args.repeat) * 1e3 / n
        owned = [(p, t) for p, t in items if mod.detect(t)]

        def read(owned=owned, mod=mod):
            for p, t in owned:
                a = Artefact(path=p, text=t, node=p.split("/")[0])
                a.router = router
                mod.parse(a)
        if owned:
            parts[f"parse  {k}"] = _best(read, args.repeat) * 1e3 / n

    # what crosses the pool's pipe: every file's FileResult, pickled by a worker in chunks of
    # parse_pool.CHUNK and unpickled by the parent (its CPU competes with the workers')
    results = [parse_pool.parse_one(Artefact(path=p, text=t, node=p.split("/")[0]), router) for p, t in texts]
    chunks = [results[i:i + parse_pool.CHUNK] for i in range(0, len(results), parse_pool.CHUNK)]
    blobs = [pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL) for c in chunks]
    parts["(pool: pickle the results, worker)"] = _best(
        lambda: [pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL) for c in chunks], args.repeat) * 1e3 / n
    parts["(pool: unpickle the results, parent)"] = _best(lambda: [pickle.loads(b) for b in blobs], args.repeat) * 1e3 / n

    total = sum(per_kind.values())
    print(f"bench node ({n} nodes, {sum(len(t) for _, t in texts) / n / 1e6:.2f} MB a node): "
          f"parse_one {total:.1f} CPU ms a node, best of {args.repeat} passes")
    print(f"\n{'file':40s} {'ms/node':>8s}")
    for k, v in sorted(per_kind.items(), key=lambda kv: -kv[1]):
        print(f"{k:40s} {v:8.2f}")
    print(f"\n{'step':40s} {'ms/node':>8s}")
    for k, v in sorted(parts.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{k:40s} {v:8.2f}")
    return 0


#: names of engine/parse_pool.py that parse_one calls, measured apart by --phases: name -> label
_STEPS = {"foreign_runs": "foreign_runs (a run of another program's lines)", "unread_failures": "unread_failures",
          "_launcher_label": "_launcher_label", "_coverage_row": "_coverage_row (the file's FileCoverage)"}


def phases(texts: list[tuple[str, str]], router, n: int, repeat: int) -> int:
    """--phases: parse_one over every file of the nodes in bundle order, its phases timed in place (each
    wrapped in a CPU clock: ~0.3 us a call more, counted in the calls column), best of ``repeat`` passes
    a phase; then the kept facts by kind and what they cost."""
    import gc
    from stethoscope.engine import parse_pool
    from stethoscope.engine.knowledge import ArtefactCoverage
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.engine.ruleengine.session import can_bind, literal_tests
    from stethoscope.facts.classify import classifier
    from stethoscope.facts.parsers import base
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.registry import load_parsers

    spent: dict[str, int] = collections.defaultdict(int)
    calls: collections.Counter = collections.Counter()
    clock = time.process_time_ns
    undo: list[tuple[object, str, object]] = []

    def wrap(owner, name: str, label: str) -> None:
        inner = getattr(owner, name)
        undo.append((owner, name, owner.__dict__[name] if isinstance(owner, type) else inner))

        def timed(*a, **k):
            t = clock()
            try:
                return inner(*a, **k)
            finally:
                spent[label] += clock() - t
                calls[label] += 1
        setattr(owner, name, timed)

    wrap(type(classifier()), "scan", "classifier: the RE2 set (Classifier.scan)")
    wrap(Artefact, "normalise", "normalise (wrappers off, facts/lines.py)")
    wrap(Artefact, "nonblank_lines", "nonblank_lines (coverage's denominator)")
    wrap(ArtefactCoverage, "readings", "coverage readings (the healthy reason's)")
    wrap(type(router), "route", "Router.route")
    wrap(base.FactBuilder, "add", "  of which FactBuilder.add")
    for name, label in _STEPS.items():
        wrap(parse_pool, name, label)
    for mod in load_parsers():
        wrap(mod, "parse", f"parse  {mod.KIND}")
        wrap(mod, "detect", "detect (every reader asked)")

    def once() -> list:  # in chunks, as a parse worker reads them (parse_items: a chunk's small files scanned ahead)
        arts = [Artefact(path=p, text=t, node=p.split("/")[0]) for p, t in texts]
        return [res for i in range(0, len(arts), parse_pool.CHUNK)
                for res in parse_pool.parse_items(arts[i:i + parse_pool.CHUNK], router)]
    try:
        results = once()
        once()
        gc.collect()
        gc.freeze()  # (a worker's start: what the parent built is frozen)
        best: dict[str, int] = {}
        total = None
        for _ in range(repeat):
            spent.clear()
            calls.clear()
            t = clock()
            once()
            took = clock() - t
            total = took if total is None else min(total, took)
            for k, v in spent.items():
                best[k] = min(best.get(k, v), v)
        per_pass = dict(calls)
    finally:
        for owner, name, inner in reversed(undo):
            setattr(owner, name, inner)
        gc.unfreeze()
    print(f"parse_one in place: {total / 1e6 / n:.2f} CPU ms a node, best of {repeat} passes over {n} nodes")
    print(f"\n{'phase':48s} {'ms/node':>8s} {'share':>6s} {'calls/node':>10s}")
    outer = 0
    for k, v in sorted(best.items(), key=lambda kv: -kv[1]):
        if not k.startswith("  "):
            outer += v
        print(f"{k:48s} {v / 1e6 / n:8.2f} {100 * v / total:5.1f}% {per_pass.get(k, 0) / n:10.1f}")
    rest = total - outer
    print(f"{'the rest of parse_one':48s} {rest / 1e6 / n:8.2f} {100 * rest / total:5.1f}%")
    print("(parse nccl_channels includes the RE2 pass that routes an NCCL log's lines for nccl_log and its companions:"
          " nccl_channels asks for it first)")

    lit = literal_tests(load_rules().rules)
    kept: collections.Counter = collections.Counter()
    bound: collections.Counter = collections.Counter()
    for res in results:
        for f in res.facts:
            kept[f.kind] += 1
            if f.kind in lit and can_bind(lit[f.kind], f.rule_view()):
                bound[f.kind] += 1
    facts = [res.facts for res in results]
    blob = pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
    dumps = _best(lambda: pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL), repeat) * 1e3 / n
    loads = _best(lambda: pickle.loads(blob), repeat) * 1e3 / n
    print(f"\nfacts kept a node {sum(kept.values()) / n:.0f}, of which some rule pattern's constant tests accept "
          f"{sum(bound.values()) / n:.0f}; pickled {len(blob) / n / 1e3:.1f} kB a node, {dumps:.2f} ms (worker), "
          f"unpickled {loads:.2f} ms (parent)")
    print(f"  {'kind':34s} {'kept/node':>9s} {'to rules':>9s}")
    for kind, k in kept.most_common(25):
        print(f"  {kind:34s} {k / n:9.1f} {bound[kind] / n:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

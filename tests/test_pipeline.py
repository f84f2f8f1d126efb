"""Every command that diagnoses goes through the one pipeline (engine/pipeline.py): the same
declared combiners, in order, then the rules and the localisation."""
from __future__ import annotations

from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine import pipeline

from test_diagnose_baseline import HEALTHY, SOCKET_BUNDLE  # the real H200 pair and its socket-only run

runner = CliRunner()


ALL = [name for name, _ in pipeline.COMBINERS] + ["localise"]


def test_combiners_are_declared_once_in_order():
    names = [name for name, _ in pipeline.COMBINERS]
    assert names[:5] == ["parse_problems", "fabric", "link_quality", "rdma_counters", "nccl_versions"]
    assert names[-1] == "version_compat"
    assert len(set(names)) == len(names) == 20  # fr_culprits (session 21) places the flight-recorder analyser's rank


def test_diagnose_from_logs(pipeline_steps):
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "-f", "json"])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL


def test_baseline_compare_and_diagnose_baseline(pipeline_steps, tmp_path, monkeypatch):
    monkeypatch.delenv("STETH_BASELINE", raising=False)
    db = tmp_path / "b.sqlite"
    rec = runner.invoke(app, ["baseline", "record", *map(str, HEALTHY), "--name", "pair", "--db", str(db)])
    assert rec.exit_code == 0, rec.output
    pipeline_steps.clear()
    res = runner.invoke(app, ["baseline", "compare", str(SOCKET_BUNDLE), "--name", "pair", "--db", str(db), "-f", "json"])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL  # combined once, under the baseline
    pipeline_steps.clear()
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "--baseline", "pair", "--baseline-db", str(db)])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL


def test_baseline_compare_report_is_a_bundle_report(tmp_path):
    """The report of ``baseline compare`` carries what a bundle's does: what was checked, what not."""
    from stethoscope.engine.baselines import run as baseline_run
    from stethoscope.engine.ruleengine.loader import load_rules

    db = tmp_path / "b.sqlite"
    baseline_run.record(HEALTHY, "pair", db)
    cmp = baseline_run.compare([SOCKET_BUNDLE], "pair", db, load_rules())
    bundle = pipeline.diagnose_bundle(SOCKET_BUNDLE)
    assert cmp.report.verdict == "faulty" and cmp.report.checked == bundle.checked
    assert cmp.report.not_checked == bundle.not_checked
    assert cmp.below and any(cmp.band_below(c) for c in cmp.comparisons)


def test_the_kind_index_keeps_each_kind_s_facts_and_the_rules_read_them(ruleset):
    """combine's FactIndex keeps each kind's facts as combining grouped them (by_kind: of_kind and
    the rules' run take them instead of building them again from the positions, session 39 rM6),
    each node's first position (first_at), and both agree with the facts; evaluate_all on the
    index finds what it finds on a plain list (no index at all)."""
    from stethoscope.facts.model import of_kind

    obs = pipeline.combine(pipeline.observe_bundle(SOCKET_BUNDLE, 1))
    facts = obs.indexed()
    assert facts.by_kind is not None and set(facts.by_kind) == set(facts.positions)
    for kind, at in facts.positions.items():
        assert facts.by_kind[kind] == [facts[i] for i in at] == of_kind(facts, kind)
    assert facts.first_at == {n: next(i for i, f in enumerate(facts) if f.node == n) for n in {f.node for f in facts}}
    extended = pipeline._extended(facts, obs.facts[:3])
    for kind, at in extended.positions.items():
        assert extended.by_kind[kind] == [extended[i] for i in at]
    dump = lambda found: [f.model_dump() for f in found]  # noqa: E731
    assert dump(pipeline.evaluate(ruleset, facts)) == dump(pipeline.evaluate(ruleset, list(facts)))


def test_combine_goes_on_from_the_index_the_reading_made(tmp_path, monkeypatch):
    """read_artefacts indexes the facts by kind as each file's results come in (while the parse workers read, issue 12:
    not a pass over every fact after the last file); combine goes on from that index where the observation's facts are
    still those it indexed, and indexes them afresh where they changed since (_one_host's copies of a flat paste's
    facts under the one host it names): either way the FactIndex is the one a fresh pass makes."""
    import shutil
    from pathlib import Path

    def fresh(facts):
        c = pipeline.Combined(list(facts), None)
        return dict(c.positions), c.first_at, dict(c.by_kind)

    obs = pipeline.observe_bundle(SOCKET_BUNDLE, 1)
    read = obs.read
    assert read is not None and read.facts is obs.facts and read.indexed == len(obs.facts) > 0
    n = len(obs.facts)
    positions, first_at, by_kind = fresh(obs.facts)
    calls = []
    index = pipeline.Combined._index
    monkeypatch.setattr(pipeline.Combined, "_index",
                        lambda self, facts, start: (calls.append((start, len(facts))), index(self, facts, start))[1])
    pipeline.combine(obs)
    monkeypatch.undo()
    assert obs.read is None and calls and all(start >= n for start, _ in calls)  # only the combiners' facts indexed
    assert {k: list(v[:len(positions.get(k, ()))]) for k, v in obs.index.positions.items() if k in positions} == positions
    assert obs.index.first_at == {**obs.index.first_at, **first_at}
    assert {k: v[:len(by_kind[k])] for k, v in obs.index.by_kind.items() if k in by_kind} == by_kind
    # a flat paste naming one host: _one_host replaces the facts, combine indexes the new ones
    case = tmp_path / "incident"
    case.mkdir()
    prompt = Path(__file__).resolve().parent.parent / "fixtures/harvest/cases/114-gpu-lost-nvidia-smi-unknown-error-aer-timeouts-root-port"
    for f in ("dmesg.log", "other.txt"):
        shutil.copy(prompt / f, case / f)
    flat = pipeline.observe_bundle(case, 1)
    assert flat.read is not None and flat.read.facts is not flat.facts  # (the host's copies)
    combined = pipeline.combine(flat)
    assert set(combined.index.first_at) == {"cn-234"} == {f.node for f in combined.facts}
    assert {k: list(v) for k, v in combined.index.positions.items()} == fresh(combined.facts)[0]

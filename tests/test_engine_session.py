"""The durable-rules session against the reference evaluator on synthetic rule sets that
exercise what durable 2.0.28 gets wrong unless guarded: many rules (split over rulesets),
facts no rule matches, joins, absences, derived facts crossing rulesets."""
from stethoscope.engine.ruleengine import reference
from stethoscope.engine.ruleengine import session
from stethoscope.engine.ruleengine.compile import compile_rule
from stethoscope.engine.ruleengine.schema import Rule
from stethoscope.facts.model import Evidence
from stethoscope.facts.kinds.kernel import XidEvent
from stethoscope.facts.parsers.nccl_log_facts import NcclEnv


def _rule(i: int, **extra) -> Rule:
    body = {
        "id": f"r{i}",
        "title": f"rule {i}",
        "cause": "gpu_fell_off_bus",
        "component": "gpu",
        "severity": "critical",
        "when": {"all": [{"fact": "xid_event", "as": "x", "match": {"xid": i % 170, "node": f"n{i % 7}"}}]},
        "then": {"finding": {"entity": {"node": "$x.node"}, "summary": "s", "evidence": ["x"]}},
    }
    body.update(extra)
    return Rule.model_validate(body)


def _xid(i: int, xid: int, node: str) -> XidEvent:
    return XidEvent(id=f"x{i}", node=node, pci_bus_id="0000:01:00.0", xid=xid, message="m",
                    evidence=Evidence(path="d", line=i + 1, text="t"))


def test_many_rules_are_split_over_rulesets_and_agree_with_reference():
    rules = [compile_rule(_rule(i), f"r{i}.yaml") for i in range(400)]
    assert len(session._chunks(rules)) > 1
    facts = [_xid(i, i % 170, f"n{i % 7}") for i in range(600)]
    facts.append(NcclEnv(id="env", node="n1", name="NCCL_DEBUG", value="INFO",
                         evidence=Evidence(path="l", line=1, text="t")))  # no rule names this kind
    a, _ = session.run(rules, facts)
    b, _ = reference.run(rules, facts)
    assert a and sorted(a, key=repr) == sorted(b, key=repr)


def test_identical_content_facts_with_distinct_ids_all_fire():
    """durable identifies a fact by a 32-bit content hash unless it has an id: two equal
    Xid lines on two lines of a log must be two firings."""
    rule = compile_rule(_rule(79), "r.yaml")
    facts = [_xid(i, 79, "n2") for i in range(50)]
    a, _ = session.run([rule], facts)
    assert len(a) == 50


def test_join_absence_and_derivation_across_rulesets():
    derive = Rule.model_validate({
        "id": "d", "title": "derive",
        "when": {"all": [{"fact": "nccl_env", "as": "e", "match": {"name": "NCCL_IB_HCA"}}]},
        "then": {"assert": {"kind": "rdma_expected", "fields": {"node": "$e.node", "reason": "x"}, "evidence": ["e"]}},
    })
    use = Rule.model_validate({
        "id": "u", "title": "use", "cause": "nccl_socket_fallback_no_ib", "component": "network", "severity": "critical",
        "when": {"all": [{"fact": "rdma_expected", "as": "r"},
                         {"fact": "nccl_env", "as": "s", "match": {"name": "NCCL_SOCKET_IFNAME", "node": "$r.node"}}],
                 "none": [{"fact": "xid_event", "match": {"node": "$r.node"}}]},
        "then": {"finding": {"entity": {"node": "$s.node"}, "summary": "s", "evidence": ["r", "s"]}},
    })
    filler = [compile_rule(_rule(i), f"r{i}.yaml") for i in range(300)]
    rules = [compile_rule(derive, "d.yaml")] + filler + [compile_rule(use, "u.yaml")]
    assert len(session._chunks(rules)) > 1

    def env(i, node, name):
        return NcclEnv(id=f"e{i}", node=node, name=name, value="v", evidence=Evidence(path="l", line=i, text="t"))

    # n1: fires; n2: an Xid on the node blocks it (asserted last, must still block); n3: no HCA setting
    facts = [env(1, "n1", "NCCL_IB_HCA"), env(2, "n1", "NCCL_SOCKET_IFNAME"),
             env(3, "n2", "NCCL_IB_HCA"), env(4, "n2", "NCCL_SOCKET_IFNAME"),
             env(5, "n3", "NCCL_SOCKET_IFNAME"), _xid(99, 200, "n2")]
    a, da = session.run(rules, facts)
    b, db = reference.run(rules, facts)
    fired = sorted(dict(f.bindings)["s"] for f in a if f.rule == "u")
    assert fired == ["e2"]
    assert sorted(map(repr, a)) == sorted(map(repr, b))
    assert sorted(d.id for d in da) == sorted(d.id for d in db)


def test_fresh_host_per_run_leaves_no_threads():
    import threading

    rule = compile_rule(_rule(79), "r.yaml")
    before = threading.active_count()
    for _ in range(20):
        session.run([rule], [_xid(1, 79, "n2")])
    assert threading.active_count() <= before


def test_floats_in_exponent_notation_reach_durable():
    """durable's JSON parser fails on "2e-06" (error 204): floats go in fixed notation."""
    rule = Rule.model_validate({
        "id": "tiny", "title": "t", "cause": "nccl_tests_wrong_results", "component": "nccl", "severity": "warning",
        "when": {"all": [{"fact": "nccl_test_row", "as": "r", "match": {"oop_max_error": {"gte": 0.001}}}]},
        "then": {"finding": {"entity": {}, "summary": "s", "evidence": ["r"]}},
    })
    from stethoscope.facts.parsers.nccl_tests_facts import NcclTestRow

    def row(i, err):
        return NcclTestRow(id=f"r{i}", run_id="run", size_bytes=8, count=2, dtype="float", oop_time_us=1e-7,
                           oop_algbw=1e20, oop_busbw=0.0, oop_max_error=err, evidence=Evidence(path="p", line=i, text="t"))

    facts = [row(1, 0.002), row(2, 2e-06), row(3, float("nan")), row(4, 1e-07)]
    a, _ = session.run([compile_rule(rule, "t.yaml")], facts)
    b, _ = reference.run([compile_rule(rule, "t.yaml")], facts)
    assert [dict(f.bindings)["r"] for f in a] == ["r1"] == [dict(f.bindings)["r"] for f in b]


def test_rule_thresholds_in_exponent_notation_are_rejected():
    import pytest

    from stethoscope.engine.ruleengine.compile import CompileError

    rule = Rule.model_validate({
        "id": "tiny", "title": "t", "cause": "nccl_tests_wrong_results", "component": "nccl", "severity": "warning",
        "when": {"all": [{"fact": "nccl_test_row", "as": "r", "match": {"oop_max_error": {"gt": 1e-06}}}]},
        "then": {"finding": {"entity": {}, "summary": "s", "evidence": ["r"]}},
    })
    with pytest.raises(CompileError):
        compile_rule(rule, "t.yaml")


def test_none_of_a_kind_matched_under_all_is_rejected(tmp_path):
    """durable-rules never retracts a firing, so "no other fact of my own kind" would depend on
    the order facts arrive: the loader refuses it (aggregate into a summary fact instead)."""
    from stethoscope.engine.ruleengine.loader import load_rules

    path = tmp_path / "solo.yaml"
    path.write_text(
        "id: solo\ntitle: t\ncause: gpu_fell_off_bus\ncomponent: gpu\nseverity: critical\n"
        "when:\n  all:\n    - fact: xid_event\n      as: x\n      match: {xid: 79}\n"
        "  none:\n    - fact: xid_event\n      match: {node: $x.node, xid: 79}\n"
        "then:\n  finding:\n    summary: s\n    evidence: [x]\n"
    )
    errors = [str(e) for e in load_rules([path], root=tmp_path).errors]
    assert errors and "also matches under 'all'" in errors[0] and errors[0].startswith("solo.yaml:12:")


def test_only_facts_that_can_bind_a_pattern_are_asserted(ruleset):
    """The prefilter keeps every fact some pattern's constant tests accept (``all`` and ``none``)."""
    from stethoscope.engine.ruleengine.compile import Ref
    from stethoscope.engine.ruleengine.session import can_bind, literal_tests

    lit = literal_tests(ruleset.rules)
    # every kind a rule names has an entry, and no entry keeps a test against another fact
    assert set(lit) == {p.kind for r in ruleset.rules for p in (*r.all, *r.none)}
    assert all(not isinstance(t.value, Ref) for pats in lit.values() for tests in pats for t in tests)
    from stethoscope.engine.ruleengine.compile import Test

    pats = [(Test("xid", "in", (79, 48)), Test("node", "eq", "n1")), (Test("severity", "eq", "fatal"),)]
    assert can_bind(pats, {"xid": 79, "node": "n1"})
    assert can_bind(pats, {"xid": 13, "severity": "fatal"})
    assert not can_bind(pats, {"xid": 13, "node": "n1"})
    assert can_bind([()], {"anything": 1})  # a pattern without constant tests takes every fact


def test_a_join_on_another_fact_s_id_fires_in_durable_as_in_the_reference(tmp_path):
    """durable keys facts by ``id`` and could not join on it: ``run_id: $r.id`` never fired."""
    from pathlib import Path

    from stethoscope.engine.ruleengine import reference
    from stethoscope.engine.ruleengine import session
    from stethoscope.engine.pipeline import parse_artefacts
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.facts.bundle import iter_artefacts, read_bundle

    rules = tmp_path / "rules" / "t"
    rules.mkdir(parents=True)
    (rules / "join_run_id.yaml").write_text(
        "id: join_run_id\ntitle: rows of a run\ncause: nccl_tests_failed\ncomponent: nccl\nseverity: info\n"
        "confidence: 0.5\ndescription: a join on the run's id\nwhen:\n  all:\n"
        "    - {fact: nccl_test_run, as: r}\n    - {fact: nccl_test_row, as: w, match: {run_id: $r.id}}\n"
        "then:\n  finding:\n    entity: {node: $w.node}\n    summary: \"row of {r.id}\"\n    evidence: [w]\n")
    rs = load_rules(paths=[rules / "join_run_id.yaml"], root=tmp_path / "rules")
    bundle = tmp_path / "b" / "n1"
    bundle.mkdir(parents=True)
    src = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "h200-healthy" / "bundle" / "vm" / "allreduce.txt"
    (bundle / "allreduce.txt").write_bytes(src.read_bytes())
    facts = [f for f in parse_artefacts(iter_artefacts(read_bundle(tmp_path / "b"), [])).facts
             if f.kind in ("nccl_test_run", "nccl_test_row")]
    want = len(reference.run(rs.rules, facts)[0])
    assert want > 10
    assert len(session.run(rs.rules, facts)[0]) == want


def test_rules_one_of_whose_patterns_no_fact_fills_are_not_loaded(ruleset):
    """live_rules: a rule whose ``all`` pattern no fact passes the constant tests of cannot fire;
    one whose pattern names a kind some rule derives stays (those facts appear during the run)."""
    rules = [compile_rule(_rule(i), f"r{i}.yaml") for i in (79, 48)]
    views = [_xid(0, 79, "n2").rule_view()]  # r79 wants node n2 (79 % 7): filled; r48 wants xid 48
    assert [r.id for r in session.live_rules(rules, views)] == ["r79"]
    assert session.live_rules(rules, []) == []
    # on a real bundle: every rule the reference evaluator fires (derived facts included) is live
    from pathlib import Path
    from stethoscope.engine import pipeline

    root = Path(__file__).resolve().parent.parent / "fixtures/bundles"
    for name in ("h200-xid31-app", "h200-straggler-desync"):
        obs = pipeline.combine(pipeline.observe_bundle(root / name / "bundle", jobs=1))
        fired = {f.rule for f in reference.run(ruleset.rules, obs.facts)[0]}
        live = {r.id for r in session.live_rules(ruleset.rules, [f.rule_view() for f in obs.facts])}
        assert fired and fired <= live and len(live) < len(ruleset.rules), name
    # and the findings are those of the reference evaluator, which runs every rule on every fact
    facts = [_xid(0, 79, "n2"), _xid(1, 13, "n6")]
    assert session.run(rules, facts)[0] == reference.run(rules, facts)[0]


def test_field_view_reads_what_rule_view_gives():
    """session.FieldView (the constant tests' view, no dict built) answers every field as
    Fact.rule_view does: present exactly when rule_view has it, with the same value."""
    from pathlib import Path
    from stethoscope.engine import pipeline

    root = Path(__file__).resolve().parent.parent / "fixtures/bundles"
    obs = pipeline.combine(pipeline.observe_bundle(root / "h200-xid31-app" / "bundle", jobs=1))
    for fact in obs.facts:
        view, lazy = fact.rule_view(), session.FieldView(fact)
        for name in (*type(fact).model_fields, "nope"):
            assert (name in view) == (name in lazy), (fact.kind, name)
            if name in view:
                assert lazy[name] == view[name] and type(lazy[name]) is type(view[name])


def test_field_to_field_comparisons_agree_with_reference(tmp_path):
    """A pattern may compare two fields of its own fact (``$own_alias.field``: a limit the fact
    carries from a knowledge file) and give one field several operators (a range); durable and
    the reference agree on every operator, on each side of an edge, on a field the fact lacks
    (never true), and in a ``none`` pattern."""
    import pytest

    from stethoscope.engine.ruleengine.compile import SELF, CompileError, Ref, Test
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.facts.parsers.nccl_tests_facts import NcclTestRow, NcclTestRun

    def rule(rid, all_, none=()):
        return Rule.model_validate({
            "id": rid, "title": "t", "cause": "nccl_tests_failed", "component": "nccl", "severity": "info",
            "when": {"all": all_, "none": list(none)},
            "then": {"finding": {"entity": {}, "summary": "s", "evidence": [all_[0]["as"]]}}})

    rules = [rule(f"self_{op}", [{"fact": "nccl_test_row", "as": "w", "match": {"oop_time_us": {op: "$w.ip_time_us"}}}])
             for op in ("eq", "ne", "gt", "gte", "lt", "lte")]
    rules.append(rule("self_eq_plain", [{"fact": "nccl_test_row", "as": "w", "match": {"oop_time_us": "$w.ip_time_us"}}]))
    rules.append(rule("range", [{"fact": "nccl_test_row", "as": "w",
                                 "match": {"oop_time_us": {"gte": "$w.ip_time_us", "lt": "$w.oop_algbw"}}}]))
    rules.append(rule("none_self", [{"fact": "nccl_test_run", "as": "r"}],
                      [{"fact": "nccl_test_row", "as": "w", "match": {"run_id": "$r.id", "oop_time_us": {"lt": "$w.ip_time_us"}}}]))
    compiled = [compile_rule(r, f"{r.id}.yaml") for r in rules]
    assert Test("oop_time_us", "lt", Ref(SELF, "ip_time_us")) in compiled[4].all[0].tests
    assert len(compiled[7].all[0].tests) == 2

    def row(i, run, oop, ip, algbw=10.0):
        return NcclTestRow(id=f"w{i}", run_id=run, size_bytes=8, count=2, dtype="float", oop_time_us=oop, oop_algbw=algbw,
                           oop_busbw=0.0, ip_time_us=ip, evidence=Evidence(path="p", line=i, text="t"))

    def run(name):
        return NcclTestRun(id=name, evidence=Evidence(path="p", line=0, text="t"))

    # run a: one row just under its own in-place time; run b: equal and just over; run c: no in-place time
    facts = [run("a"), run("b"), run("c"), row(1, "a", 4.999, 5.0), row(2, "b", 5.0, 5.0), row(3, "b", 5.001, 5.0),
             row(4, "c", 5.0, None), row(5, "b", 12.0, 5.0, algbw=12.0)]
    a, _ = session.run(compiled, facts)
    b, _ = reference.run(compiled, facts)
    fired = sorted((f.rule, dict(f.bindings).get("w", dict(f.bindings).get("r"))) for f in b)
    assert sorted((f.rule, dict(f.bindings).get("w", dict(f.bindings).get("r"))) for f in a) == fired
    assert fired == sorted([
        ("self_eq", "w2"), ("self_eq_plain", "w2"), ("self_ne", "w1"), ("self_ne", "w3"), ("self_ne", "w5"),
        ("self_gt", "w3"), ("self_gt", "w5"), ("self_gte", "w2"), ("self_gte", "w3"), ("self_gte", "w5"),
        ("self_lt", "w1"), ("self_lte", "w1"), ("self_lte", "w2"), ("range", "w2"), ("range", "w3"),
        ("none_self", "b"), ("none_self", "c")])

    with pytest.raises(CompileError):  # a field compared with itself says nothing
        compile_rule(rule("itself", [{"fact": "nccl_test_row", "as": "w", "match": {"oop_time_us": {"lt": "$w.oop_time_us"}}}]), "t.yaml")
    path = tmp_path / "nofield.yaml"  # the loader checks the other field exists
    path.write_text("id: nofield\ntitle: t\ncause: nccl_tests_failed\ncomponent: nccl\nseverity: info\n"
                    "when:\n  all:\n    - fact: nccl_test_row\n      as: w\n      match: {oop_time_us: {lt: $w.no_such}}\n"
                    "then:\n  finding:\n    summary: s\n    evidence: [w]\n")
    errors = [str(e) for e in load_rules([path], root=tmp_path).errors]
    assert errors and "no field 'no_such'" in errors[0]


def test_none_of_a_derived_kind_waits_for_its_derivation(tmp_path):
    """``none:`` may name a kind other rules derive from observed kinds only (the known NCCL bugs:
    nccl_known_issue, joined by rules, silences nccl_bootstrap_peer_closed): both evaluators derive
    it before they take the rule's facts, whatever order the facts come in. Derived from a kind the
    rule itself matches, it is refused (durable would fire before the derivation)."""
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.facts.kinds.nccl import NcclNetDevice

    derive = ("id: derive\ntitle: t\nwhen:\n  all:\n    - fact: nccl_net_device\n      as: dev\n      match: {network: IB}\n"
              "then:\n  assert:\n    kind: rdma_expected\n    fields: {node: $dev.node, reason: r}\n    evidence: [dev]\n")
    absent = ("id: absent\ntitle: t\ncause: gpu_fell_off_bus\ncomponent: gpu\nseverity: critical\n"
              "when:\n  all:\n    - fact: xid_event\n      as: x\n  none:\n    - fact: rdma_expected\n      match: {node: $x.node}\n"
              "then:\n  finding:\n    entity: {node: $x.node}\n    summary: s\n    evidence: [x]\n")
    (tmp_path / "derive.yaml").write_text(derive)
    (tmp_path / "absent.yaml").write_text(absent)
    rs = load_rules([tmp_path / "derive.yaml", tmp_path / "absent.yaml"], root=tmp_path)
    assert not rs.errors, rs.errors
    dev = NcclNetDevice(id="d", node="n1", network="IB", index=0, device="mlx5_0:1", evidence=Evidence(path="l", line=1, text="t"))
    facts = [_xid(0, 79, "n1"), _xid(1, 79, "n2")]
    for order in (facts + [dev], [dev] + facts):
        for run in (session.run, reference.run):
            fired, _ = run(rs.rules, order)
            assert sorted(b for f in fired if f.rule == "absent" for _, b in f.bindings) == ["x1"], (run, order)
    # derived from the kind the rule matches under 'all': refused
    (tmp_path / "derive.yaml").write_text(derive.replace("nccl_net_device", "xid_event").replace("match: {network: IB}", "match: {xid: 79}"))
    errors = [str(e) for e in load_rules([tmp_path / "derive.yaml", tmp_path / "absent.yaml"], root=tmp_path).errors]
    assert errors and "may not name the derived kind 'rdma_expected'" in errors[0]


def test_one_pattern_absence_resolved_before_durable_agrees_with_reference(monkeypatch):
    """A rule of one pattern whose ``none:`` names only given kinds is resolved without durable
    (session._resolvable): equality joins looked up by key (a field the blocker lacks never
    matches), other joins and the blockers' own tests checked on the bucket; nothing of it goes
    to durable."""
    from stethoscope.facts.parsers.nccl_tests_facts import NcclTestRow, NcclTestRun

    def rule(rid, none):
        return compile_rule(Rule.model_validate({
            "id": rid, "title": "t", "cause": "nccl_tests_failed", "component": "nccl", "severity": "info",
            "when": {"all": [{"fact": "nccl_test_run", "as": "r", "match": {"rows": {"gt": 0}}}], "none": none},
            "then": {"finding": {"entity": {}, "summary": "s", "evidence": ["r"]}}}), f"{rid}.yaml")

    rules = [
        rule("by_id", [{"fact": "nccl_test_row", "match": {"run_id": "$r.id", "size_bytes": {"gte": 1024}}}]),
        rule("by_id_and_node", [{"fact": "nccl_test_row", "match": {"run_id": "$r.id", "node": "$r.node"}}]),
        rule("not_eq_only", [{"fact": "nccl_test_row", "match": {"run_id": {"ne": "$r.id"}, "oop_time_us": {"lt": "$r.rows"}}}]),
        rule("own_field", [{"fact": "nccl_test_row", "as": "w", "match": {"run_id": "$r.id", "oop_time_us": {"lt": "$w.ip_time_us"}}}]),
    ]
    assert [r.id for r in session._resolvable(rules)] == [r.id for r in rules]

    def run(name, node, rows):
        return NcclTestRun(id=name, node=node, rows=rows, evidence=Evidence(path="p", line=0, text="t"))

    def row(i, run_id, node, size, oop, ip=None):
        return NcclTestRow(id=f"w{i}", node=node, run_id=run_id, size_bytes=size, count=2, dtype="float", oop_time_us=oop,
                           oop_algbw=1.0, oop_busbw=0.0, ip_time_us=ip, evidence=Evidence(path="p", line=i, text="t"))

    facts = [run("a", "n1", 2), run("b", "n1", 2), run("c", "n2", 2), run("d", "n2", 0),
             row(1, "a", "n1", 4096, 5.0, 6.0), row(2, "b", "n1", 8, 5.0), row(3, "c", "n1", 4096, 1.0, 0.5)]
    sent = []
    monkeypatch.setattr(session, "_host", lambda: sent.append(1))  # durable must not be started
    a, _ = session.run(rules, facts)
    b, _ = reference.run(rules, facts)
    assert not sent
    assert sorted(map(repr, a)) == sorted(map(repr, b))
    # a: its 4 KiB row blocks by_id, its node's row by_id_and_node, c's fast row not_eq_only, oop < ip own_field;
    # b: only an 8-byte row, on its node, no in-place time; c: its row is on n1; d: no rows, never a candidate
    assert sorted((f.rule, f.bindings[0][1]) for f in a) == [
        ("by_id", "b"), ("by_id_and_node", "c"), ("not_eq_only", "c"), ("own_field", "b"), ("own_field", "c")]


def _beta_sequence_ends(part: dict) -> bool:
    """Whether a pattern's ``$and`` ends in a group once durable compiles it: its join tests (a
    value naming another fact's field) go into the beta node's expression sequence, constants
    and ``$or`` alternatives into the alpha network (an ``$or`` leaves an empty group behind)."""
    def joins(test: dict) -> bool:
        (op, body), = test.items()
        if op == "$or":
            return False
        value = body if not op.startswith("$") else next(iter(body.values()))
        return isinstance(value, dict)
    tests = part["$and"]
    last_join = max((i for i, t in enumerate(tests) if joins(t)), default=None)
    return last_join is None or any("$or" in t for t in tests[last_join + 1:])


def test_every_shipped_pattern_with_a_join_test_ends_in_a_group(ruleset):
    """durable-rules 2.0.28 reads past the end of a pattern's join tests when the last one fails
    (reduceExpressionSequence's short-circuit skips past the group's OP_END) and crashed the
    process with SIGSEGV when that read walked off the heap (sessions 26-27's CI;
    torch_watchdog_ranks_out_of_step's cases under some hash seeds, 20 runs in one process):
    each pattern whose tests join another fact must end in a group (session._close_joins)."""
    checked = 0
    for rule in ruleset.rules:
        for cond in session.ruleset_json(rule)["all"]:
            (_, part), = cond.items()
            assert _beta_sequence_ends(part), (rule.id, part)
            checked += 1
    assert checked > 800  # 902 patterns at the time of writing


def test_a_failed_last_join_test_neither_fires_nor_is_skipped():
    """The join a pattern ends with still decides: a ``gt`` join that fails on its last test
    does not fire, one that holds fires, under durable as under the reference."""
    body = {
        "id": "later", "title": "t", "cause": "gpu_fell_off_bus", "component": "gpu", "severity": "critical",
        "when": {"all": [{"fact": "xid_event", "as": "a", "match": {"xid": 79}},
                         {"fact": "xid_event", "as": "b", "match": {"node": "$a.node", "xid": {"gt": "$a.xid"}}}]},
        "then": {"finding": {"entity": {"node": "$a.node"}, "summary": "s", "evidence": ["a", "b"]}},
    }
    rules = [compile_rule(Rule.model_validate(body), "later.yaml")]
    assert _beta_sequence_ends(session.ruleset_json(rules[0])["all"][1]["b"])
    quiet = [_xid(0, 79, "n1"), _xid(1, 13, "n1")]
    loud = [_xid(0, 79, "n1"), _xid(1, 94, "n1")]
    for facts, fires in ((quiet, False), (loud, True)):
        a, _ = session.run(rules, facts)
        b, _ = reference.run(rules, facts)
        assert sorted(a, key=repr) == sorted(b, key=repr)
        assert bool(a) is fires


def _spy_durable(monkeypatch) -> dict[str, int]:
    import durable_rules_engine

    calls: dict[str, int] = {}
    for name in ("assert_fact", "delete_state", "complete_and_start_action", "delete_ruleset"):
        real = getattr(durable_rules_engine, name)

        def counted(*a, _real=real, _name=name):
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*a)

        monkeypatch.setattr(durable_rules_engine, name, counted)
    return calls


def test_a_run_deletes_the_state_of_every_ruleset_its_facts_reached(monkeypatch):
    """delete_ruleset alone leaves a run's state in durable's C memory (~150 kB a run of one
    join rule, kept for the life of a `steth watch` process); the end rule's action runs to
    completion (an action of one parameter: durable takes one of two as asynchronous and
    never completes it), then the state is deleted."""
    rules = [compile_rule(_rule(i), f"r{i}.yaml") for i in range(400)]
    facts = [_xid(i, i % 170, f"n{i % 7}") for i in range(600)]
    calls = _spy_durable(monkeypatch)
    a, _ = session.run(rules, facts)
    b, _ = reference.run(rules, facts)
    assert a and sorted(a, key=repr) == sorted(b, key=repr)
    reached = len(session._chunks(session.live_rules(rules, {"xid_event": facts})))
    assert reached > 1
    assert calls["delete_state"] == reached  # every ruleset took xid_event facts
    assert calls["complete_and_start_action"] >= len(a) + reached  # the firings and each end rule


def test_a_run_that_fires_nothing_still_frees_its_state(monkeypatch):
    """No rule of the run fires: durable's deleteState would free an action context no action
    initialised (a crash) but for the end rule."""
    when = {"all": [{"fact": "xid_event", "as": "x", "match": {"xid": 1}},
                    {"fact": "xid_event", "as": "y", "match": {"xid": 2, "node": "$x.node"}}]}
    rules = [compile_rule(_rule(1, when=when), "r1.yaml")]
    calls = _spy_durable(monkeypatch)
    firings, _ = session.run(rules, [_xid(0, 1, "n1"), _xid(1, 2, "n2")])  # on two nodes: no join
    assert firings == [] and calls["assert_fact"] == 3 and calls["delete_state"] == 1
    assert session.run(rules, [_xid(0, 1, "n1"), _xid(1, 2, "n1")])[0]  # the near miss fires


def test_repeated_runs_do_not_grow_durables_memory():
    """What the watch loop does: many runs in one process. glibc's malloc counters (C memory,
    durable's included), over 30 runs after 5: a run's state is ~150 kB when kept."""
    import ctypes
    import gc

    import pytest

    try:
        libc = ctypes.CDLL("libc.so.6")
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):
        pytest.skip("glibc's mallinfo2 is not here")

    class _Info(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in
                    "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

    mallinfo2.restype = _Info
    rules = [compile_rule(_rule(i), f"r{i}.yaml") for i in range(40)]
    facts = [_xid(i, i % 170, f"n{i % 7}") for i in range(200)]
    for _ in range(5):
        session.run(rules, facts)
    gc.collect()
    before = mallinfo2().uordblks
    for _ in range(30):
        session.run(rules, facts)
    gc.collect()
    grown = (mallinfo2().uordblks - before) / 30
    assert grown < 40_000, f"{grown / 1024:.0f} kB a run stays allocated"

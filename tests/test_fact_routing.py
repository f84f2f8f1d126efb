"""Facts for exceptions, summaries for health (engine/ruleengine/routing.py, knowledge/fact_routing.yaml).

- Every fixture bundle (and every harvested real case) gives the same report whether the
  facts are routed or not: same verdict, findings (causes, entities, evidence, localisation),
  coverage, not-checked branches; the fact counts (the report's and each file's) only lower
  by the readings of kinds no rule in use binds, which a reader may leave unread (Router.dead).
- No engine/ or cli/ code names a summarised kind (its kind string or its class) unless
  keep_where keeps what it reads, so no engine code loses a fact it reads.
- A healthy reading no rule can bind becomes one fact_summary per file, node and kind, citing
  the first line; an error fact and a reading a rule can bind are kept.
"""
from __future__ import annotations

import re
from pathlib import Path
from sys import intern

import pytest

from stethoscope.engine import pipeline
from stethoscope.engine.ruleengine import routing
from stethoscope.facts import knowledge
from stethoscope.facts.model import FACT_KINDS
from stethoscope.facts.registry import load_parsers

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = sorted(p.parent / "bundle" for p in (ROOT / "fixtures" / "bundles").glob("*/expected.yaml"))
HARVEST = sorted(p for p in (ROOT / "fixtures" / "harvest" / "cases").glob("*") if (p / "label.yaml").is_file())


def _report(path: Path, ruleset, routed: bool) -> tuple[dict, list[int]]:
    """The report less its fact counts, and those counts (the report's, then each file's)."""
    obs = pipeline.observe_bundle(path, jobs=1, ruleset=ruleset if routed else None)
    data = pipeline.diagnose(obs, ruleset).model_dump(mode="json")
    data["source"] = None
    counts = [data.pop("facts")] + [row.pop("facts") for row in data["coverage"]["files"]]
    return data, counts


@pytest.mark.parametrize("path", BUNDLES + HARVEST, ids=[p.parent.name for p in BUNDLES] + [p.name for p in HARVEST])
def test_routed_facts_give_the_same_report(path, ruleset):
    (routed, counts), (whole, whole_counts) = _report(path, ruleset, True), _report(path, ruleset, False)
    assert routed == whole
    assert all(a <= b for a, b in zip(counts, whole_counts))


def test_summarised_kinds_are_healthy_readings_no_engine_code_reads():
    """A summarised kind is state or info, and no engine/cli code names it (its kind string or
    its class) unless keep_where says which of its facts that code reads, or its summaries carry
    what that code reads of them (summary_values, summary_rows)."""
    load_parsers()
    table = knowledge.load("fact_routing.yaml")
    polarity = knowledge.load("fact_polarity.yaml").kinds
    assert {k for k in table.summarise if polarity[k].polarity not in ("state", "info")} == set()
    sources = {p: p.read_text() for d in ("engine", "cli") for p in (ROOT / d).rglob("*.py")
               if p.name not in ("routing.py", "docs.py")}
    named = {}
    for kind in table.summarise:
        if kind in table.keep_where or kind in table.summary_rows or kind in table.summary_values:
            continue  # (the code reads the facts keep_where keeps, or what the kind's summaries carry)
        cls = FACT_KINDS[kind]
        pattern = re.compile(r"[\"']" + re.escape(kind) + r"[\"']|\b" + re.escape(cls.__name__) + r"\b")
        where = sorted(p.name for p, text in sources.items() if pattern.search(text))
        if where:
            named[kind] = where
    assert not named, f"engine code reads these summarised kinds (give them keep_where, or stop summarising them): {named}"


def test_keep_where_names_fields_of_its_kind():
    """A keep_where field that its kind lacks (a misspelt name) would match no fact: the facts the
    engine code reads would all be folded away."""
    load_parsers()
    table = knowledge.load("fact_routing.yaml")
    for kind, want in table.keep_where.items():
        fields = set(FACT_KINDS[kind].model_fields)
        for alternative in routing._alternatives(want):
            assert alternative and set(alternative) <= fields, (kind, alternative)


def test_healthy_readings_become_one_summary(ruleset):
    router = routing.router_for(ruleset.rules)
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.parsers import nvidia_smi_q

    text = (ROOT / "fixtures/bundles/h200-healthy/bundle/vm/smi.txt").read_text()
    facts = nvidia_smi_q.parse(Artefact(path="vm/smi.txt", node="vm", text=text)).facts
    routed = router.route(facts)
    zero_ecc = [f for f in facts if f.kind == "gpu_ecc_count" and f.scope == "aggregate"]
    assert zero_ecc and all(f.count == 0 for f in zero_ecc)
    summaries = {f.of_kind: f for f in routed if f.kind == "fact_summary"}
    first = next(f for f in facts if f.kind == "gpu_ecc_count" and f not in routed)
    assert summaries["gpu_ecc_count"].evidence == first.evidence
    assert summaries["gpu_ecc_count"].count >= len(zero_ecc)
    assert [f for f in routed if f.kind == "gpu_info"] == [f for f in facts if f.kind == "gpu_info"]  # read by code
    # engine/combine/bundle_series.py reads the volatile correctable counts: the summary's rows, one a count
    assert not [f for f in routed if f.kind == "gpu_ecc_count"]
    vol = [f for f in facts if f.kind == "gpu_ecc_count" and (f.scope, f.error_type) == ("volatile", "correctable")]
    assert vol and summaries["gpu_ecc_count"].rows == tuple(
        (f.pci_bus_id, f.location, f.count, f.evidence.line, f.evidence.text) for f in vol)
    assert [summaries["gpu_ecc_count"].part_evidence(i) for i in range(len(vol))] == [f.evidence for f in vol]
    assert len(routed) < len(facts)


def test_a_fact_a_rule_can_bind_is_kept(ruleset):
    """A volatile uncorrectable ECC count above zero: a rule binds it, so it is kept."""
    from stethoscope.facts.parsers.gpu_state_facts import GpuEccCount

    router = routing.router_for(ruleset.rules)
    ev = {"path": "n/nvidia-smi-q.txt", "line": 9, "text": "DRAM Uncorrectable : 3"}
    bad = GpuEccCount(id="a", node="n", evidence=ev, pci_bus_id="0000:18:00.0", scope="volatile",
                      error_type="uncorrectable", location="dram", count=3)
    fine = GpuEccCount(id="b", node="n", evidence=ev, pci_bus_id="0000:18:00.0", scope="volatile",
                       error_type="uncorrectable", location="dram", count=0)
    routed = router.route([bad, fine])
    assert bad in routed and fine not in routed
    assert [f.count for f in routed if f.kind == "fact_summary"] == [1]


def test_a_reading_within_its_own_limits_is_summarised_past_them_kept(ruleset):
    """A rule's test that compares two fields of the fact itself (gpu_temp_at_slowdown: gpu_temp_c >= slowdown_c)
    is the router's too: a GPU below its own slowdown and memory limits binds no rule (folded), one at its
    slowdown temperature is kept (round rCA8)."""
    from stethoscope.facts.kinds.gpu import GpuTemperature

    router = routing.router_for(ruleset.rules)
    ev = {"path": "n/nvidia-smi-q.txt", "line": 40, "text": "GPU Current Temp : 90 C"}
    hot = GpuTemperature(id="a", node="n", evidence=ev, pci_bus_id="0000:18:00.0", gpu_temp_c=90, slowdown_c=90,
                         max_operating_c=85, memory_temp_c=70, max_memory_c=95)
    fine = GpuTemperature(id="b", node="n", evidence=ev, pci_bus_id="0000:18:00.0", gpu_temp_c=40, slowdown_c=90,
                          max_operating_c=85, memory_temp_c=45, max_memory_c=95)
    routed = router.route([hot, fine])
    assert hot in routed and fine not in routed
    assert [(f.of_kind, f.count) for f in routed if f.kind == "fact_summary"] == [("gpu_temperature", 1)]


def test_readings_routed_as_they_are_built_give_the_facts_routed_after(ruleset):
    """FactBuilder.add with the artefact's router builds only what goes on, and counts the rest
    into the same summaries Router.route makes of the whole facts (same kinds, counts, first line)."""
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.parsers import nvidia_smi_q

    router = routing.router_for(ruleset.rules)
    text = (ROOT / "fixtures/bundles/h200-healthy/bundle/vm/smi.txt").read_text()
    after = router.route(nvidia_smi_q.parse(Artefact(path="vm/smi.txt", node="vm", text=text)).facts)
    res = nvidia_smi_q.parse(Artefact(path="vm/smi.txt", node="vm", text=text, router=router))
    assert res.folded and all(k in router.summarised for _n, k in res.folded)
    assert not any(f.kind in router.dead for f in res.facts)
    built = router.route(res.facts, res.folded)
    # the facts kept in order; the summaries the same (a kind whose readings are built before they are routed, a
    # class with a "before" validator: gpu_power's draw_to_limit, is folded by Router.route, its summary after those
    # FactBuilder.add folded as it read)
    assert [f.model_dump() for f in built if f.kind != "fact_summary"] == \
        [f.model_dump() for f in after if f.kind != "fact_summary"]
    assert sorted((f.model_dump() for f in built if f.kind == "fact_summary"), key=lambda d: d["id"]) == \
        sorted((f.model_dump() for f in after if f.kind == "fact_summary"), key=lambda d: d["id"])


def test_ring_and_tree_lines_are_not_read_when_no_rule_binds_them(ruleset):
    """nccl_channels leaves NCCL's Ring/Tree lines unread when the rules in use bind neither
    kind (Router.dead); the ring orders, which engine code reads, and the communicators' node counts
    (nccl_comm_nodes, which rules bind) are the same."""
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.parsers import nccl_channels

    router = routing.router_for(ruleset.rules)
    assert {"nccl_ring_neighbour", "nccl_tree_link"} <= router.dead
    text = (ROOT / "fixtures/bundles/h200-healthy/bundle/vm/allreduce.log").read_text()
    whole = nccl_channels.parse(Artefact(path="vm/a.log", node="vm", text=text)).facts
    lean = nccl_channels.parse(Artefact(path="vm/a.log", node="vm", text=text, router=router)).facts
    assert {f.kind for f in whole} >= {"nccl_ring_neighbour", "nccl_tree_link", "nccl_ring_order"}
    assert lean == [f for f in whole if f.kind in ("nccl_ring_order", "nccl_comm_nodes")]
    assert [f.nnodes for f in lean if f.kind == "nccl_comm_nodes"] == [1]


def test_a_process_s_healthy_channels_are_one_summary_of_its_transports(ruleset):
    """NCCL's channel lines within a node (P2P but cuMem's) are one fact_summary a file that lists their
    transports (fact_routing.yaml summary_values), built as they are read or routed after alike; a channel
    over the network (its 'network' reading, nccl_checks' NET line) and one a rule binds (SHM) are kept; the
    transports perf_compare reads are those of every fact."""
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.parsers import nccl_log

    router = routing.router_for(ruleset.rules)
    channels, after = [], []
    for path in ("fixtures/artefacts/nccl_channels/two_nodes_2x2_socket.log",  # NET/Socket, SHM
                 "fixtures/artefacts/nccl_log/sendrecv_healthy_g2.nccl.log"):  # P2P/direct pointer
        text = (ROOT / path).read_text()
        whole = nccl_log.parse(Artefact(path=path, node="n", text=text)).facts
        routed = router.route(whole)
        res = nccl_log.parse(Artefact(path=path, node="n", text=text, router=router))
        assert [f.model_dump() for f in router.route(res.facts, res.folded)] == [f.model_dump() for f in routed]
        channels += [f for f in whole if f.kind == "nccl_transport"]
        after += routed
    kept = [f for f in after if f.kind == "nccl_transport"]
    summary, = (f for f in after if f.kind == "fact_summary" and f.of_kind == "nccl_transport")
    assert {f.family for f in kept} == {"NET", "SHM"} and all(f in channels for f in kept)
    assert summary.values == ("P2P/direct pointer",) and summary.count == len(channels) - len(kept)
    assert summary.evidence == next(f for f in channels if f not in kept).evidence
    assert {f.transport for f in kept} | set(summary.values) == {f.transport for f in channels}


def test_ecc_growth_reads_the_counts_a_summary_holds(ruleset, tmp_path):
    """Two nvidia-smi -q readings 30 minutes apart (DRAM Correctable 12, then 1480): no gpu_ecc_count is kept
    (no rule binds a correctable count), each file's summary holds its volatile correctable counts as rows, and
    the growth, its finding and evidence lines are those of the unrouted facts."""
    for name, fixture in (("ecc_before.txt", "ecc_sbe_reading_1.txt"), ("ecc_after.txt", "ecc_sbe_reading_2.txt")):
        (tmp_path / "node3").mkdir(exist_ok=True)
        (tmp_path / "node3" / name).write_text((ROOT / "fixtures/artefacts/nvidia_smi_q" / fixture).read_text())
    (routed, counts), (whole, whole_counts) = _report(tmp_path, ruleset, True), _report(tmp_path, ruleset, False)
    assert routed == whole and counts == whole_counts
    storm, = (f for f in routed["findings"] if f["rule"] == "ecc_correctable_storm")
    assert [e["text"].split(":")[-1].strip() for e in storm["evidence"]] == ["1480", "12"]
    obs = pipeline.observe_bundle(tmp_path, jobs=1, ruleset=ruleset)
    assert not [f for f in obs.facts if f.kind == "gpu_ecc_count"]
    assert [len(f.rows) for f in obs.facts if f.kind == "fact_summary" and f.of_kind == "gpu_ecc_count"] == [4, 4]


@pytest.mark.parametrize("plugin_log, shown", [("nccl_tests/nccl1320_prompt_and_nccl_info.txt", "Loaded net plugin NCCL RDMA Plugin"),
                                               ("nccl_log/nccl988_ib_sharp.nccl.log", "Plugin Path")])
def test_plugin_set_reads_the_events_a_summary_holds(ruleset, tmp_path, plugin_log, shown):
    """An external net plugin on one node, none on the other (tests/rules/nccl/nccl_net_plugin_missing.test.yaml's
    cases): no nccl_net_plugin is kept (no rule binds one), each file's summary holds its events as rows, and the
    finding with its evidence lines is that of the unrouted facts."""
    for node, log in (("node1", plugin_log), ("node2", "nccl_log/ib_two_nodes_2.5.6.log")):
        (tmp_path / node).mkdir()
        (tmp_path / node / "log").write_text((ROOT / "fixtures/artefacts" / log).read_text())
    (routed, counts), (whole, whole_counts) = _report(tmp_path, ruleset, True), _report(tmp_path, ruleset, False)
    assert routed == whole and counts == whole_counts
    missing, = (f for f in routed["findings"] if f["rule"] == "nccl_net_plugin_missing")
    assert any(shown in e["text"] for e in missing["evidence"])
    obs = pipeline.observe_bundle(tmp_path, jobs=1, ruleset=ruleset)
    assert not [f for f in obs.facts if f.kind == "nccl_net_plugin"]
    assert [f.node for f in obs.facts if f.kind == "fact_summary" and f.of_kind == "nccl_net_plugin" and f.rows]


def test_benchmark_validity_reads_the_gpus_a_summary_holds(ruleset, tmp_path):
    """A real nccl-tests run beside nvidia-smi -q at default clocks (tests/rules/benchmark/busbw_not_comparable's
    case): no gpu_usage or gpu_clocks is kept (no rule binds a readable GPU's), each file's summary holds them as
    rows, and baselines/bench.validity, its finding and evidence lines are those of the unrouted facts."""
    from stethoscope.engine.baselines import bench

    (tmp_path / "vm").mkdir()
    for name, fixture in (("out", "nccl_tests/allreduce_socket_only_g2.txt"), ("q", "nvidia_smi_q/nvidia-smi-q.txt")):
        (tmp_path / "vm" / name).write_text((ROOT / "fixtures/artefacts" / fixture).read_text())
    (routed, counts), (whole, whole_counts) = _report(tmp_path, ruleset, True), _report(tmp_path, ruleset, False)
    assert routed == whole and counts == whole_counts
    assert any("clocks not pinned" in f["summary"] for f in routed["findings"])
    lean = pipeline.observe_bundle(tmp_path, jobs=1, ruleset=ruleset).facts
    full = pipeline.observe_bundle(tmp_path, jobs=1).facts
    assert not [f for f in lean if f.kind in ("gpu_usage", "gpu_clocks")]
    assert [f for f in full if f.kind in ("gpu_usage", "gpu_clocks")]
    # (a row is cited as '<summary id>@<i>' where the fact was by its id: the same line, the reports above the same)
    assert [v.model_dump(exclude={"sources"}) for v in bench.validity(lean)] == \
        [v.model_dump(exclude={"sources"}) for v in bench.validity(full)]


@pytest.mark.parametrize("bundle, rule, shown", [
    # nccl_summary.independent_runs cites rank 0's line (tests/rules/nccl/nccl_tests_ranks_not_joined's case)
    ("artefacts/nccl_tests/crafted_two_processes_two_headers_g1.txt", "nccl_tests_ranks_not_joined", "Pid   1429 on         vm device  0"),
    # localise/pairwise reads each run's hosts; perf_compare, nvls_use and common_cause the ranks of every run
    ("bundles/seed-8x8-pairwise-rate100/bundle", None, None),
    ("bundles/h200-healthy/bundle", None, None),
])
def test_rank_readers_read_the_ranks_a_summary_holds(ruleset, tmp_path, bundle, rule, shown):
    """nccl-tests' rank lines are rows of their files' summaries (fact_routing.yaml summary_rows): no nccl_test_rank is
    kept (no rule binds one), and the report, the findings' evidence lines included, is that of the unrouted facts;
    facts/readings.records gives the rows as the facts were, in their order, with their nodes and evidence."""
    from stethoscope.facts.readings import records

    path = ROOT / "fixtures" / bundle
    if path.is_file():
        (tmp_path / "vm").mkdir()
        (tmp_path / "vm" / "out").write_text(path.read_text())
        path = tmp_path
    (routed, counts), (whole, whole_counts) = _report(path, ruleset, True), _report(path, ruleset, False)
    assert routed == whole  # (the counts lower only by the ring and tree links left unread: Router.dead)
    assert all(a <= b for a, b in zip(counts, whole_counts))
    if rule:
        found, = (f for f in routed["findings"] if f["rule"] == rule)
        assert any(shown in e["text"] for e in found["evidence"])
    lean = pipeline.observe_bundle(path, jobs=1, ruleset=ruleset).facts
    full = [f for f in pipeline.observe_bundle(path, jobs=1).facts if f.kind == "nccl_test_rank"]
    assert full and not [f for f in lean if f.kind == "nccl_test_rank"]
    fields = knowledge.load("fact_routing.yaml").summary_rows["nccl_test_rank"].fields
    assert [(*(getattr(r, n) for n in fields), r.node, r.evidence) for r in records(lean, "nccl_test_rank")] == \
        [(*(getattr(f, n) for n in fields), f.node, f.evidence) for f in full]
    assert [r.id for r in records(full, "nccl_test_rank")] == [f.id for f in full]


@pytest.mark.parametrize("evidence", [
    {"path": "n/nvidia-smi-q.txt", "line": 9, "text": "        DRAM Correctable                  : 0"},
    {"path": "".join(["n/", "p-" * 40]), "line": 1, "text": "".join(["t"] * 300)},
    {"path": "n/x.log", "line": 2, "text": ""},
])
def test_summaries_are_built_as_validation_builds_them(evidence):
    """routing._summary (no validation) gives what FactSummary(...) gives: values, types, fields
    set, interned strings, the evidence as an Evidence or from a dict."""
    from stethoscope.facts.kinds.derived import FactSummary
    from stethoscope.facts.model import Evidence
    from stethoscope.facts.parsers.base import _same

    for ev in (dict(evidence), Evidence(**evidence)):
        for node, kind in (("node0001", "gpu_ecc_count"), ("".join(["n-"] * 35), "".join(["k"] * 70))):
            fid = f"{evidence['path']}:{evidence['line']}:{kind}~summary"
            want = FactSummary(id=fid, node=node, evidence=ev, of_kind=kind, count=7)
            got = routing._summary(fid, node, dict(ev) if type(ev) is dict else ev, kind, 7)
            assert _same(got, want) and got == want and got.model_dump() == want.model_dump()
            assert got.__pydantic_fields_set__ is want.__pydantic_fields_set__
            assert [type(v) for v in got.evidence.__dict__.values()] == [str, int, str]
            for value in (got.node, got.of_kind, got.evidence.path, got.evidence.text):  # short ones interned
                assert (value is intern("".join(value))) == (len(value) <= 64)


@pytest.mark.parametrize("cap", [20_000, 5])
def test_rows_added_at_once_give_what_adding_them_one_by_one_gives(ruleset, monkeypatch, cap):
    """FactBuilder.add_rows (a reading the router folds only counted, its plan kept in the memo)
    makes the same facts, ids, folded counts and capped counts as add, row by row; past the
    per-kind cap too."""
    from stethoscope.facts.parsers import base
    from stethoscope.facts.parsers.gpu_state_facts import GpuEccCount, GpuUsage

    monkeypatch.setattr(base, "FACTS_PER_KIND", cap)
    router = routing.router_for(ruleset.rules)
    rows = [(GpuEccCount, 1, {"scope": "aggregate", "error_type": "correctable", "location": "dram", "count": 0}),
            (GpuEccCount, 1, {"scope": "aggregate", "error_type": "correctable", "location": "sram", "count": 0}),
            (GpuEccCount, 2, {"scope": "volatile", "error_type": "correctable", "location": "dram", "count": 0}),
            (GpuEccCount, 3, {"scope": "volatile", "error_type": "uncorrectable", "location": "dram", "count": 2}),
            (GpuUsage, 4, {"index": None, "utilization_pct": 0, "compute_processes": 0})]
    text = "".join(f"row {i}\n" for i in range(40))
    made = []
    for at_once in (True, False):
        art = base.Artefact(path="n/nvidia-smi-q.txt", node="n", text=text, router=router, line_offset=3)
        b = base.FactBuilder(art, base.ParseResult())
        memo: dict = {}
        for gpu, at in enumerate((1, 11, 21)):
            if at_once:
                b.add_rows(rows, at, None, memo, {GpuUsage: {"index": gpu}}, pci_bus_id=f"0000:{gpu}:00.0")
            else:
                for cls, below, fields in rows:
                    fields = {**fields, "index": gpu} if cls is GpuUsage else fields
                    b.add(cls, at + below, node=None, pci_bus_id=f"0000:{gpu}:00.0", **fields)
        made.append(([f.model_dump() for f in b.result.facts], b.result.folded, b.result.capped))
        if at_once:  # the router's plan of the rows: the zero counts folded unasked, the others built
            (_router, _swapped, plan), = memo.values()
            assert [row[3] for row in plan] == ["gpu_ecc_count", "gpu_ecc_count", "gpu_ecc_count", None, None]
    assert made[0] == made[1]
    facts, folded, capped = made[0]
    # the cap counts every reading of the kind, folded or built: 12 of them, 5 kept or folded
    assert (folded[("n", "gpu_ecc_count")][2], capped.get("gpu_ecc_count", [0])[0]) == ((9, 0) if cap > 5 else (4, 7))
    # the volatile correctable counts folded are the summary's rows (fact_routing.yaml summary_rows), at their lines
    assert [row[:4] for row in folded[("n", "gpu_ecc_count")][3]] == [
        (f"0000:{gpu}:00.0", "dram", 0, at + 2 + 3) for gpu, at in enumerate((1, 11, 21))][:3 if cap > 5 else 1]
    # gpu_usage (its index swapped in a GPU at a time) is folded too: its rows (fact_routing.yaml summary_rows), in order
    assert [row[0] for row in folded[("n", "gpu_usage")][3]] == [f"0000:{gpu}:00.0" for gpu in range(3)]


@pytest.mark.parametrize("cap", [20_000, 3])
def test_rows_added_each_give_what_adding_them_one_by_one_gives(ruleset, monkeypatch, cap):
    """FactBuilder.add_each (nccl_tests_facts.emit_rows: a table's rows, those the router folds counted
    without a call to add) makes the same facts, ids, folded, capped and seen counts as add row by row,
    and gives each row's quote and its count of earlier facts of its kind at its line; with rows the
    router keeps (wrong > 0), two rows on one line, a reader's quote, past the per-kind cap too."""
    from stethoscope.facts.parsers import base
    from stethoscope.facts.parsers.nccl_tests_facts import NcclTestRow

    monkeypatch.setattr(base, "FACTS_PER_KIND", cap)
    router = routing.router_for(ruleset.rules)
    assert "nccl_test_row" in router.summarised

    def row(size, wrong=0):
        return {"collective": "all_reduce", "size_bytes": size, "count": size // 4, "dtype": "float", "redop": "sum",
                "root": None, "oop_time_us": 17.74, "oop_algbw": 0.0, "oop_busbw": 0.0, "oop_wrong": wrong,
                "ip_time_us": 17.11, "ip_algbw": 0.0, "ip_busbw": 0.0, "ip_wrong": 0, "wrong": wrong}
    rows = [(2, row(8), None), (3, row(16), None), (4, row(32, wrong=3), None), (4, row(64), "a reader's quote"),
            (5, row(128), None), (6, row(256, wrong=1), None), (7, row(512), None)]
    text = "".join(f"{i:>12}  row {i}\n" for i in range(40))
    made = []
    for each in (True, False):
        art = base.Artefact(path="n/nccl-tests/all_reduce.txt", node="n", text=text, router=router, line_offset=2)
        b = base.FactBuilder(art, base.ParseResult())
        got = []
        for run in ("run-a", "run-b"):
            if each:
                got.append(b.add_each(NcclTestRow, rows, None, run_id=run))
            else:
                texts, nth = [], []
                for line, fields, quote in rows:
                    fact = b.add(NcclTestRow, line, node=None, text=quote, run_id=run, **fields)
                    texts.append(fact.evidence.text if fact is not None else b.quote(line, quote))
                    nth.append(b.seen(line, "nccl_test_row") - 1)
                got.append((texts, nth))
        made.append(([f.model_dump() for f in b.result.facts], b.result.folded, b.result.capped, b._seen, b._kinds, got))
    assert made[0] == made[1]
    facts, folded, capped, _seen, _kinds, got = made[0]
    assert got[0][1] == [0, 0, 0, 1, 0, 0, 0] and got[1][1] == [1, 1, 2, 3, 1, 1, 1]
    assert got[0][0][3] == "a reader's quote" and got[0][0][0] == "           1  row 1"
    # the cap counts every reading of the kind, folded or built: 14 of them
    kept = [f["size_bytes"] for f in facts if f["kind"] == "nccl_test_row"]
    assert (kept, folded[("n", "nccl_test_row")][2], capped.get("nccl_test_row", [0])[0]) == (
        ([32, 256, 32, 256], 10, 0) if cap > 3 else ([32], 2, 11))

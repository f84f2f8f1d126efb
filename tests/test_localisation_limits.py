"""The localisers' limits are knowledge/localisation.yaml's: each edge tested on both sides,
with the figures read from the file (a site that edits them keeps the tests meaningful)."""
from __future__ import annotations

from itertools import combinations

import pytest

from stethoscope.engine.localise.common_cause import lift
from stethoscope.engine.localise.graph import build
from stethoscope.engine.localise.pairwise import limits, pairwise
from stethoscope.engine.report import Entity, Finding
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers.nccl_topo_xml import NcclTopoGpu, NcclTopoPci
from stethoscope.facts.parsers.pair_matrix_csv import PairBandwidth

EV = Evidence(path="n/pairs.csv", line=1, text="host_a,host_b,busbw")


def _pairs(hosts: int, bw: dict[tuple[int, int], float], healthy: float = 100.0) -> list[PairBandwidth]:
    return [PairBandwidth(id=f"p{a}-{b}", node=f"h{a}", evidence=EV, host_a=f"h{a}", host_b=f"h{b}", busbw_gbs=bw.get((a, b), healthy),
                          source="csv_rows") for a, b in combinations(range(hosts), 2)]


def _run(facts):
    return pairwise(facts, build(facts), [])


def test_the_severity_and_blame_of_a_localisation_finding_are_the_files():
    k = limits()
    (f,) = _run(_pairs(5, {(0, 1): 50.0}))
    assert (f.severity, f.cause, f.component, f.actions) == (k.severity, k.pairwise.link.cause, k.pairwise.link.component, k.pairwise.link.actions)
    assert f.entity.link == ["h0", "h1"] and f.confidence == k.pairwise.confidence.link


def test_slow_fraction_edge():
    k = limits().pairwise
    at = k.slow_fraction * 100.0  # reference pair 100 GB/s
    assert _run(_pairs(5, {(0, 1): at})) == []
    (f,) = _run(_pairs(5, {(0, 1): at - 0.1}))
    assert f.entity.link == ["h0", "h1"]


def test_the_reference_pair_is_the_upper_quartile_so_a_fault_that_slows_most_pairs_still_shows():
    """nccl-tests#106 (the reporter's busbw per node pair, GB/s): three of five pairs at 49, two
    at 87; se02gn644 is in two of the slow ones and in no fast one. Against the median (a slow
    pair) nothing was slow; against the upper quartile the node and the third slow pair's link."""
    import statistics

    from stethoscope.engine.localise.pairwise import reference
    k = limits().pairwise
    assert reference([1.0, 2.0, 3.0, 4.0, 10.0], 0.5) == statistics.median([1.0, 2.0, 3.0, 4.0, 10.0])
    assert reference([49.28, 49.30, 49.36, 86.81, 88.36], k.reference_quantile) == 86.81
    rows = {("se02gn644", "se02gn699"): 49.36, ("se02gn632", "se02gn641"): 88.36, ("se02gn284", "se02gn678"): 49.28,
            ("se02gn641", "se02gn644"): 49.30, ("se02gn404", "se02gn699"): 86.81}
    facts = [PairBandwidth(id=f"p{i}", node=a, evidence=EV, host_a=a, host_b=b, busbw_gbs=bw, source="csv_rows")
             for i, ((a, b), bw) in enumerate(rows.items())]
    found = _run(facts)
    assert sorted((f.entity.node or "-", tuple(f.entity.link or ())) for f in found) == [
        ("-", ("se02gn284", "se02gn678")), ("se02gn644", ())]
    # the edge: a pair at slow_fraction of the reference is not slow, just under it is
    at = k.slow_fraction * 86.81
    edge = [f.model_copy(update={"busbw_gbs": at}) if f.host_a == "se02gn284" else f for f in facts]
    assert all(f.entity.link != ["se02gn284", "se02gn678"] for f in _run(edge))
    edge = [f.model_copy(update={"busbw_gbs": at - 0.01}) if f.host_a == "se02gn284" else f for f in facts]
    assert any(f.entity.link == ["se02gn284", "se02gn678"] for f in _run(edge))


def test_min_pairs_edge():
    n = limits().pairwise.min_pairs
    facts = _pairs(n, {(0, 1): 10.0})  # n hosts give at least n pairs
    assert len(_run(facts)) == 1
    assert _run(facts[: n - 1]) == []


def test_consistent_fraction_edge():
    k = limits().pairwise
    assert k.consistent_fraction == 0.75, "the host counts below give 3 of 4 and 2 of 3 slow pairs"
    # h0 slow with 3 of its 4 partners: the host
    (f,) = _run(_pairs(5, {(0, 1): 50.0, (0, 2): 50.0, (0, 3): 50.0}))
    assert (f.entity.node, f.cause) == ("h0", "slow_link_pair")
    assert f.confidence == round(k.confidence.base + k.confidence.per_fraction * 0.75, 2)
    # h0 slow with 2 of its 3 partners: below the fraction, two links
    found = _run(_pairs(4, {(0, 1): 50.0, (0, 2): 50.0}))
    assert sorted(tuple(f.entity.link) for f in found) == [("h0", "h1"), ("h0", "h2")]


def _finding(severity: str, gpu: str) -> Finding:
    return Finding(rank=0, rule="xid79_gpu_fell_off_bus", title="t", cause="gpu_fell_off_bus", component="gpu", severity=severity,
                   confidence=0.9, role="independent", entity=Entity(label=gpu, node="n1", gpu=gpu), summary=f"fell off {gpu}", actions=[],
                   action_text="", evidence=[{"path": "x", "line": 1, "text": gpu}], evidence_total=1, nodes=["n1"])


def _switch_with(gpus: int) -> list:
    """One PCIe switch of node n1 with ``gpus`` GPUs behind it (NCCL topology dump facts)."""
    ev = Evidence(path="n1/topo.xml", line=1, text="<pci>")
    out: list = [NcclTopoPci(id="b", node="n1", evidence=ev, pci_bus_id="0000:15:00.0", pci_class="0x060400")]
    for j in range(gpus):
        bus = f"0000:{0x18 + j:02x}:00.0"
        out.append(NcclTopoPci(id=f"p{j}", node="n1", evidence=ev, pci_bus_id=bus, pci_class="0x030200", parent="0000:15:00.0"))
        out.append(NcclTopoGpu(id=f"g{j}", node="n1", evidence=ev, pci_bus_id=bus, dev=j))
    return out


@pytest.mark.parametrize("behind, lifted", [(4, True), (5, False)])
def test_lift_fraction_edge(behind, lifted):
    k = limits().common_cause
    assert k.lift_fraction == 0.5, "two findings of four GPUs are at the fraction, of five below it"
    facts = _switch_with(behind)
    found = [_finding("critical", f"0000:{0x18 + j:02x}:00.0") for j in range(2)]
    got = lift(found, build(facts), facts)[1]
    assert bool(got) is lifted
    if lifted:
        (top, _), = got
        assert top.confidence == round(min(k.confidence.max, k.confidence.base + k.confidence.per_fraction * 2 / behind), 2)


def test_min_severity_and_min_members_edges():
    k = limits().common_cause
    assert (k.min_severity, k.min_members) == ("warning", 2)
    facts = _switch_with(2)
    graph = build(facts)
    gpus = ["0000:18:00.0", "0000:19:00.0"]
    assert lift([_finding("warning", g) for g in gpus], graph, facts)[1]
    assert not lift([_finding("info", g) for g in gpus], graph, facts)[1]
    assert not lift([_finding("critical", gpus[0])], graph, facts)[1]

"""Issue 5, second part: ring/tree and OOB lines, pair CSV tables, common-cause lifting,
the switch and RDMA localisation paths."""
from pathlib import Path

import pytest

from stethoscope.engine.localise.common_cause import lift
from stethoscope.engine.pipeline import diagnose_bundle, parse_artefacts
from stethoscope.engine.localise.pairwise import pair_bandwidth, pairwise
from stethoscope.engine.localise.rdma_path import rdma_peers
from stethoscope.engine.report import Entity, Finding
from stethoscope.engine.localise.graph import build
from stethoscope.engine.localise.render import text_tree
from stethoscope.facts.bundle import artefacts, read_bundle
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers import nccl_channels, nccl_net_oob, pair_matrix_csv
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_topo_xml import NcclTopoGpu, NcclTopoPci

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts"
BUNDLES = ROOT / "fixtures" / "bundles"


def _art(rel: str, node: str = "n1") -> Artefact:
    return Artefact(path=rel, text=(ART / rel).read_text(), node=node)


def _facts(res, kind):
    return [f for f in res.facts if f.kind == kind]


@pytest.mark.parametrize("rel, kind, want", [
    # real 2 x H200 log: one ring 0 1 over 24 channels, trees split 12/12, GRAPH-level Ring lines
    ("nccl_log/allreduce_healthy_g2.nccl.log", "nccl_ring_order", [("0xb308046427702aaf", "0 1", 24)]),
    ("nccl_log/allreduce_healthy_g2.nccl.log", "nccl_ring_neighbour", [("0xb308046427702aaf", 1, 0, 0), ("0xb308046427702aaf", 0, 1, 1)]),
    # real two-node run: ring 0 1 2 3 on 2 channels; rank 0 has children 1 and 2 on channel 0, parent 2 on channel 1
    ("nccl_channels/two_nodes_2x2_socket.log", "nccl_ring_order", [("0x89739f751af3a52d", "0 1 2 3", 2)]),
    ("nccl_channels/two_nodes_2x2_socket.log", "nccl_tree_link", [("0x89739f751af3a52d", 1, 0, "", "0,1"), ("0x89739f751af3a52d", 0, -1, "1 2", "0"),
                                                                  ("0x89739f751af3a52d", 0, 2, "1", "1")]),
    # NCCL 2.8 trees and no comm line: the comm is the process (nccl#428)
    ("nccl_log/socket_t4_2.8.3.log", "nccl_tree_link", [("pid93569", 1, 0, "", "0,1")]),
])
def test_ring_and_tree_lines(rel, kind, want):
    res = nccl_channels.parse(_art(rel))
    assert not res.errors and res.lines_used == 0
    got = _facts(res, kind)
    if kind == "nccl_ring_order":
        assert [(f.comm, f.order, f.channel_count) for f in got] == want
    elif kind == "nccl_ring_neighbour":
        assert [(f.comm, f.rank, f.prev_rank, f.next_rank) for f in got] == want
    else:
        assert [(f.comm, f.rank, f.parent, f.children, f.channels) for f in got] == want


@pytest.mark.parametrize("rel, want", [
    # real two-node run (NCCL 2.2x): each rank prints its communicator's node count, rank 1 before rank 0's ring order
    ("nccl_channels/two_nodes_2x2_socket.log", [("0x89739f751af3a52d", 1, 4, 2, 2, 1), ("0x89739f751af3a52d", 0, 4, 2, 2, 0)]),
    # real 2 x H200 log, NCCL 2.28.9: one node
    ("nccl_log/allreduce_healthy_g2.nccl.log", [("0xb308046427702aaf", 0, 2, 1, 2, 0)]),
    # NCCL 2.8 prints no node count
    ("nccl_log/socket_t4_2.8.3.log", []),
])
def test_communicator_node_counts(rel, want):
    res = nccl_channels.parse(_art(rel))
    got = _facts(res, "nccl_comm_nodes")
    assert [(f.comm, f.rank, f.nranks, f.nnodes, f.local_ranks, f.local_rank) for f in got] == want
    assert [f.mnnvl for f in got] == [0] * len(want) or rel.endswith("2.8.3.log")  # the line's 'MNNVL 0'
    assert all(" nNodes " in f.evidence.text for f in got)


def test_channel_lines_are_not_counted_twice_in_coverage():
    """nccl_log counts every NCCL-prefixed line; the ring/tree, OOB, NVLS, MNNVL and topology-print parsers add none."""
    art = _art("nccl_log/allreduce_healthy_g2.nccl.log", "vm")
    (cov,) = parse_artefacts([art]).coverage.files
    assert cov.kind == "nccl_channels+nccl_log+nccl_mnnvl+nccl_net_oob+nccl_nvls+nccl_topo_print"
    from stethoscope.facts.parsers import nccl_log

    nonblank = sum(1 for ln in art.lines if ln.strip())
    assert cov.skipped_lines == max(0, nonblank - nccl_log.parse(art).lines_used)
    assert any("Channel 00/24 : 0 1" in ln for ln in art.lines)  # the lines are there, counted once


def test_rings_feed_the_graph_and_the_tree():
    facts = parse_artefacts([_art("nccl_log/allreduce_healthy_g2.nccl.log", "vm")]).facts
    g = build(facts)
    assert g.graph["rings"] == {"0xb308046427702aaf": [[0, 1]]}
    assert g.edges["gpu:vm/0000:00:06.0", "gpu:vm/0000:00:07.0"] == {"type": "ring", "comm": "0xb308046427702aaf", "channels": 24}
    from rich.console import Console

    con = Console(width=200, record=True)
    con.print(text_tree(g, {}))
    assert "comm 0xb308046427702aaf: 0 -> 1 -> 0" in con.export_text()


def test_oob_addresses_real_and_crafted():
    real = nccl_net_oob.parse(_art("nccl_log/ib_two_nodes_2.5.6.log"))
    assert {(f.node, f.interface, f.address, f.devices) for f in real.facts} >= {("pkb-aa8dbd1b-0", "eth0", "10.0.0.5", "mlx4_0:1")}
    res = nccl_net_oob.parse(_art("nccl_net_oob/rdma_job_three_nodes.log"))
    assert [(f.node, f.address) for f in res.facts] == [("gpu-01", "10.1.0.1"), ("gpu-02", "10.1.0.2"), ("gpu-03", "10.1.0.3")]
    assert res.lines_used == 0 and not nccl_net_oob.detect("vm:1:1 [0] NCCL INFO NET/IB : No device found.")


def test_rdma_error_toward_an_oob_address_names_the_peer():
    facts = parse_artefacts([_art("nccl_net_oob/rdma_job_three_nodes.log", "unknown")]).facts
    (f,), _ = rdma_peers(facts)
    # one reporter, no port state of the peer: the link between the reporter's HCA and the peer
    assert f.entity.link == ["gpu-01/mlx5_3", "gpu-03"] and "the address of gpu-03" in f.placed_by[0]


def test_pair_csv_long_and_matrix():
    long = pair_matrix_csv.parse(_art("pair_matrix_csv/pairs_long.csv"))
    mat = pair_matrix_csv.parse(_art("pair_matrix_csv/pairs_matrix.csv"))
    assert not long.errors and not mat.errors and long.lines_used == 12 and mat.lines_used == 5
    pairs = pair_bandwidth(long.facts)
    assert pairs[frozenset({"node01", "node02"})][0] == 181.2  # the 1 GiB slow run is not the largest size
    assert pairs[frozenset({"node03", "node06"})][0] == 101.3
    mp = pair_bandwidth(mat.facts)
    assert len(mp) == 6 and mp[frozenset({"node03", "node04"})][0] == 102.2  # best of both directions
    assert frozenset({"node02", "node04"}) in mp  # node04's row measured it though node02's says '-'


@pytest.mark.parametrize("text, ok", [
    ("src,dst,busbw_gbps\nnode01,node02,181.2\n", True),
    (",a1,a2\na1,,3.5\na2,3.1,\n", True),
    ("name, pci.bus_id, temperature.gpu\nNVIDIA H200, 00000000:18:00.0, 31\n", False),
    ("a,b,c\n1,2,3\n", False),
])
def test_pair_csv_is_recognised_by_content(text, ok):
    assert pair_matrix_csv.detect(text) is ok


def test_pair_csv_bad_cell_is_a_parse_error_on_its_line():
    res = pair_matrix_csv.parse(Artefact("p.csv", "src,dst,busbw\nn1,n2,fast\nn1,n3,180\n"))
    assert [(e.line, "not a number" in e.message) for e in res.errors] == [(2, True)] and len(res.facts) == 1


def _finding(rule, cause, component, entity, severity="critical"):
    ev = Evidence(path="x", line=1, text=rule)
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component=component, severity=severity, confidence=0.9, role="independent",
                   entity=Entity(label=" ".join(f"{k}={v}" for k, v in entity.items()), **entity), summary=f"{rule} {entity}", actions=[],
                   action_text="", evidence=[{"path": ev.path, "line": ev.line, "text": ev.text}], evidence_total=1, nodes=[entity.get("node", "")])


def _pci_tree():
    """Two PCIe switches of a DGX-like node, two GPUs behind each (NCCL topology dump facts)."""
    ev = Evidence(path="n1/topo.xml", line=1, text="<pci>")
    out = []
    for i, (bridge, gpus) in enumerate((("0000:15:00.0", ["0000:18:00.0", "0000:1b:00.0"]), ("0000:40:00.0", ["0000:43:00.0", "0000:46:00.0"]))):
        out.append(NcclTopoPci(id=f"b{i}", node="n1", evidence=ev, pci_bus_id=bridge, pci_class="0x060400"))
        for j, g in enumerate(gpus):
            out.append(NcclTopoPci(id=f"p{i}{j}", node="n1", evidence=ev, pci_bus_id=g, pci_class="0x030200", parent=bridge))
            out.append(NcclTopoGpu(id=f"g{i}{j}", node="n1", evidence=ev, pci_bus_id=g, dev=i * 2 + j))
    return out


def test_gpus_behind_one_pcie_switch_lift_to_it_and_a_near_miss_does_not():
    facts = _pci_tree()
    g = build(facts)
    both = [_finding("xid79_gpu_fell_off_bus", "gpu_fell_off_bus", "gpu", {"node": "n1", "gpu": b}) for b in ("0000:18:00.0", "0000:1b:00.0")]
    out, lifted = lift(both, g, facts)
    ((top, members),) = lifted
    assert (top.cause, top.entity.node, top.entity.switch, len(members)) == ("pcie_switch_fault", "n1", "0000:15:00.0", 2)
    assert top.blast_radius == [m.entity.label for m in both] and "2 of the 2 GPUs behind PCIe switch 0000:15:00.0" in top.placed_by[0]
    apart = [_finding("xid79_gpu_fell_off_bus", "gpu_fell_off_bus", "gpu", {"node": "n1", "gpu": b}) for b in ("0000:18:00.0", "0000:43:00.0")]
    assert lift(apart, g, facts)[1] == []
    app = [_finding("xid13_31_app_fault", "app_gpu_fault", "application", {"node": "n1", "gpu": b}) for b in ("0000:18:00.0", "0000:1b:00.0")]
    assert lift(app, g, facts)[1] == []  # an application bug on both GPUs says nothing about the switch


def test_every_rank_of_one_node_lifts_to_the_node():
    rank_lines = parse_artefacts([Artefact("nt.txt", "\n".join(
        ["# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809", "# Collective test starting: all_reduce_perf", "# Using devices"] +
        [f"#  Rank {r:2d} Group  0 Pid {4100 + r:6d} on {'na' if r < 2 else 'nb'} device {r % 2:2d} [0000:{0x18 + r:02x}:00] NVIDIA H200" for r in range(4)]) + "\n")]).facts
    g = build(rank_lines)
    strag = [_finding("nccl_timeout_straggler", "nccl_timeout_straggler", "nccl", {"node": "na", "rank": r}) for r in (0, 1)]
    (top, members), = lift(strag, g, rank_lines)[1]
    assert top.entity.node == "na" and top.entity.rank is None and len(members) == 2 and "ranks on other nodes do not" in top.placed_by[0]
    everyone = strag + [_finding("nccl_timeout_straggler", "nccl_timeout_straggler", "nccl", {"node": "nb", "rank": r}) for r in (2, 3)]
    assert lift(everyone, g, rank_lines)[1] == []  # every rank of every node: no node stands out
    assert lift(strag[:1], g, rank_lines)[1] == []


def _bundle_facts(case):
    return parse_artefacts(artefacts(read_bundle(BUNDLES / case / "bundle"))[0]).facts


def test_pairs_alone_single_out_the_leaf_switch():
    facts = [f for f in _bundle_facts("fabric-16-leaf-switch") if f.kind not in ("ib_port", "ib_port_summary", "ib_hca")]
    (f,) = pairwise(facts, build(facts), [])
    assert (f.entity.switch, f.cause) == ("leaf03", "ib_switch_fault") and f.blast_radius == ["gpu-09", "gpu-10", "gpu-11", "gpu-12"]
    assert any("pairs that avoid it are fast" in p for p in f.placed_by)


def test_leaf_switch_report_merges_pairs_and_port_findings(ruleset):
    report = diagnose_bundle(BUNDLES / "fabric-16-leaf-switch" / "bundle", ruleset)
    top = report.findings[0]
    assert any(p.startswith("common cause: 32 of the 32 host ports cabled to leaf03") for p in top.placed_by)
    assert any("cabling: ibnetdiscover" in p for p in top.placed_by)
    assert len(top.explains) == 32 and all(f.role == "cascade" for f in report.findings[1:])
    assert not [f for f in report.findings if f.rule == "localise_common_cause"]  # one finding for leaf03, not two


def _counter_findings(ruleset, facts):
    """What the rules judge of the ports' counters (ib_counter_growth against its limit) and
    rates (against siblings, fleet, inventory): the localiser reads their verdict, not the facts'."""
    from stethoscope.engine.localise.pairwise import COUNTER_RULES, DEGRADED_RULES
    from stethoscope.engine.pipeline import evaluate

    return [f for f in evaluate(ruleset, facts, "reference") if (COUNTER_RULES | DEGRADED_RULES).intersection(f.rules)]


def test_rdma_peer_with_two_flagged_ports_is_not_narrowed(ruleset):
    facts = _bundle_facts("rdma-16-peer-link")
    (f,), explains = rdma_peers(facts, build(facts), _counter_findings(ruleset, facts))
    assert f.entity.link == ["gpu-11/mlx5_3/1", "rail3/11"] and explains == []
    ib = "".join(f"CA 'mlx5_{i}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: {r}\n\t\tBase lid: {200 + i}\n\t\tLink layer: InfiniBand\n"
                 for i, r in enumerate([200, 200, 200, 200, 100, 200, 200, 200]))
    more = [x for x in facts if x.kind not in ("ib_port", "ib_port_summary", "ib_hca", "ib_counter_growth", "ib_counter_total")]
    extra = parse_artefacts([Artefact("gpu-11/ibstat2", ib, "gpu-11", True),
                             Artefact("gpu-11/perfquery.txt", (BUNDLES / "rdma-16-peer-link/bundle/gpu-11/perfquery.txt").read_text(), "gpu-11", True)]).facts
    (f2,), _ = rdma_peers(more + extra, build(more + extra), _counter_findings(ruleset, more + extra))
    assert f2.entity.node == "gpu-11" and f2.entity.hca is None and "not narrowed to one" in f2.placed_by[-1]


def test_ibstat_and_ibv_devinfo_of_the_same_port_in_one_bundle(tmp_path):
    """Operators paste `ibstat` and `ibv_devinfo` of the same host into one ticket: both describe
    port mlx5_0/1 (the long fuzz run found fabric.summarise raising KeyError 'ibv_devinfo' there).
    The ibv_devinfo capture is the real softroce one with its HCA named as in the ibstat one."""
    art = Path(__file__).resolve().parent.parent / "fixtures" / "artefacts"
    node = tmp_path / "bundle" / "host1"
    node.mkdir(parents=True)
    (node / "ibstat.txt").write_bytes((art / "ibstat" / "l2fwd_nv6_roce_100.txt").read_bytes())
    devinfo = (art / "ibv_devinfo" / "rxe_dev46_softroce.txt").read_text().replace("hca_id: rxe0", "hca_id: mlx5_0")
    (node / "ibv_devinfo.txt").write_text(devinfo)
    report = diagnose_bundle(tmp_path / "bundle")
    assert not [e for e in report.coverage.errors if "parser failed" in e.message or "internal" in e.message]
    assert {c.path for c in report.coverage.files} >= {"host1/ibstat.txt", "host1/ibv_devinfo.txt"}

"""Topology graph, localisation and rendering (text tree, SVG, PNG) over real fixtures."""
import shutil
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.pipeline import diagnose_bundle, parse_artefacts
from stethoscope.engine.localise.pairwise import pair_bandwidth
from stethoscope.engine.localise.graph import build, fabric_path
from stethoscope.engine.localise.render import suspects, to_dot
from stethoscope.facts.bundle import artefacts, read_bundle
from stethoscope.facts.inventory import load_inventory
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "bundles" / "seed-8x8-pairwise-rate100" / "bundle"


def _facts(*files):
    return parse_artefacts([Artefact(path=p, text=(ROOT / "fixtures" / "artefacts" / p).read_text(), node=n, node_from_folder=True) for n, p in files]).facts


def test_graph_from_ibnetdiscover_has_canonical_ids_and_a_path_through_the_leaf():
    g = build(_facts(("fabric", "ibnetdiscover/two_hosts_one_leaf.txt")))
    assert {"host:node01", "hca:node01/mlx5_0", "port:node01/mlx5_0/1", "switch:leaf01"} <= set(g)
    assert fabric_path(g, "node01", "node02") == ["port:node01/mlx5_0/1", "switch:leaf01", "port:node02/mlx5_0/1"]


def test_inventory_adds_cabling_and_uplinks():
    inv = load_inventory((ROOT / "fixtures/artefacts/steth_inventory/two_nodes.yaml").read_text())
    g = build([], inv)
    assert g.has_edge("port:node01/mlx5_0/1", "switch:leaf01") and g.has_edge("switch:leaf01", "switch:spine01")


def test_gpu_nvlink_and_pci_from_real_h200_capture():
    g = build(_facts(("vm", "nccl_topo_xml/h200_topo_dump.xml"), ("vm", "nvidia_smi_topo/h200_nv18_topo_m.txt")))
    assert g.has_edge("pci:vm/0000:00:06.0", "gpu:vm/0000:00:06.0") and g.has_edge("gpu:vm/GPU0", "gpu:vm/GPU1")
    assert g.nodes["nvswitch:vm"]["type"] == "nvswitch"


def test_pairwise_best_of_repeats_and_pairs_from_rank_lines():
    facts = parse_artefacts(artefacts(read_bundle(ROOT / "fixtures/bundles/fabric-16-node-hca-and-link/bundle"))[0]).facts
    pairs = pair_bandwidth(facts)
    assert len(pairs) == 120
    bw, rows = pairs[frozenset({"gpu-01", "gpu-02"})]
    assert bw > 170 and len(rows) == 2  # the slow first run is kept as evidence, the re-test counts


def test_rdma_errors_toward_a_peer_are_placed_on_the_peers_degraded_port(ruleset):
    text = ("node1:1234:1290 [3] NCCL INFO Bootstrap : Using ib0:10.1.1.1<0>\n"
            "node1:1234:1290 [3] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.1.1.2<45678> with error 12, opcode 0, len 0, vendor err 129\n")
    peer = "node2:99:99 [0] NCCL INFO Bootstrap : Using ib0:10.1.1.2<0>\n"
    ib = "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n\t\tLink layer: InfiniBand\nCA 'mlx5_1'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 100\n\t\tLink layer: InfiniBand\n"
    from stethoscope.engine.localise.rdma_path import rdma_peers

    from stethoscope.engine.pipeline import evaluate

    facts = parse_artefacts([Artefact("node1/r.log", text, "node1", True), Artefact("node2/r.log", peer, "node2", True), Artefact("node2/ibstat", ib, "node2", True)]).facts
    # the port below its sibling is the rules' verdict (ib_rate_below_siblings), which the localiser reads
    (f,), _ = rdma_peers(facts, findings=evaluate(ruleset, facts, "reference"))
    assert (f.entity.node, f.entity.hca, f.entity.port, f.cause) == ("node2", "mlx5_1", "1", "ib_completion_error")
    assert "the address of node2" in f.placed_by[0] and any("Got completion" in e.text for e in f.evidence)


def test_seed_dot_highlights_the_suspect_port(ruleset):
    report = diagnose_bundle(SEED, ruleset)
    facts = parse_artefacts(artefacts(read_bundle(SEED))[0]).facts
    g = build(facts)
    marked = suspects(g, report.findings)
    assert list(marked) == ["port:node03/mlx5_2/1"]
    dot = to_dot(g, marked)
    line = next(ln for ln in dot.splitlines() if ln.startswith('  "port:node03/mlx5_2/1"'))
    assert 'class="suspect"' in line and "100 Gb/s" in line


def test_cli_topology_show_tree(tmp_path):
    res = CliRunner().invoke(app, ["topology", "show", str(SEED)])
    assert res.exit_code == 0, res.output
    assert "node03" in res.output and "SUSPECT" in res.output and "mlx5_2/1 (Active, 100 Gb/s)" in res.output


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed (tests/setup_venv.sh installs it as root)")
def test_cli_topology_images_svg_and_png(tmp_path):
    res = CliRunner().invoke(app, ["topology", "show", str(SEED), "--image", str(tmp_path / "seed")])
    assert res.exit_code == 0, res.output
    svg = (tmp_path / "seed.svg").read_text()
    assert 'id="port:node03/mlx5_2/1"' in svg and 'class="node suspect"' in svg and "#ff4d4d" in svg
    png = (tmp_path / "seed.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    # healthy ports are folded into one box per host: a picture a person can take in at once
    assert 500 < width < 2000 and 400 < height < 1500
    assert svg.count('class="node suspect"') == 1  # the 100 Gb/s port; the slow pair is its cascade
    assert 'class="edge slow&#45;link"' in svg and "node03&lt;&#45;&gt;node06" in svg
    assert "8 HCA port(s) Active at 200 Gb/s" in svg and "7 HCA port(s) Active at 200 Gb/s" in svg


def test_switch_root_cause_picture_folds_cascaded_ports(tmp_path):
    leaf = SEED.parent.parent / "fabric-16-leaf-switch" / "bundle"
    res = CliRunner().invoke(app, ["topology", "show", str(leaf), "--image", str(tmp_path / "leaf")])
    assert res.exit_code == 0, res.output
    svg = (tmp_path / "leaf.svg").read_text()
    assert svg.count('class="node suspect"') == 1 and 'id="switch:leaf03"' in svg
    assert svg.count("affected: see the root cause") == 4  # the four hosts cabled to leaf03


def test_cli_topology_bad_inventory_exits_3(tmp_path):
    bad = tmp_path / "inv.yaml"
    bad.write_text("kind: nope\n")
    res = CliRunner().invoke(app, ["topology", "show", str(SEED), "--inventory", str(bad)])
    assert res.exit_code == 3


def _one_pass_build(facts):
    """The graph as build() made it before it read the kind index (session 39, rM6): one pass over
    every fact, each host where its first fact is, nvidia-smi's GPUs fact by fact. The reference
    the index's graph must equal, node for node and edge for edge, in insertion order."""
    import networkx as nx

    from stethoscope.engine.localise import graph as G
    from stethoscope.facts.parsers.gpu_state_facts import GpuFact

    g = nx.Graph()
    hosts = {"unknown", "fabric"}
    read, gpus = [], []
    for f in facts:
        if f.node not in hosts and f.kind not in G._NOT_HOSTS:
            G.host(g, f.node)
            hosts.add(f.node)
        if f.kind not in G._READ:
            if isinstance(f, GpuFact):
                gpus.append(f)
            continue
        read.append(f)
        G._place(g, f)
    G._rings(g, read)
    G.add_nic_locality(g, [f for f in read if f.kind in G._LOCALITY], G._add, G.host)
    for f in gpus:
        if f.node not in ("unknown", "fabric") and f"gpu:{f.node}/{f.pci_bus_id}" not in g:
            g.add_edge(G.host(g, f.node), G._add(g, f"gpu:{f.node}/{f.pci_bus_id}", "gpu", f"GPU {f.pci_bus_id}"), type="has")
    return g


def _shape(g):
    return list(g.nodes(data=True)), list(g.edges(data=True)), dict(g.graph)


@pytest.mark.parametrize("name", ["seed-8x8-pairwise-rate100", "fabric-16-leaf-switch", "rdma-16-peer-link",
                                  "pcie-switch-hgx-a100", "node-ranks-stuck-6", "xid-ecc-row-remap"])
def test_graph_from_the_kind_index_is_the_one_pass_graph(name):
    """build() reads the kinds it needs from combine's FactIndex, each host's first position from
    the index (first_at; a full pass where a fabric fact's node is no host: fabric-16-leaf-switch's
    ibnetdiscover) and nvidia-smi's GPUs once each: the same graph, in the same order, as one pass
    over every fact, from the index or from a plain list (cli/topology's call)."""
    from stethoscope.engine.pipeline import combine, observe_bundle

    obs = combine(observe_bundle(ROOT / "fixtures" / "bundles" / name / "bundle", 1))
    facts = obs.indexed()
    assert getattr(facts, "first_at", None) is not None
    want = _shape(_one_pass_build(list(facts)))
    assert _shape(build(facts)) == want
    assert _shape(build(list(facts))) == want


def test_graph_hosts_keep_the_order_of_their_first_fact_whatever_the_kinds():
    """A host first named by a fact build does not read (an Xid line) before another host's
    topology: it comes first in the graph, as in one pass; a GPU nvidia-smi reports in several
    facts is one GPU node; a fabric fact's node is no host."""
    from stethoscope.engine.pipeline import Observation, combine
    from stethoscope.facts.parsers.gpu_state_facts import GpuFact

    topo = _facts(("b-node", "nccl_topo_xml/h200_topo_dump.xml"))
    smi_a = _facts(("a-node", "nvidia_smi_q/ecc_sbe_reading_1.txt"))
    smi_c = _facts(("c-node", "nvidia_smi_q/ecc_sbe_reading_2.txt"))
    fabric = _facts(("fabric", "ibnetdiscover/two_hosts_one_leaf.txt"))
    assert sum(isinstance(f, GpuFact) for f in smi_a) > 1 and topo and fabric
    for mix in (smi_a + topo, topo + smi_a, smi_a + fabric + topo + smi_c, fabric + smi_c + topo + smi_a):
        obs = combine(Observation(facts=list(mix)))
        assert _shape(build(obs.indexed())) == _shape(_one_pass_build(list(mix)))

"""Faults inside one node lifted to the shared element (a PCIe switch, the node), their
pictures, and pairwise localisation over every shortest path (two spines)."""
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.localise.common_cause import devices_below, gpus_below, pci_bridges_above
from stethoscope.engine.pipeline import diagnose_bundle, parse_artefacts
from stethoscope.engine.localise.pairwise import pairwise
from stethoscope.engine.localise.graph import build, fabric_path, fabric_paths
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = ROOT / "fixtures" / "bundles"
A100 = ROOT / "fixtures" / "artefacts" / "nccl_topo_xml" / "hgx_a100_8gpu_pex_switches.xml"


def test_real_hgx_dump_gpus_share_only_the_switch_upstream_port():
    """In NCCL's dump each GPU sits under its own downstream port and a board bridge: the two
    GPUs of a PEX88096 meet only at the switch's upstream port."""
    g = build(parse_artefacts([Artefact("n/topo.xml", A100.read_text(), "n", True)]).facts)
    assert pci_bridges_above(g, "n", "0000:13:00.0") == ["pci:n/0000:11:00.0", "pci:n/0000:0e:00.0", "pci:n/0000:0c:00.0"]
    assert gpus_below(g, "pci:n/0000:0c:00.0") == {"gpu:n/0000:13:00.0", "gpu:n/0000:19:00.0"}
    assert devices_below(g, "pci:n/0000:41:00.0") == ["pci:n/0000:48:00.0", "pci:n/0000:4d:00.0", "pci:n/0000:4f:00.0"]


def test_pcie_switch_lift_cites_the_aer_line_and_the_nic_behind_it(ruleset):
    report = diagnose_bundle(BUNDLES / "pcie-switch-hgx-a100" / "bundle", ruleset)
    top = report.findings[0]
    assert (top.cause, top.entity.node, top.entity.switch) == ("pcie_switch_fault", "hgx-a", "0000:0c:00.0")
    assert top.blast_radius == ["hgx-a GPU 0000:13:00.0", "hgx-a GPU 0000:19:00.0"]
    assert any("without a finding: 0000:1a:00.0 (NIC)" in p for p in top.placed_by)
    assert any(p.startswith("kernel log: AER fatal error on 0000:0c:00.0 (the switch's upstream port)") for p in top.placed_by)
    assert top.evidence[0].text.endswith("Multiple Uncorrected (Fatal) error received: 0000:0c:00.0")
    # the near miss: hgx-b's two lost GPUs are behind different switches, no switch is named
    assert not [f for f in report.findings if f.entity.node == "hgx-b" and f.entity.switch]


def test_node_lift_needs_every_gpu_and_a_node_that_stands_out(ruleset):
    report = diagnose_bundle(BUNDLES / "node-power-brake-16" / "bundle", ruleset)
    lifted = [f for f in report.findings if f.rule == "localise_common_cause"]
    assert [(f.entity.node, f.entity.gpu, len(f.explains)) for f in lifted] == [("gpu-06", None, 8)]
    assert "GPUs on other nodes do not" in lifted[0].placed_by[0]
    assert [f.entity.gpu for f in report.findings if f.entity.node == "gpu-11"] == ["0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed (tests/setup_venv.sh installs it as root)")
def test_pcie_switch_picture_draws_switches_not_bridges(tmp_path):
    res = CliRunner().invoke(app, ["topology", "show", str(BUNDLES / "pcie-switch-hgx-a100" / "bundle"), "--image", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    svg = (tmp_path / "p.svg").read_text()
    # one red switch on hgx-a with its two GPUs orange; hgx-b's two lost GPUs red under their switches
    assert svg.count('class="node suspect"') == 3 and 'id="pci:hgx&#45;a/0000:0c:00.0"' in svg
    assert svg.count('class="node affected"') == 2
    # the switches' own ports and board bridges are not drawn; healthy switches fold per host
    assert 'id="pci:hgx&#45;a/0000:0e:00.0"' not in svg and 'id="pci:hgx&#45;a/0000:13:00.0"' not in svg
    assert "3 PCIe switch(es) OK" in svg and "2 PCIe switch(es) OK" in svg and "2 GPU(s), 1 NIC(s)" in svg
    tree = CliRunner().invoke(app, ["topology", "show", str(BUNDLES / "pcie-switch-hgx-a100" / "bundle")]).output
    assert "PCIe switch 0000:0c:00.0  <- SUSPECT" in tree and "0000:1a:00.0 (NIC)" in tree and "0000:0e:00.0" not in tree


def _two_leaves(spines: list[str]):
    """16 hosts: twelve on leaf01, four on leaf02, the leaves joined by ``spines``; every pair
    between the leaves is slow (a fault on the spine layer), pairs within a leaf are fast."""
    hosts = [f"h{i:02d}" for i in range(1, 17)]
    leaf = {h: "leaf01" if i < 12 else "leaf02" for i, h in enumerate(hosts)}
    inv = ["kind: steth-inventory", "hosts:"] + [f"  {h}: {{ports: {{mlx5_0/1: {{switch: {leaf[h]}, switch_port: {i + 1}}}}}}}"
                                                for i, h in enumerate(hosts)]
    inv += ["switches:", f"  leaf01: {{uplinks: [{', '.join(spines)}]}}", f"  leaf02: {{uplinks: [{', '.join(spines)}]}}"]
    rows = ["src,dst,busbw_gbps"] + [f"{a},{b},{(96.0 if leaf[a] != leaf[b] else 181.0) + (i % 5) * 0.3}"
                                     for i, (a, b) in enumerate((a, b) for n, a in enumerate(hosts) for b in hosts[n + 1:])]
    facts = parse_artefacts([Artefact("inventory.yaml", "\n".join(inv) + "\n"), Artefact("pairs.csv", "\n".join(rows) + "\n")]).facts
    return facts, build(facts)


def test_pairs_split_over_two_spines_name_both_not_the_first_shortest_path():
    facts, g = _two_leaves(["spine01", "spine02"])
    assert len(fabric_paths(g, "h01", "h16")) == 2 and "switch:spine01" in fabric_path(g, "h01", "h16")  # one path would blame spine01
    (f,) = pairwise(facts, g, [])
    assert (f.entity.switch, f.cause, f.blast_radius) == ("spine01,spine02", "ib_switch_fault", ["spine01", "spine02"])
    assert "crosses spine01 or spine02 is slow (48 of 48)" in f.summary and f.confidence == 0.6
    facts, g = _two_leaves(["spine01"])  # one spine: it lies on every path of the slow pairs
    (f,) = pairwise(facts, g, [])
    assert f.entity.switch == "spine01" and "every pair through switch spine01 is slow (48 of 48)" in f.summary


def test_every_rank_of_one_node_lifts_to_the_node_with_its_blast_radius(ruleset):
    """node-ranks-stuck-6 (fixtures/bundles/generate_node_ranks.py): gpu-04's eight ranks never
    reached all_reduce #812; the other nodes' ranks waited. The near miss has two of eight."""
    report = diagnose_bundle(BUNDLES / "node-ranks-stuck-6" / "bundle", ruleset)
    top = report.findings[0]
    assert (top.rule, top.entity.node, top.entity.rank) == ("localise_common_cause", "gpu-04", None)
    assert top.blast_radius == [f"gpu-04 GPU {b} rank {24 + i}" for i, b in enumerate(
        ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"])]
    assert "ranks on other nodes do not" in top.placed_by[0]
    # the stuck ranks' own dump-signal lines, and the timeout they left the others in
    assert sum("Last enqueued NCCL work: 811" in e.text for e in top.evidence if e.path.startswith("gpu-04/")) == 8
    assert any(e.path == "gpu-01/train.log" and "SeqNum=812" in e.text for e in top.evidence)
    near = diagnose_bundle(BUNDLES / "node-ranks-partial-4" / "bundle", ruleset)
    assert not [f for f in near.findings if f.rule == "localise_common_cause"]
    assert [(f.entity.node, f.entity.rank) for f in near.findings if f.rule == "nccl_timeout_straggler"] == [("gpu-02", 10), ("gpu-02", 13)]

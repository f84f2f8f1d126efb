"""NCCL's topology print: each NIC's PCIe link and port (fixtures/artefacts/nccl_topo_print/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_topo_print
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "artefacts" / "nccl_topo_print"


def _facts(path: Path):
    text = path.read_text()
    assert nccl_topo_print.detect(text)
    res = nccl_topo_print.parse(Artefact(path=path.name, text=text))
    assert res.errors == [] and res.lines_used == 0
    return res.facts


def test_nic_link_under_a_faster_port():
    [f] = _facts(FIX / "nccl_tests62_topology.log")
    assert (f.kind, f.nic, f.net, f.pci_gbps, f.net_gbps, f.ratio, f.pid, f.node, f.evidence.line) == (
        "nccl_topo_nic_link", "NIC/5000", "NET/0", 12.0, 25.0, 0.48, None, "unknown", 14)


def test_socket_nic_under_the_cpu_once_per_process():
    # a real NCCL 2.28 print (two threads of one process each print the tree): the NIC at NCCL's local bandwidth
    facts = _facts(ROOT / "fixtures" / "observations" / "h200-x2" / "nccl-logs" / "allreduce_healthy_g2.nccl.log")
    assert {(f.nic, f.net, f.pci_gbps, f.net_gbps) for f in facts} == {("NIC/0-0", "NET/0-0", 5000.0, 1.2)}
    assert len({(f.node, f.pid) for f in facts}) == len(facts)


def test_no_topology_print():
    assert nccl_topo_print.parse(Artefact(path="x.log", text="vm:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")).facts == []
    assert not nccl_topo_print.detect("vm:1:2 [0] NCCL INFO + PCI[24.0] - PCI/1000\n")

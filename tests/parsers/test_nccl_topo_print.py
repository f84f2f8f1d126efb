"""NCCL's topology print: each NIC's PCIe link and port (fixtures/artefacts/nccl_topo_print/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import base, nccl_topo_print
from stethoscope.facts.parsers.base import Artefact

from tests.parsers.test_lines_with import by_find

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "artefacts" / "nccl_topo_print"
_LINKS = ("+ PCI[", "+ NET[")


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


def _fixture_texts():
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and path.suffix not in {".gz", ".zst", ".xz", ".bz2", ".tar", ".zip"}:
            try:
                text = path.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            if "+ PCI[" in text or "+ NET[" in text:
                yield path, text


def test_link_lines_on_every_fixture_as_by_find(monkeypatch):
    # the reader's link lines, base.lines_with's search from each "+" (issue 12, round rX2; round rW8's private
    # _link_lines before it): the lines two whole-text finds give, in order, once each, on every fixture holding a
    # link; also where lines_with leaves the "+" at its first miss and searches the rest whole (_MISS_BASE 0)
    texts = list(_fixture_texts())
    assert len(texts) >= 10
    for miss_base, shift in ((base._MISS_BASE, base._MISS_SHIFT), (0, 40)):
        monkeypatch.setattr(base, "_MISS_BASE", miss_base)
        monkeypatch.setattr(base, "_MISS_SHIFT", shift)
        for path, text in texts:
            assert list(base.lines_with(text, _LINKS)) == by_find(text, _LINKS), (path, miss_base)


def test_link_lines_past_many_other_plus_signs():
    # CONSTRUCTED: a print after many "+" and "[" that are no link's (a diff or a table pasted above it), two links
    # on one line, the last line without its newline; and the same head without a NET line: no facts
    head = "x + y [+] a+[b\n" * 300
    text = (head + "vm:1:2 [0] NCCL INFO + PCI[24.0] - NIC/0 + PCI[1.0]\n"
            + "vm:1:2 [0] NCCL INFO                 + NET[25.0] - NET/0 (0/0/0/25.000000)")
    got = list(base.lines_with(text, _LINKS))
    assert got == by_find(text, _LINKS) and len(got) == 2
    [f] = nccl_topo_print.parse(Artefact(path="x.log", text=text)).facts
    assert (f.nic, f.net, f.pci_gbps, f.net_gbps, f.evidence.line) == ("NIC/0", "NET/0", 24.0, 25.0, 302)
    assert nccl_topo_print.parse(Artefact(path="x.log", text=head + "vm:1:2 [0] NCCL INFO + PCI[24.0] - NIC/0\n")).facts == []

"""nvidia_smi_xml: a part of one GPU's element pasted without the document around it (issue 11, round rCA2;
microsoft/pai#2534): read as an unknown GPU's elements, with a cut_short limit; other text is not taken for one."""
from pathlib import Path

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.parsers import nvidia_smi_xml
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_smi_xml"


def _read(text):
    return parse_one(Artefact(path="smi.xml", text=text, node="n1"))


def test_pai2534_ecc_block_is_read_with_a_limit():
    text = (FIX / "pai2534_ecc_errors_fragment_2080ti.xml").read_text()
    assert nvidia_smi_xml.detect(text)
    res = _read(text)
    assert res.facts and not res.errors
    assert [h.limit for h in res.limits] == ["cut_short"]
    assert res.coverage.unread == 0 if hasattr(res.coverage, "unread") else True


def test_a_real_remapped_rows_block_cut_from_a_document_is_read():
    """The H200 capture's <remapped_rows> element, cut out verbatim (lines 210-224 of nvidia-smi-q.xml)."""
    lines = (FIX / "nvidia-smi-q.xml").read_text().splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "<remapped_rows>")
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "</remapped_rows>")
    res = _read("".join(lines[start:end + 1]))
    kinds = {f.kind for f in res.facts}
    assert any("remap" in k for k in kinds), kinds
    assert {f.pci_bus_id for f in res.facts if hasattr(f, "pci_bus_id")} <= {"unknown", None}


def test_a_pending_row_remap_in_a_fragment_is_a_fault():
    """CONSTRUCTED: the H200 capture's <remapped_rows> with remapped_row_pending Yes (the value a GPU awaiting a reset
    reports): the fragment's fault is read, not lost with the document's header."""
    lines = (FIX / "nvidia-smi-q.xml").read_text().splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "<remapped_rows>")
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "</remapped_rows>")
    text = "".join(lines[start:end + 1]).replace("<remapped_row_pending>No<", "<remapped_row_pending>Yes<")
    res = _read(text)
    assert any(getattr(f, "pending", None) in (True, "Yes") for f in res.facts), [f.kind for f in res.facts]


def test_other_text_is_no_fragment():
    for text in ("<ecc_errors> are what I see\n", "The <pci> block is missing\n", "<html><body>x</body></html>\n",
                 "node1: <ecc_errors>\n"):
        assert not nvidia_smi_xml.detect(text), text

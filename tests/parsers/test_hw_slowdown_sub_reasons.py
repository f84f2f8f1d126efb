"""HW Slowdown's sub-reasons: whether nvidia-smi gave one (gpu_clock_reason.sub_reasons_read)."""
from pathlib import Path

from stethoscope.engine.parse_pool import parse_one
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
NA = ROOT / "fixtures/artefacts/nvidia_smi_q/nvdocker1090_hw_slowdown_sub_reasons_na.txt"
H200 = ROOT / "fixtures/bundles/h200-healthy/bundle/vm/smi.txt"


def _hw_slowdown(text: str) -> list:
    facts = parse_one(Artefact(path="smi.txt", text=text, node="n1")).facts
    return [f for f in facts if f.kind == "gpu_clock_reason" and f.reason == "hw_slowdown"]


def test_sub_reasons_na_are_not_read() -> None:
    # NVIDIA/nvidia-docker#1090: "HW Thermal Slowdown : N/A", "HW Power Brake Slowdown : N/A"
    (f,) = _hw_slowdown(NA.read_text())
    assert f.active is False and f.sub_reasons_read is False


def test_active_with_na_sub_reasons_is_a_finding(tmp_path: Path) -> None:
    # the same real block with HW Slowdown Active: no other rule reads it, so it must not be healthy
    text = NA.read_text().replace("HW Slowdown                 : Not Active", "HW Slowdown                 : Active")
    (tmp_path / "nvidia-smi-q.txt").write_text(text)
    report = diagnose_bundle(tmp_path, jobs=1)
    assert report.verdict != "healthy"
    assert any(f.rule == "clocks_hw_slowdown_no_sub_reason" for f in report.findings)


def test_sub_reasons_printed_are_read() -> None:
    facts = _hw_slowdown(H200.read_text())
    assert facts and all(f.sub_reasons_read is True for f in facts)

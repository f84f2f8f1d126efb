"""Never a false HEALTHY: nvidia-smi -q sections cut before the line that makes their claim (session 23, A2).

bench/fragment_audit.py over fixtures/artefacts (2-10 line windows, seed 61) read HEALTHY two windows whose next lines
in the same real file said the opposite: an ECC Errors block cut after its SRAM counters ('checked: gpu_memory'; the
other GPU's same block says 'DRAM Uncorrectable : 2' two lines further) and a grep's Fabric section cut before its
Health ('checked: nvlink'; 'Summary : Unhealthy' on the next lines). bench/fragment_audit_s23b.md.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.ruleengine.loader import load_rules

Q = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts" / "nvidia_smi_q"


@pytest.fixture(scope="module")
def ruleset():
    return load_rules()


def _diagnose(tmp_path: Path, ruleset, text: str):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "paste.txt").write_text(text + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    return rep.verdict, {c.component for c in rep.checked}


def _lines(name: str, first: int, last: int) -> str:
    return "\n".join((Q / name).read_text().splitlines()[first - 1:last])


@pytest.mark.parametrize("name, first, last", [
    # GPU 00:06.0's header to 'SRAM Uncorrectable SEC-DED : 0': its 'DRAM Uncorrectable : 2' is two lines further
    ("h200_ecc_dbe_volatile.txt", 9, 17),
    # GPU 00:07.0's: the same block, cut alike (it was the window the audit drew)
    ("h200_ecc_dbe_volatile.txt", 37, 45),
    # grep -C3's Fabric block cut after ClusterUUID: 'Health' / 'Summary : Unhealthy' follow
    ("fragment_fabric_grep_C3_unhealthy.txt", 2, 6),
])
def test_a_section_cut_before_its_claim_checks_nothing(ruleset, tmp_path, name, first, last):
    verdict, checked = _diagnose(tmp_path, ruleset, _lines(name, first, last))
    assert verdict != "healthy" and not checked & {"gpu_memory", "nvlink"}, (verdict, checked)


@pytest.mark.parametrize("name, first, last, component, verdict", [
    # the same ECC block through its DRAM counters: GPU 00:07.0's zeros check the memory, GPU 00:06.0's DBE is a fault
    ("h200_ecc_dbe_volatile.txt", 37, 47, "gpu_memory", "healthy"),
    ("h200_ecc_dbe_volatile.txt", 9, 19, "gpu_memory", "faulty"),
    # the Fabric block through its Health Summary: Unhealthy, a fault of NVLink
    ("fragment_fabric_grep_C3_unhealthy.txt", 2, 9, "nvlink", "faulty"),
])
def test_the_same_section_with_its_claim_line_still_checks(ruleset, tmp_path, name, first, last, component, verdict):
    got, checked = _diagnose(tmp_path, ruleset, _lines(name, first, last))
    assert got == verdict and component in checked, (got, checked)


def test_an_older_drivers_ecc_block_checks_the_memory_by_its_double_bit_device_memory(ruleset, tmp_path):
    # a V100 on R470 ('Double Bit' / 'Device Memory'): the device memory's uncorrectable count is there
    verdict, checked = _diagnose(tmp_path, ruleset, (Q / "v100_r470_q_i1.txt").read_text())
    assert verdict == "healthy" and "gpu_memory" in checked, (verdict, checked)


def test_a_whole_gpu_blocks_fabric_still_checks_nvlink(ruleset, tmp_path):
    # a whole -q (product named): its Fabric is as the driver prints it ('Summary : N/A' here; older drivers print no Health)
    verdict, checked = _diagnose(tmp_path, ruleset, (Q / "nvidia-smi-q.txt").read_text())
    assert verdict == "healthy" and "nvlink" in checked, (verdict, checked)

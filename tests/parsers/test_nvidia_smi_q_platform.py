"""``nvidia-smi -q``'s ``Platform Info`` (GB200 / GB300 NVL): where the GPU sits in the rack, read as a
``gpu_platform`` fact where the block places it; N/A rows (every other board) make none."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nvidia_smi_q
from stethoscope.facts.parsers.base import Artefact

ART = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_smi_q"


def _platform(text: str):
    assert nvidia_smi_q.detect(text)
    r = nvidia_smi_q.parse(Artefact(path="q.txt", node="n1", text=text))
    return [f for f in r.facts if f.kind == "gpu_platform"], r


def test_a_gb300_trays_block_pasted_alone():
    # NVIDIA/k8s-test-infra#642: the block without its GPU header, read as a fragment
    (p,), r = _platform((ART / "k8stestinfra642_gb300_platform_info.txt").read_text())
    assert (p.chassis_serial, p.slot_number, p.tray_index, p.host_id, p.peer_type, p.module_id, p.fabric_guid) == (
        "1823825185529", "5", "4", "1", "Switch Connected", "2", "0x21ac5b6a528f7cf5")
    assert (p.evidence.line, r.lines_used, r.errors) == (2, 8, [])


def test_the_block_under_its_gpu_names_that_gpu():
    # CONSTRUCTED: the real block under a GPU header of -q's layout
    block = (ART / "k8stestinfra642_gb300_platform_info.txt").read_text()
    (p,), _ = _platform("==============NVSMI LOG==============\n\nAttached GPUs                : 1\nGPU 00000008:01:00.0\n"
                        "    Product Name                 : NVIDIA GB300\n" + block)
    assert (p.pci_bus_id, p.module_id, p.tray_index) == ("0008:01:00.0", "2", "4")


def test_a_board_that_is_not_rack_scale_prints_it_na_and_makes_no_fact():
    # the H200 capture: every row N/A but Module Id 5
    facts, r = _platform((ART / "nvidia-smi-q.txt").read_text())
    assert facts == [] and r.errors == []

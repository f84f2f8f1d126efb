"""nvidia_smi_list: nvidia-smi -L as pasted, and the same GPU line as another tool's header."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nvidia_smi_list
from stethoscope.facts.parsers.base import Artefact

ART = Path(__file__).resolve().parents[2] / "fixtures/artefacts"


def _parse(text: str):
    return nvidia_smi_list.parse(Artefact(path="t.txt", text=text, node="node1"))


def test_srun_listing_printed_by_two_tasks():
    text = (ART / "nvidia_smi_list/nccltests300_srun_nvidia_smi_L.txt").read_text()
    assert nvidia_smi_list.detect(text)
    got = [(f.evidence.line, f.index, f.name, f.uuid) for f in _parse(text).facts]
    assert got[:2] == [(2, 0, "NVIDIA A100 80GB PCIe", "GPU-e7b3bccd-51ac-85a4-b4cd-54a40b14ddb1"),
                       (3, 1, "NVIDIA A100 80GB PCIe", "GPU-989d4723-8384-4046-39ce-b8535b6b92da")]
    assert len(got) == 4


def test_listing_inside_a_terminal_session():
    # a real session: the prompt, nvidia-smi -L's one line, then dmesg (fixtures/artefacts/kernel_log)
    r = _parse((ART / "kernel_log/mixed_terminal_session.txt").read_text())
    assert [(f.index, f.name) for f in r.facts] == [(0, "NVIDIA H200")]


def test_nvlink_headers_are_not_a_listing():
    # nvidia-smi nvlink -s: each GPU line has its links indented under it (nvidia_smi_nvlink's)
    text = (ART / "nvidia_smi_nvlink/nccl_tests228_a100_sxm4_nvlink_s_elided.txt").read_text()
    assert not nvidia_smi_list.detect(text) and _parse(text).facts == []


def test_gpu_burn_report_is_its_own():
    # gpu-burn's report opens with the same GPU lines: gpu_burn reads them
    text = (ART / "gpu_burn/gpu_burn48_gtx1080_x2.txt").read_text()
    assert not nvidia_smi_list.detect(text) and _parse(text).facts == []

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


def test_nvlink_header_with_another_programs_line_under_it_is_not_a_listing():
    # harvest 2504's bare 'Exception: ...' line between nvlink -s's 'GPU 1: ...' header and its 'Link 0:' row: the header
    # is still nvlink's (read as a listing, it made foreign_runs keep the stray line as this reader's: a false HEALTHY)
    rows = (ART / "nvidia_smi_nvlink/nccl_tests228_a100_sxm4_nvlink_s_elided.txt").read_text().split("\n")
    rows.insert(14, "Exception: Server process terminated unexpectedly.")
    assert rows[13].startswith("GPU 1: ") and rows[15].lstrip().startswith("Link 0: ")
    assert _parse("\n".join(rows)).facts == []
    # the near miss: a listing, the stray line, then a GPU line with its link row (nvlink -s after nvidia-smi -L)
    listing = (ART / "nvidia_smi_list/nccltests300_srun_nvidia_smi_L.txt").read_text().rstrip("\n").split("\n")
    assert len(_parse("\n".join(listing[1:] + rows[14:15] + rows[:2])).facts) == 4


def test_gpu_burn_report_is_its_own():
    # gpu-burn's report opens with the same GPU lines: gpu_burn reads them
    text = (ART / "gpu_burn/gpu_burn48_gtx1080_x2.txt").read_text()
    assert not nvidia_smi_list.detect(text) and _parse(text).facts == []


def test_tasks_labelled_listing_and_no_devices():
    # NVIDIA/deepops#1102: each task labels its own nvidia-smi -L; three of four list no GPU
    from stethoscope.facts.parsers import nvml_init
    text = (ART / "nvidia_smi_list/deepops1102_tasks_in_containers_no_devices.txt").read_text()
    art = Artefact(path="srun.txt", text=text, node="node1")
    art.normalise()  # the paste's quotes off
    got = [(f.evidence.line, f.index, f.task) for f in nvidia_smi_list.parse(art).facts]
    assert got == [(4, 0, "PROCID=1")]
    none = [(f.evidence.line, f.reason, f.task, f.message) for f in nvml_init.parse(art).facts]
    assert none == [(1, "no_devices", "PROCID=2", "No devices found."), (2, "no_devices", "PROCID=3", "No devices found."),
                    (3, "no_devices", "PROCID=0", "No devices found.")]


def test_a_label_is_a_tasks_number_not_any_word():
    # "host: GPU 0: ..." (pdsh's host label) is not a task's: it names another node
    assert _parse("node7: GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-02348a17-a825-300c-0336-48e33d0dadb2)\n").facts == []


def test_mig_devices_under_their_gpu_are_the_listing_s():
    """A GPU in MIG mode lists its MIG devices under its line: the AKS guide's paste (rows at column 0) and NVIDIA's
    MIG user guide's form (indented two blanks, the older UUID form): one GPU each, its devices counted, every line read."""
    text = open("fixtures/artefacts/nvidia_smi_list/aks_mig_single_strategy_nvidia_smi_L.txt", encoding="utf-8").read()
    res = nvidia_smi_list.parse(Artefact(path="l.txt", text=text, node="n"))
    assert [(f.index, f.uuid, f.mig_devices) for f in res.facts] == [(0, "GPU-48aeb943-9458-4282-da24-e5f49e0db44b", 7)]
    assert res.lines_used == 8
    guide = ("GPU 0: A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
             "  MIG 1g.5gb Device 0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n"
             "GPU 1: A100-SXM4-40GB (UUID: GPU-8d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n")
    assert nvidia_smi_list.detect(guide)
    res = nvidia_smi_list.parse(Artefact(path="l.txt", text=guide, node="n"))
    assert [(f.index, f.mig_devices) for f in res.facts] == [(0, 1), (1, 0)] and res.lines_used == 3
    # near miss: nvlink's header with its link rows is still not a listing
    assert not nvidia_smi_list.detect("GPU 0: A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n\t Link 0: 25 GB/s\n")

"""Never a false HEALTHY: nvidia-smi -q sections cut before the line that makes their claim (session 23, A2).

bench/fragment_audit.py over fixtures/artefacts (2-10 line windows, seed 61) read HEALTHY two windows whose next lines
in the same real file said the opposite: an ECC Errors block cut after its SRAM counters ('checked: gpu_memory'; the
other GPU's same block says 'DRAM Uncorrectable : 2' two lines further) and a grep's Fabric section cut before its
Health ('checked: nvlink'; 'Summary : Unhealthy' on the next lines). bench/fragment_audit_s23b.md.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import small_bundle
from stethoscope.engine.ruleengine.loader import load_rules

Q = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts" / "nvidia_smi_q"


@pytest.fixture(scope="module")
def ruleset():
    return load_rules()


def _diagnose(tmp_path: Path, ruleset, text: str):
    rep = small_bundle.diagnose(tmp_path, {"paste.txt": text + "\n"}, ruleset)
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


# --- session 24 (A4): a section pasted up to one of its result lines, not to its end -------------------------------
# bench/fragment_audit_s24.md. A3 (session 23) flagged the first two: a dcgmi diag table whose window ends at a test's
# per-GPU row, and an nvlink -s GPU's links cut at a link line; both read HEALTHY. The reader marks such a section
# (dcgm_diag_result.cut: no border line after the result; nvlink_link_state / nvlink_error_count.elided: the GPU's
# list not shown to its end) and knowledge/coverage.yaml's `unless` makes it check nothing, as the clocks and ECC blocks.

ROOT = Path(__file__).resolve().parents[1]
H155 = "fixtures/harvest/cases/155-nccl-p2p-level-loc-forces-shm-a100-nvswitch/other.txt"
H162 = "fixtures/harvest/cases/162-dcgmi-diag-gpu0-cuda-busy-unavailable-memory-fail/dcgmi-diag.txt"
NVL = "fixtures/artefacts/nvidia_smi_nvlink/"


def _window(path: str, first: int | None = None, last: int | None = None) -> str:
    lines = (ROOT / path).read_text().splitlines()
    return "\n".join(lines[(first or 1) - 1:last])


@pytest.mark.parametrize("path, first, last, component", [
    # the Info rows' tail, the Hardware head and 'GPU Memory | Pass - GPU: 1': its next row is 'Fail - GPU: 0' (A3's window)
    (H162, 5, 11, "gpu_memory"),
    (H162, 10, 11, "gpu_memory"),
    # NVIDIA/autopilot#68's excerpt: Metadata and three Deployment rows, the table cut after 'CUDA Main Library | Pass'
    ("fixtures/artefacts/dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt", None, None, "driver"),
    # an A100-SXM4's GPU 0 header and its Links 0-4 of twelve (A3's window); GPU 1's header after GPU 0's Link 11, and
    # its Links 0-4; GPU 2's header and Link 0, the poster's '......' cut off (this session's audit, seed 81)
    (H155, 1, 6, "nvlink"),
    (H155, 13, 20, "nvlink"),
    (H155, 26, 28, "nvlink"),
    # nvidia-smi nvlink -e: an H100's header and Link 0's counters, Link 1's first (audit seed 85); the whole paste, whose
    # author left links 2-16 out ('[...]'): three links of eighteen
    (NVL + "ml_engineering_h100_nvlink_e.txt", 1, 6, "nvlink"),
    (NVL + "ml_engineering_h100_nvlink_e.txt", None, None, "nvlink"),
])
def test_a_section_pasted_up_to_a_result_line_checks_nothing(ruleset, tmp_path, path, first, last, component):
    verdict, checked = _diagnose(tmp_path, ruleset, _window(path, first, last))
    assert verdict != "healthy" and component not in checked, (verdict, checked)


@pytest.mark.parametrize("text, component", [
    # GPU 0's twelve links and GPU 1's header after them: GPU 0's list shown to its end
    (_window(H155, 1, 14), "nvlink"),
    # GPU 0 and GPU 1, each with twelve links, the paste ending at GPU 1's Link 11: as many as GPU 0 showed whole
    (_window(H155, 1, 26), "nvlink"),
    # two bridged H100 PCIe, eighteen links each (links 4, 5, 10, 11, 16, 17 inactive by design); two H200s' -s and -e
    (_window(NVL + "hpe_dl380a_h100_pcie_bridged_nvlink_s.txt"), "nvlink"),
    (_window("fixtures/observations/h200-x2/nvidia-smi/nvlink-s.txt"), "nvlink"),
    (_window("fixtures/observations/h200-x2/nvidia-smi/nvlink-e.txt"), "nvlink"),
    # the autopilot#68 excerpt's Deployment rows closed by dcgmi's border line (the same file's line 2: the table's
    # top and closing border are one line): the rows of the section are all shown
    (_window("fixtures/artefacts/dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt") + "\n"
     + _window("fixtures/artefacts/dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt", 2, 2), "driver"),
])
def test_the_same_section_shown_to_its_end_still_checks(ruleset, tmp_path, text, component):
    verdict, checked = _diagnose(tmp_path, ruleset, text)
    assert component in checked, (verdict, checked)


def test_ports_read_down_are_not_called_found_fine(ruleset, tmp_path):
    # iproute2's 'rdma link' with two ports DOWN beside ACTIVE ones (fixtures/artefacts/rdma_link): read, not judged a
    # fault (an unused port may be down); the verdict said 'only network checked ... and found fine'
    rep = small_bundle.diagnose(tmp_path, {"paste.txt": _window("fixtures/artefacts/rdma_link/oap_i40iw_cx4_numbered.txt", 1, 5) + "\n"},
                                ruleset)
    assert rep.verdict == "inconclusive" and "found fine" not in rep.reason and "no rule found a fault" in rep.reason, rep.reason


@pytest.mark.parametrize("name, first, last", [
    # 'nvidia-smi -q -d TEMPERATURE' pasted with its head ('Attached GPUs : 2') and GPU 00:06.0's first reading: GPU
    # 00:07.0 not shown (audit seed 85, read HEALTHY 'checked: power_thermal'); the same head over GPU 00:06.0's Remapped
    # Rows through Pending (read 'checked: gpu_memory'). A section filter (-d) prints every attached GPU, as -q does:
    # gpus_not_shown, as for a whole -q (session 24)
    ("mixed_terminal_session.txt", 1, 11),
    ("nvidia-smi-q-TEMPERATURE.txt", 5, 14),
    ("nvidia-smi-q-ROW_REMAPPER.txt", 5, 15),
    # -d TEMPERATURE whole (both GPUs), and one GPU's Temperature through its T.Limit (audit seed 85): read HEALTHY,
    # 'checked: power_thermal', though no rule judges a reading against its limits (the same file with 'GPU Current Temp'
    # 10 C past its T.Limit read HEALTHY alike). A thermal slowdown shows in the Clocks Event Reasons, which check it
    ("nvidia-smi-q-TEMPERATURE.txt", 1, 10_000),
    ("mixed_terminal_session.txt", 20, 23),
])
def test_a_q_paste_that_shows_less_than_it_claims_is_inconclusive(ruleset, tmp_path, name, first, last):
    verdict, checked = _diagnose(tmp_path, ruleset, _lines(name, first, last))
    assert verdict == "inconclusive", (verdict, checked)


def test_a_section_filter_showing_every_attached_gpu_still_checks(ruleset, tmp_path):
    verdict, checked = _diagnose(tmp_path, ruleset, (Q / "nvidia-smi-q-ROW_REMAPPER.txt").read_text())
    assert verdict == "healthy" and "gpu_memory" in checked, (verdict, checked)


def test_a_gpu_driver_crash_site_cut_from_its_report_is_never_healthy(ruleset, tmp_path):
    # round rQ4: the RIP, a frame and 'Modules linked in:' of NVIDIA/open-gpu-kernel-modules#270's report in nvidia_modeset
    # (its opening line not pasted), beside the driver's load lines (CONSTRUCTED from nv.c's and nvidia-modeset's banners):
    # read HEALTHY ('checked: driver, gpu, ...') before
    rip = (Path(__file__).resolve().parents[1] / "fixtures/artefacts/kernel_log/ogkm270_rip_nvidia_modeset_report_cut.log")
    text = ("[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05  Wed Oct 25 20:27:35 UTC 2023\n"
            "[    3.139762] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  525.147.05  "
            "Wed Oct 25 20:21:31 UTC 2023\n" + "\n".join(rip.read_text().splitlines()[3:6]))
    verdict, _checked = _diagnose(tmp_path, ruleset, text)
    assert verdict != "healthy"

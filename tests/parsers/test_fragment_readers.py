"""Readers of fragments posted with healthy systems: an lspci -vv line under its command, the
nvidia-smi process table alone, nvtop's device lines, PyTorch's exit warning, gpud scan's
verdict lines (real samples)."""

from pathlib import Path

import pytest

from stethoscope.facts.parsers import gpud_scan, lspci, nvidia_smi_table, nvtop, torch_log
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_lspci_command_line_names_the_device_of_a_vpd_line():
    # leptonai/gpud#1164, as posted
    r = _parse(lspci, text="$ lspci -nn -s d2:00.0 -vv|grep -i umb|head -1\n"
                           "\t\tProduct Name: Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system\n")
    (f,) = r.facts
    assert (f.kind, f.pci_bus_id, f.evidence.line) == ("pcie_vpd_product", "0000:d2:00.0", 2)
    assert f.product_name == "Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system" and r.lines_used == 2


@pytest.mark.parametrize("text", [
    "\tProduct Name: PowerEdge R750\n",  # dmidecode -t system: one tab deep, not lspci's VPD
    "lspci shows the card on the bus\n",  # prose that mentions the command
])
def test_lspci_does_not_claim_lookalikes(text):
    assert not lspci.detect(text)


def test_lspci_vvv_lines_without_a_header_are_read():
    text = ("\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
            "\t\tLnkSta:\tSpeed 16GT/s, Width x16\n\tKernel driver in use: mlx5_core\n")
    r = _parse(lspci, text=text)
    assert [f.kind for f in r.facts] == ["pcie_link_status"] and r.lines_used == 3


def test_empty_process_panel_alone():
    r = _parse(nvidia_smi_table, "nvidia_smi_table/nvidia_docker1460_empty_process_panel.txt")
    (p,) = [f for f in r.facts if f.kind == "gpu_process_panel"]
    assert (p.process_rows, p.says_none_running, p.printed_empty, p.evidence.line) == (0, False, True, 2)


# NVIDIA/gpu-operator#1982's table up to GPU 1's first row (the capture itself goes on into its third row)
_A40_HEAD = "".join((Path(__file__).resolve().parents[2] / "fixtures/artefacts/nvidia_smi_table"
                     / "gpuoperator1982_r560_a40_cut_in_gpu1.txt").read_text().splitlines(keepends=True)[:13])


@pytest.mark.parametrize("tail", [
    "",  # the text ends at GPU 1's first row
    "|  0%   38C    P8             15W /  300W |\n",  # its second row cut in its cells
])
def test_table_ending_inside_a_gpu_block_is_cut_short_not_malformed(tail):
    """A capture that stops in GPU 1's first or second row is cut short (a limit, GPU 0 read), no parse
    error (which made an unexplained error, faulty)."""
    r = _parse(nvidia_smi_table, text=_A40_HEAD + tail)
    assert r.errors == [] and [h.limit for h in r.limits] == ["cut_short"]
    assert [f.index for f in r.facts if f.kind == "gpu_info"] == [0]


def test_gpu_row_without_its_second_row_inside_the_table_is_an_error():
    r = _parse(nvidia_smi_table, text=_A40_HEAD + "|  garbage  |\n+-------+\n")
    assert [e.message for e in r.errors] == ["nvidia-smi table: GPU row without its fan/temperature/memory row"]


def test_process_panel_with_no_running_processes_line():
    r = _parse(nvidia_smi_table, "nvidia_smi_table/h200_r580_no_processes.txt")
    (p,) = [f for f in r.facts if f.kind == "gpu_process_panel"]
    assert (p.process_rows, p.says_none_running, p.printed_empty) == (0, True, False)


def test_r610_banner_names_the_kernel_mode_driver_and_the_cuda_user_mode_driver():
    """R610's banner ('| NVIDIA-SMI 610.43.03  KMD Version: 610.43.03  CUDA UMD Version: 13.3 |', projectbluefin/finpilot#160)
    gives the driver and CUDA versions as 'Driver Version:' / 'CUDA Version:' did: its GPU's row carries them."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/finpilot160_r610_kmd_umd_banner_rtx3080_laptop.txt")
    (g,) = [f for f in r.facts if f.kind == "gpu_info"]
    assert (g.index, g.pci_bus_id, g.driver_version, g.cuda_version) == (0, "0000:01:00.0", "610.43.03", "13.3")
    assert r.lines_used == 14  # every line but the timestamp's above the table


def test_nvtop_device_lines():
    r = _parse(nvtop, "nvtop/nvtop6_pcie_gen1_idle.txt")
    got = [(f.index, f.name, f.pcie_gen_current, f.pcie_width_current) for f in r.facts]
    assert got == [(0, "GeForce GTX 1080 Ti", 3, 16), (1, "GeForce GTX 1080 Ti", 1, 16)]


def test_nvtop_3x_line_with_clocks():
    r = _parse(nvtop, text="Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 1.953 MiB/s TX: 2.930 MiB/s\n"
                           " GPU 210MHz  MEM 405MHz  TEMP  35°C FAN  30% POW  25 / 350 W\n")
    (f,) = r.facts
    assert (f.pcie_gen_current, f.temperature_c, f.power_draw_w, f.power_limit_w) == (4, 35, 25, 350)


def test_torch_exit_warning_is_a_known_benign_warning():
    r = _parse(torch_log, "torch_log/flashdreams156_destroy_pg_warning.log")
    got = [(f.kind, f.warning_id, f.benign, f.source_file) for f in r.facts]
    assert got == [("torch_warning", "destroy_process_group_not_called", True, "ProcessGroupNCCL.cpp")] * 3
    assert r.lines_used == 3


def test_unknown_torch_warning_is_not_read():
    r = torch_log.parse(Artefact(path="t", text="[rank0]:[W604 08:55:15.856186408 ProcessGroupNCCL.cpp:1496] Warning: something new\n"))
    assert r.facts == [] and r.lines_used == 0


def test_gpud_scan_fabric_manager_on_a_host_without_nvswitch():
    r = _parse(gpud_scan, "gpud_scan/gpud906_a10_no_nvswitch.txt")
    got = [(f.evidence.line, f.kind, getattr(f, "component", None), getattr(f, "status", None)) for f in r.facts]
    assert got == [(2, "gpud_check", "fabric-manager", None), (3, "fabric_manager_status", None, "unit_inactive")]


def test_gpud_scan_failed_check_is_an_error_fact():
    # the summary gpud's fabric-manager component gives on an NVSwitch host whose service is down
    text = ('{"level":"info","ts":"2025-06-05T18:00:13Z","caller":"fabric-manager/component.go:163","msg":"checking nvidia fabric manager"}\n'
            "✘ nv-fabricmanager found but fabric manager service is not active\nfabric manager is not active\n")
    r = _parse(gpud_scan, text=text)
    assert [f.kind for f in r.facts] == ["gpud_check_failed", "fabric_manager_status"]


def test_gpud_scan_warn_line_of_a_component_is_a_failed_check():
    # leptonai/gpud#1108, as posted: gpud logs "fabric state is not healthy" at warn level, then prints ✔
    r = _parse(gpud_scan, "gpud_scan/gpud1108_gb200_fabric_state_not_supported.txt")
    got = [(f.evidence.line, f.kind, getattr(f, "component", None)) for f in r.facts]
    assert got == [(1, "gpud_check_failed", "fabric-manager"), (2, "gpud_check", "fabric-manager")]
    assert r.facts[0].summary.startswith("fabric state is not healthy: GPU GPU-1182579c-5a69-8e8e-cb7a-e6e0b65d47c7: state=Not Supported")


@pytest.mark.parametrize("level", ["info", "debug"])
def test_gpud_scan_info_and_debug_lines_stay_context(level):
    # near miss: the same line at a level below warn is gpud's progress, not a judgement
    text = ('{"level":"%s","ts":"2025-10-16T10:34:29.644Z","caller":"fabric-manager/component.go:378","msg":"fabric state is not healthy"}\n'
            "\u2714 NVIDIA-GB200 checked fabric state\n" % level)
    r = _parse(gpud_scan, text=text)
    assert [f.kind for f in r.facts] == ["gpud_check"]


def test_gpud_scan_needs_a_gpud_line():
    assert not gpud_scan.detect("✔ all tests passed\n")


def test_lspci_acsctl_line_cut_at_the_end_of_the_text_is_cut_short():
    """noonghunna/club-3090#1028's paste ends inside the bridge's ACSCtl flags: the capture is
    incomplete (cut_short), not a parse problem; the same line with text after it stays one."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "lspci" / "club3090_1028_acsctl_cut.txt").read_text()
    r = _parse(lspci, text=text)
    assert r.errors == [] and [(h.limit, h.line) for h in r.limits] == [("cut_short", 9)]
    assert [f.kind for f in r.facts].count("pcie_link_status") == 2
    r = _parse(lspci, text=text + "\t\tLnkSta:\tSpeed 16GT/s, Width x16\n")
    assert [e.line for e in r.errors] == [9] and r.limits == []


def test_exclusive_compute_mode_in_two_words_is_read():
    """R418's table prints the exclusive compute mode as `E. Process` (NVIDIA/AMGX#106, Summit's V100s): GPU 0
    read, its mode in -q's word; the excerpt ends inside GPU 1's second row: cut short, no parse problem."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/amgx106_r418_v100_exclusive_process_cut_in_gpu1.txt")
    (usage,) = [f for f in r.facts if f.kind == "gpu_usage"]
    assert (usage.pci_bus_id, usage.compute_mode, usage.memory_total_mib) == ("0004:04:00.0", "Exclusive_Process", 16130)
    assert r.errors == [] and [h.limit for h in r.limits] == ["cut_short"]
    # the one-word modes stay as printed (CONSTRUCTED row, R550 layout)
    row = "|  0%   32C    P0             38W /  170W |       9MiB /  12288MiB |      0%   Prohibited |"
    assert nvidia_smi_table._STATE_ROW.match(row)["mode"] == "Prohibited"


def test_r331_gpu_row_with_display_active_na_is_read():
    """R331's GPU row prints Disp.A `N/A` on GeForce boards (cBio/cbio-cluster#38): three GTX 680 read (the
    table was 0 facts, every row skipped); the text ends in the border after GPU 2's block: still cut short."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/cbio38_r331_gtx680_cut_in_border.txt")
    infos = [f for f in r.facts if f.kind == "gpu_info"]
    assert [(f.index, f.name) for f in infos] == [(0, "GeForce GTX 680"), (1, "GeForce GTX 680"), (2, "GeForce GTX 680")]
    assert r.errors == [] and [h.limit for h in r.limits] == ["cut_short"]


def test_lspci_vvv_field_lines_are_its_format(ruleset, tmp_path):
    # openucx/ucx#9520: a root port's block without its header (an empty hot-plug slot, Width x0); its 'DevCap2: Completion
    # Timeout: ...' and 'DevCtl2: Completion Timeout: ...' field lines read as another program's error lines (FAULTY
    # unexplained_error); they are lspci's fields, no failure
    import small_bundle  # tests/small_bundle.py
    text = (Path(__file__).parents[2] / "fixtures" / "artefacts" / "lspci" / "ucx9520_root_port_empty_slot_no_header.txt").read_text()
    assert lspci.detect(text)
    rep = small_bundle.diagnose(tmp_path, {"lspci.txt": text}, ruleset)
    assert not [f for f in rep.findings if f.rule == "unexplained_error"], [f.summary for f in rep.findings]
    assert rep.verdict != "healthy"  # an empty slot's port, no device link read (no false HEALTHY either)


def test_a_table_with_gpu_rows_left_out_is_cut_short():
    """NVIDIA/gdrcopy#92 (R390, eight Tesla M2070): the poster's `...` after the header's border, a GPU's second row
    whose first row was left out, then GPU 7's block. GPU 7 is read; GPUs 0-6 were not shown: one cut_short limit at
    the elision (the table read HEALTHY, checked gpu and driver, before wild sweep rR4)."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/gdrcopy92_r390_m2070_elided_gpus.txt")
    assert [(f.index, f.name) for f in r.facts if f.kind == "gpu_info"] == [(7, "Tesla M2070")]
    assert r.errors == [] and [(h.limit, h.line) for h in r.limits] == [("cut_short", 6)]
    head = "".join((Path(__file__).resolve().parents[2] / "fixtures/artefacts/nvidia_smi_table"
                    / "gdrcopy92_r390_m2070_elided_gpus.txt").read_text().splitlines(True)[:5])
    gpu7 = ("|   7  Tesla M2070         On   | 00000000:33:00.0 Off |                    0 |\n"
            "| N/A   N/A   P12    N/A /  N/A |    137MiB /  5301MiB |      0%      Default |\n"
            "+-------------------------------+----------------------+----------------------+\n")
    # the second row alone where the first was left out (no '...'), and the other elision marks (CONSTRUCTED from the
    # real table): the same limit
    for cut in ("| N/A   N/A   P12    N/A /  N/A |    137MiB /  5301MiB |      0%      Default |\n", "[...]\n", "\u2026\n"):
        r = _parse(nvidia_smi_table, text=head + cut + gpu7)
        assert [h.limit for h in r.limits] == ["cut_short"], cut
    # must not: the whole block, and a '...' in the process table (its rows are no GPU's) or before the table
    assert _parse(nvidia_smi_table, text=head + gpu7).limits == []
    tail = ("+-----------------------------------------------------------------------------+\n"
            "| Processes:                                                       GPU Memory |\n"
            "|  GPU       PID   Type   Process name                             Usage      |\n"
            "|=============================================================================|\n"
            "...\n"
            "+-----------------------------------------------------------------------------+\n")
    assert _parse(nvidia_smi_table, text=head + gpu7 + tail).limits == []
    assert _parse(nvidia_smi_table, text="...\n" + head + gpu7).limits == []

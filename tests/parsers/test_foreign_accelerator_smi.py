"""Another vendor's accelerator tool (facts/parsers/foreign_accelerator_smi.py): recognised as such, out of scope (round
rS2): real pastes, and NVIDIA's own outputs that must stay NVIDIA's."""

import pytest

from stethoscope.facts.parsers import foreign_accelerator_smi, nvidia_smi_q
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


@pytest.mark.parametrize("name, vendor, tool, line", [
    ("vllm_ascend2534_npu_smi_info.txt", "Huawei", "npu-smi", 2),  # the table's header row (no version banner)
    ("gpustack4832_mx_smi.txt", "MetaX", "mx-smi", 2),  # "mx-smi  version: 2.1.12"
    ("rocsmi86_rocm_smi_3.3.txt", "AMD", "rocm-smi", 1),
    ("xpumanager98_xpu_smi_dump.txt", "Intel", "xpu-smi", 2),  # the dump's CSV header
])
def test_another_vendors_tool_is_recognised(name, vendor, tool, line):
    r = _parse(foreign_accelerator_smi, f"foreign_accelerator_smi/{name}")
    assert [(f.kind, f.vendor, f.tool, f.evidence.line) for f in r.facts] == [("foreign_accelerator_tool", vendor, tool, line)]
    assert r.lines_used >= 5


def test_mx_smi_is_not_nvidia_smi_q():
    # gpustack/gpustack#4832: mx-smi prints nvidia-smi -q's "Attached GPUs  : 8" under MetaX's banner
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/foreign_accelerator_smi/gpustack4832_mx_smi.txt").read_text()
    assert foreign_accelerator_smi.detect(text) and not nvidia_smi_q.detect(text)


@pytest.mark.parametrize("text", [
    # nvidia-smi's own outputs (its default table, the head of -q without its banner: Project-HAMi/HAMi#602's key)
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n",
    "Timestamp                                 : Mon Mar  9 14:23:48 2026\nAttached GPUs                             : 1\n",
    # DCGM's discovery table says "GPU ID", not xpu-smi's "Device ID"
    "| GPU ID | Device Information                                                   |\n| 0      | Name: NVIDIA H100 |\n",
])
def test_nvidias_own_output_is_not_another_vendors(text):
    assert not foreign_accelerator_smi.detect(text)
    assert foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []


def test_npu_smi_banner_alone():
    # vllm-project/vllm-ascend#12980: npu-smi info's version banner, its first row
    line = "| npu-smi 26.0.rc2                            Version: 26.0.rc2                                                    |\n"
    fs = foreign_accelerator_smi.parse(Artefact(path="t.txt", text=line, node="n1")).facts
    assert [(f.vendor, f.tool, f.evidence.line) for f in fs] == [("Huawei", "npu-smi", 1)]


def test_rocm_memory_access_fault_is_read_as_amds():
    # EleutherAI/gpt-neox#1310: ROCm's HSA runtime on six MI250X GCDs (round rS12)
    r = _parse(foreign_accelerator_smi, "foreign_accelerator_smi/gptneox1310_rocm_memory_access_fault.log")
    [f] = r.facts
    assert (f.kind, f.vendor, f.gpu_node, f.address, f.reason, f.faults, f.gpu_nodes, f.memory_error, f.evidence.line) == (
        "foreign_gpu_fault", "AMD", 9, "0x14a1cfe01000", "Unknown", 6, "9, 6, 11, 8, 4, 7", False, 3)
    assert r.lines_used == 10  # six fault lines, four "GPU core dump failed"


@pytest.mark.parametrize("line, node, address, reason, ecc", [
    # CONSTRUCTED from ROCR-Runtime runtime.cc's format strings: the older one, an imprecise fault, an ECC reason
    ("Memory access fault by GPU node-2 on address 0x7f4067e00000. Reason: Page not present or supervisor privilege.",
     2, "0x7f4067e00000", "Page not present or supervisor privilege", False),
    ("Memory access fault by GPU node-1 (Agent handle: 0x55b017570c40) on address 0x7fcd499e6000(may not be exact address). Reason: Unknown.",
     1, "0x7fcd499e6000", "Unknown", False),
    ("Memory access fault by GPU node-4 (Agent handle: 0x55d0a1b2c3d0) on address 0x7f1200000000. Reason: DRAM ECC failure.",
     4, "0x7f1200000000", "DRAM ECC failure", True),
])
def test_rocm_fault_forms(line, node, address, reason, ecc):
    text = line + "\n"
    assert foreign_accelerator_smi.detect(text)
    [f] = foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert (f.gpu_node, f.address, f.reason, f.memory_error) == (node, address, reason, ecc)


def test_a_sentence_about_a_memory_access_fault_is_not_read():
    text = "We sometimes see a memory access fault by GPU on MI250X when the batch is large.\n"
    assert not foreign_accelerator_smi.detect(text)
    assert foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []


@pytest.mark.parametrize("name, vendor, tool, line", [
    ("scripts_and_utils_hl_smi_gaudi2.txt", "Intel Habana", "hl-smi", 2),  # "| HL-SMI Version:  hl-1.21.1-..."
    ("paddle_docs_cnmon_mlu370.txt", "Cambricon", "cnmon", 2),  # "| CNMON v5.10.13   Driver v5.10.13 |"
    ("gpustack_docs_mthreads_gmi_s80.txt", "Moore Threads", "mthreads-gmi", 4),  # "    mthreads-gmi:1.14.0   Driver Version:2.7.0"
    ("constructed_amd_smi_26.txt", "AMD", "amd-smi", 2),  # CONSTRUCTED: amd-smi 26.x's banner
])
def test_more_vendors_tools_are_recognised(name, vendor, tool, line):
    # round rT5: before it, hl-smi, mthreads-gmi and amd-smi were unrecognised and cnmon's "Ecc-Error" header an error
    r = _parse(foreign_accelerator_smi, f"foreign_accelerator_smi/{name}")
    assert [(f.kind, f.vendor, f.tool, f.evidence.line) for f in r.facts] == [("foreign_accelerator_tool", vendor, tool, line)]
    assert r.lines_used >= 10


@pytest.mark.parametrize("text", [
    # nvidia-smi's table header is not hl-smi's ("GPU  Name  Persistence-M", not "AIP ...")
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n",
    # a sentence naming the tools
    "Run cnmon, hl-smi or mthreads-gmi on the host; amd-smi shows the AMD GPUs.\n",
])
def test_other_text_is_no_new_vendors_tool(text):
    assert foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []


def test_the_reason_names_the_tool_it_saw(ruleset, tmp_path):
    # the verdict's reason names each file's vendor and tool (knowledge/coverage.yaml named), not only "another vendor's"
    from pathlib import Path
    from stethoscope.engine.pipeline import diagnose_bundle
    src = Path(__file__).resolve().parents[2] / "fixtures/artefacts/foreign_accelerator_smi"
    for node, name in (("n1", "paddle_docs_cnmon_mlu370.txt"), ("n2", "scripts_and_utils_hl_smi_gaudi2.txt")):
        (tmp_path / node).mkdir()
        (tmp_path / node / name).write_text((src / name).read_text())
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and not rep.findings
    assert "paddle_docs_cnmon_mlu370.txt (Cambricon's cnmon: another vendor's accelerator tool" in rep.reason
    assert "scripts_and_utils_hl_smi_gaudi2.txt (Intel Habana's hl-smi: another vendor's" in rep.reason


def test_rocm_hw_exception_is_read_as_amds():
    # segurac/force-host-alloction-APU#2: ROCm's HSA runtime after KFD reset a hung GPU (round rT5)
    r = _parse(foreign_accelerator_smi, "foreign_accelerator_smi/forcehostalloc2_rocm_hw_exception.log")
    [f] = r.facts
    assert (f.kind, f.event, f.vendor, f.gpu_node, f.address, f.reason, f.memory_error, f.faults, f.evidence.line) == (
        "foreign_gpu_fault", "hw_exception", "AMD", 1, None, "GPU Hang", False, 1, 1)
    assert r.lines_used == 1


@pytest.mark.parametrize("text, node, reason, ecc, nodes", [
    # CONSTRUCTED from runtime.cc HwExceptionHandler: KFD's ECC reset cause
    ("HW Exception by GPU node-4 (Agent handle: 0x55d0a1b2c3d0) reason :ECC\n", 4, "ECC", True, "4"),
    # after a progress bar without its newline, repeated per process (the form training logs show)
    (" 41%|####  | 366/903 [5:15:39<6:53:09, 46.16s/it]HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) reason :GPU Hang\n"
     "HW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang\n", 9, "GPU Hang", False, "9"),
])
def test_rocm_hw_exception_forms(text, node, reason, ecc, nodes):
    [f] = foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert (f.event, f.gpu_node, f.reason, f.memory_error, f.gpu_nodes) == ("hw_exception", node, reason, ecc, nodes)


def test_memory_access_fault_and_hw_exception_are_two_facts():
    text = ("Memory access fault by GPU node-2 on address 0x7f4067e00000. Reason: Page not present or supervisor privilege.\n"
            "HW Exception by GPU node-2 (Agent handle: 0x1) reason :GPU Hang\n")
    fs = foreign_accelerator_smi.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert [(f.event, f.memory_error) for f in fs] == [("memory_access_fault", False), ("hw_exception", False)]


# --- amd-smi's ECC counts (metric --ecc --ecc-blocks; round rW2) -------------------------------------------------------

def test_amd_smi_ecc_block_grep_real():
    # ROCm/device-metrics-exporter#368: one GPU's UMC block grepped out of amd-smi metric -k (no "GPU: 0" line)
    r = _parse(foreign_accelerator_smi, "foreign_accelerator_smi/metricsexporter368_amd_smi_umc_correctable.txt")
    [tool, f] = r.facts
    assert (tool.kind, tool.tool) == ("foreign_accelerator_tool", "amd-smi")
    assert (f.kind, f.gpu, f.correctable, f.uncorrectable, f.deferred, f.blocks, f.memory_error, f.evidence.line) == (
        "foreign_gpu_ecc_count", None, 2, 0, 0, None, False, 3)


# CONSTRUCTED from amdsmi's CLI templates (metricEccErrorCountTemplate, metricEccBlockErrorCountTemplate) and its
# changelog's example of `amd-smi metric --ecc --ecc-blocks`: two GPUs, the second with uncorrectable counts
_AMD_ECC = ("GPU: 0\n    ECC:\n        TOTAL_CORRECTABLE_COUNT: 0\n        TOTAL_UNCORRECTABLE_COUNT: 0\n        TOTAL_DEFERRED_COUNT: 0\n"
            "        CACHE_CORRECTABLE_COUNT: 0\n        CACHE_UNCORRECTABLE_COUNT: 0\n    ECC_BLOCKS:\n        UMC:\n"
            "            CORRECTABLE_COUNT: 0\n            UNCORRECTABLE_COUNT: 0\n            DEFERRED_COUNT: 0\n\n"
            "GPU: 1\n    ECC:\n        TOTAL_CORRECTABLE_COUNT: 5\n        TOTAL_UNCORRECTABLE_COUNT: 4\n        TOTAL_DEFERRED_COUNT: 0\n"
            "        CACHE_CORRECTABLE_COUNT: N/A\n        CACHE_UNCORRECTABLE_COUNT: N/A\n    ECC_BLOCKS:\n        UMC:\n"
            "            CORRECTABLE_COUNT: 5\n            UNCORRECTABLE_COUNT: 3\n            DEFERRED_COUNT: 0\n        SDMA:\n"
            "            CORRECTABLE_COUNT: 0\n            UNCORRECTABLE_COUNT: 1\n            DEFERRED_COUNT: 0\n")


def test_amd_smi_ecc_two_gpus():
    fs = [f for f in foreign_accelerator_smi.parse(Artefact(path="t.txt", text=_AMD_ECC, node="n1")).facts
          if f.kind == "foreign_gpu_ecc_count"]
    assert [(f.gpu, f.correctable, f.uncorrectable, f.blocks, f.memory_error, f.evidence.line) for f in fs] == [
        (0, 0, 0, None, False, 1), (1, 5, 4, "UMC, SDMA", True, 14)]


def test_amd_smi_other_metrics_are_not_ecc():
    # CONSTRUCTED from amd-smi metric's other sections: a clock block and PCIe counters are no ECC count
    text = "GPU: 0\n    PCIE:\n        WIDTH: 16\n        REPLAY_COUNT: 0\n    CLOCK:\n        GFX_0:\n            CLK: 132 MHz\n"
    assert not foreign_accelerator_smi.detect(text)

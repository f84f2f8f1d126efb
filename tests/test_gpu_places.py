"""A GPU finding on a rack-scale system names where the GPU sits (engine/findings.gpu_places): the chassis, slot,
tray, host and module of ``nvidia-smi -q``'s ``Platform Info`` (GB200 / GB300 NVL), read as gpu_platform facts, so
the operator knows which tray to pull and which module on it. Identity only: no verdict changes."""
from __future__ import annotations

from pathlib import Path

import small_bundle

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts" / "nvidia_smi_q"
# CONSTRUCTED: NVIDIA/k8s-test-infra#642's real Platform Info block under a GPU header of -q's layout, and the
# driver's Xid line (nv.c's "NVRM: Xid (PCI:%04x:%02x:%02x): %d, ...") for that GPU and for another one
HEADER = ("==============NVSMI LOG==============\n\nAttached GPUs                : 1\nGPU 00000008:01:00.0\n"
          "    Product Name                 : NVIDIA GB300\n")
XID = "[ 1000.000000] NVRM: Xid (PCI:{bus}): 79, pid=1234, name=python3, GPU has fallen off the bus.\n"


def test_a_gpu_finding_names_the_tray_and_module_where_the_gpu_sits(ruleset, tmp_path):
    block = (ART / "k8stestinfra642_gb300_platform_info.txt").read_text()
    rep = small_bundle.diagnose(tmp_path, {"n1/nvidia-smi-q.txt": HEADER + block, "n1/dmesg.log": XID.format(bus="0008:01:00")},
                                ruleset)
    [f] = [f for f in rep.findings if f.rule == "xid79_gpu_fell_off_bus"]
    assert f.entity.gpu == "0008:01:00.0" and f.entity.label == (
        "n1 GPU 0008:01:00.0 (chassis 1823825185529, slot 5, tray 4, host 1, module 2)")


def test_no_place_for_another_gpu_another_node_or_a_board_that_is_not_rack_scale(ruleset, tmp_path):
    block = (ART / "k8stestinfra642_gb300_platform_info.txt").read_text()
    rep = small_bundle.diagnose(tmp_path / "a", {"n1/nvidia-smi-q.txt": HEADER + block,
                                                 "n1/dmesg.log": XID.format(bus="0009:01:00"),
                                                 "n2/dmesg.log": XID.format(bus="0008:01:00")}, ruleset)
    labels = sorted(f.entity.label for f in rep.findings if f.rule == "xid79_gpu_fell_off_bus")
    assert labels == ["n1 GPU 0009:01:00.0", "n2 GPU 0008:01:00.0"], labels
    # the H200's -q prints the block with every row N/A but its Module Id: no gpu_platform fact, no place
    h200 = (ART / "nvidia-smi-q.txt").read_text()
    rep = small_bundle.diagnose(tmp_path / "b", {"n1/nvidia-smi-q.txt": h200, "n1/dmesg.log": XID.format(bus="0000:00:06")},
                                ruleset)
    assert [f.entity.label for f in rep.findings if f.rule == "xid79_gpu_fell_off_bus"] == ["n1 GPU 0000:00:06.0"]

"""sysfs PCIe link files (real samples: fixtures/artefacts/sysfs_pcie_link/README.md; values: drivers/pci/pci-sysfs.c)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import sysfs_pcie_link as S
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "sysfs_pcie_link"


def _parse(text: str, node_from_folder: bool = False):
    res = S.parse(Artefact(path="t", text=text, node="n1", node_from_folder=node_from_folder))
    assert not res.errors
    return res


def test_tail_of_the_link_files_is_the_device_against_its_maximum():
    """nokyan/resources#512: tail -v of 0000:01:00.0's *_link_* files, 16.0 GT/s x8 of 32.0 GT/s x16."""
    text = (FIX / "resources512_tail_upstream_port_x8_of_x16.txt").read_text()
    assert S.detect(text)
    res = _parse(text)
    (f,) = res.facts
    assert (f.kind, f.device, f.pci_bus_id, f.device_type, f.evidence.line) == (
        "pcie_link_status", "0000:01:00.0", "0000:01:00.0", "unknown", 6)
    assert (f.speed_gts, f.width, f.cap_speed_gts, f.cap_width) == (16.0, 8, 32.0, 16)
    assert (f.width_below_cap, f.speed_below_cap, f.no_link) == (True, True, False)
    assert res.lines_used == 9  # the command, four headers, four values
    (full,) = _parse((FIX / "resources512_tail_gpu_function_x16.txt").read_text()).facts
    assert (full.width, full.cap_width, full.width_below_cap, full.speed_below_cap) == (16, 16, False, False)


def test_grep_and_cat_forms_read_the_same_files():
    """grep . <files> prints GNU grep's '<file>:<line>'; cat <file> prints the value on the next line (the values of the
    same real reading, nokyan/resources#512)."""
    tail = (FIX / "resources512_tail_upstream_port_x8_of_x16.txt").read_text().splitlines()
    pairs = [(h[4:-4], v) for h, v in zip(tail[1::3], tail[2::3])]
    grep = "\n".join(f"{p}:{v}" for p, v in pairs) + "\n"
    assert S.detect(grep)
    (g,) = _parse(grep).facts
    cat = "".join(f"$ cat {p}\n{v}\n" for p, v in pairs)
    (c,) = _parse(cat).facts
    assert (g.width, g.cap_width, g.speed_gts, g.cap_speed_gts) == (c.width, c.cap_width, c.speed_gts, c.cap_speed_gts) == (8, 16, 16.0, 32.0)
    # a class device's link names the class device: a DRM card is a GPU, an infiniband or net device a NIC
    drm = grep.replace("/sys/bus/pci/devices/0000:01:00.0/", "/sys/class/drm/card0/device/")
    (d,) = _parse(drm).facts
    assert (d.device, d.pci_bus_id, d.device_type) == ("card0", None, "gpu")
    ib = grep.replace("/sys/bus/pci/devices/0000:01:00.0/", "/sys/class/infiniband/mlx5_0/device/")
    assert [(f.device, f.device_type) for f in _parse(ib).facts] == [("mlx5_0", "nic")]


@pytest.mark.parametrize("attr, text, want", [
    # pci_speed_string since 5.7, the bare rate before it, and the unknown speed of both
    ("current_link_speed", "16.0 GT/s PCIe", (True, 16.0)), ("max_link_speed", "2.5 GT/s PCIe", (True, 2.5)),
    ("current_link_speed", "8 GT/s", (True, 8.0)), ("current_link_speed", "Unknown", (True, None)),
    ("current_link_speed", "Unknown speed", (True, None)), ("current_link_width", "16", (True, 16)),
    ("current_link_width", "x16", (False, None)), ("max_link_speed", "16GT/s", (False, None)),
])
def test_values_in_the_kernels_forms(attr, text, want):
    assert S._value(attr, text) == want


def test_no_width_no_fact_and_width_zero_is_no_link():
    tail = (FIX / "resources512_tail_upstream_port_x8_of_x16.txt").read_text()
    speeds_only = "\n".join(l for l in tail.splitlines() if "width" not in l and l.strip() not in ("8", "16")) + "\n"
    assert _parse(speeds_only).facts == []
    (f,) = _parse(tail.replace("\n8\n", "\n0\n")).facts
    assert (f.no_link, f.width_below_cap, f.speed_below_cap) == (True, False, False)


def test_not_detected_without_the_link_files():
    assert not S.detect("==> /sys/bus/pci/devices/0000:01:00.0/vendor <==\n0x10de\n")
    assert not S.detect("current_link_speed: 16.0 GT/s PCIe\n")
    assert S.parse(Artefact(path="t", text="", node="n1")).facts == []

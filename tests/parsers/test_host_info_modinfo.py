"""modinfo nvidia read by host_info: the module file's version on disk, never the loaded module's."""
from __future__ import annotations

import pathlib

import pytest

from stethoscope.facts.parsers import host_info
from stethoscope.facts.parsers.base import Artefact

FIX = pathlib.Path(__file__).parents[2] / "fixtures/artefacts/host_info"


def _versions(text: str):
    assert host_info.detect(text) == bool(host_info._modinfo_versions(text))
    r = host_info.parse(Artefact(path="modinfo.txt", text=text, node="n1"))
    assert r.errors == []
    return [(f.version, f.open_module, f.on_disk, f.loaded_module, f.module_file) for f in r.facts
            if f.kind == "nvidia_driver_version"]


def test_whole_modinfo_of_the_open_module():
    # Frogging-Family/nvidia-all#394: a zsh prompt line, the DKMS module's block
    assert _versions((FIX / "nvidia_all394_modinfo_nvidia.txt").read_text()) == [
        ("595.80", True, True, False, "/lib/modules/7.0.12-zen1-1-zen/updates/dkms/nvidia.ko.zst")]


def test_grep_version_line():
    # Nobara-Project/rpm-sources#526: modinfo nvidia | grep version, one space after the colon
    assert _versions((FIX / "nobara526_modinfo_grep_version.txt").read_text()) == [("595.58.03", None, True, False, None)]


@pytest.mark.parametrize("text, want", [
    # CONSTRUCTED from kmod's "%-16s%s" and the proprietary module's MODULE_LICENSE("NVIDIA"); Ubuntu's nvidia_NNN name
    ("$ modinfo nvidia_550\nfilename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia_550.ko\n"
     "version:        550.107.02\nlicense:        NVIDIA\nsrcversion:     5F0A1B2C3D4E5F60718293A\n",
     [("550.107.02", False, True, False, "/lib/modules/6.8.0-45-generic/updates/dkms/nvidia_550.ko")]),
    # CONSTRUCTED: modinfo -F version prints the value alone
    ("# modinfo -F version nvidia\n550.107.02\n", [("550.107.02", None, True, False, None)]),
    # CONSTRUCTED: two modules' blocks; only the core module's version is the driver's
    ("filename:       /lib/modules/6.8.0/updates/dkms/nvidia-uvm.ko\nversion:        550.107.02\nlicense:        NVIDIA\n"
     "filename:       /lib/modules/6.8.0/updates/dkms/nvidia.ko\nversion:        550.90.07\nlicense:        NVIDIA\n",
     [("550.90.07", False, True, False, "/lib/modules/6.8.0/updates/dkms/nvidia.ko")]),
])
def test_forms(text, want):
    assert _versions(text) == want


@pytest.mark.parametrize("text", [
    # NVIDIA/gdrcopy#82: another module's block (GDRCopy's version 1.1)
    (FIX / "gdrcopy82_modinfo_gdrdrv.txt").read_text(),
    # CONSTRUCTED: a version line with no modinfo of the nvidia module before it
    "version:        550.90.07\n",
    # CONSTRUCTED: modinfo of nvidia_uvm through grep: not the core module
    "$ modinfo nvidia_uvm | grep ^version\nversion:        550.90.07\n",
])
def test_no_driver_version(text):
    assert _versions(text) == []

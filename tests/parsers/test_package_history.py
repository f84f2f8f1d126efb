"""package_history: apt history.log transactions and dpkg.log action lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import package_history as ph
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/package_history"


def parse_text(text: str):
    return ph.parse(Artefact(path="history.log", text=text, node="node1"))


def test_real_unattended_upgrade():
    text = (FIX / "apt_history_unattended_upgrade_nvidia_460.log").read_text()
    assert ph.detect(text)
    r = parse_text(text)
    (f,) = r.facts
    assert (f.action, f.package, f.from_version, f.to_version, f.at, f.unattended, f.nvidia_driver) == (
        "upgrade", "libnvidia-common-460", "460.73.01-0ubuntu0.20.04.1", "460.80-0ubuntu0.20.04.2",
        "2021-06-04 06:41:09", True, True)
    assert r.lines_used == 4


def test_install_list_with_automatic_and_remove():
    text = ("Start-Date: 2024-03-01  10:00:00\nCommandline: apt-get install nvidia-driver-535\nRequested-By: admin (1000)\n"
            "Install: nvidia-dkms-535:amd64 (535.161.07-0ubuntu1, automatic), nvidia-driver-535:amd64 (535.161.07-0ubuntu1)\n"
            "Remove: nvidia-driver-470:amd64 (470.223.02-0ubuntu1)\nEnd-Date: 2024-03-01  10:01:00\n")
    got = [(f.action, f.package, f.from_version, f.to_version, f.unattended, f.nvidia_driver) for f in parse_text(text).facts]
    assert got == [("install", "nvidia-dkms-535", None, "535.161.07-0ubuntu1", False, True),
                   ("install", "nvidia-driver-535", None, "535.161.07-0ubuntu1", False, True),
                   ("remove", "nvidia-driver-470", "470.223.02-0ubuntu1", None, False, True)]


def test_dpkg_log_line():
    line = "2021-06-04 06:41:09 upgrade libnvidia-common-460:all 460.73.01-0ubuntu0.20.04.1 460.80-0ubuntu0.20.04.2"
    assert ph.detect(line)
    (f,) = parse_text(line).facts
    assert (f.manager, f.action, f.arch, f.to_version, f.nvidia_driver) == ("dpkg", "upgrade", "all", "460.80-0ubuntu0.20.04.2", True)


@pytest.mark.parametrize("pkg,nvidia", [("openssl", False), ("nvidia-utils-535", True), ("libnvidia-compute-535", True),
                                        ("nvidia-fabricmanager-535", True), ("python3-nvidia-ml", False), ("cuda-drivers", True)])
def test_nvidia_driver_packages(pkg, nvidia):
    (f,) = parse_text(f"2024-01-01 00:00:00 upgrade {pkg}:amd64 1 2").facts
    assert f.nvidia_driver is nvidia


@pytest.mark.parametrize("text", ["", "Upgrade: your plan today", "Start-Date: soon"])
def test_not_this_kind(text):
    assert not ph.detect(text)

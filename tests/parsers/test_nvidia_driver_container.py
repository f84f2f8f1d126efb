"""nvidia_driver_container: the GPU operator driver container's steps and their failures."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_driver_container as ndc
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/nvidia_driver_container"


def parse_text(text: str):
    return ndc.parse(Artefact(path="driver.log", text=text, node="node1"))


def test_real_kernel_headers_not_found():
    text = (FIX / "ocp47_kernel_headers_not_found.log").read_text()
    assert ndc.detect(text)
    (f,) = parse_text(text).facts
    assert (f.stage, f.kernel) == ("kernel_headers", "4.18.0-240.23.2.el8_3.x86_64")
    assert f.packages.startswith("kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-")


def test_real_precompiled_module_packages_not_found():
    # siderolabs/talos#8402: the Ubuntu driver container on a Talos node; apt's three "E: Unable to locate package"
    # lines are failures of the install step, the kernel read from the precompiled packages' names
    text = (FIX / "talos8402_precompiled_modules_not_found.log").read_text()
    assert ndc.detect(text)
    facts = parse_text(text).facts
    assert [(f.stage, f.kernel) for f in facts] == [("install", "6.1.51-talos")] * 3
    assert facts[0].packages == "linux-objects-nvidia-535-server-6.1.51-talos"


@pytest.mark.parametrize("pkg,kernel", [
    ("kernel-headers-4.18.0-240.23.2.el8_3.x86_64", "4.18.0-240.23.2.el8_3.x86_64"),
    # CONSTRUCTED from ubuntu22.04/precompiled/nvidia-driver's apt-get install of the open flavour
    ("linux-modules-nvidia-535-server-open-6.8.0-1015-aws", "6.8.0-1015-aws"),
    ("linux-signatures-nvidia-6.1.51-talos", "6.1.51-talos"),
])
def test_kernel_of_package_names(pkg, kernel):
    assert ndc._KERNEL.search(pkg)["kernel"] == kernel


@pytest.mark.parametrize("text,stage", [
    ("Resolving Linux kernel version...\nCould not resolve Linux kernel version\n", "kernel_version"),
    ("Installing elfutils...\nFATAL: failed to install elfutils packages. RHEL entitlement may be improperly deployed.\n",
     "dependencies"),
    ("Generating Linux kernel version string...\nCould not locate Linux kernel version string\n", "kernel_version_string"),
    ("Loading NVIDIA driver kernel modules...\nmodprobe: ERROR: could not insert 'nvidia': Operation not permitted\n", "load"),
    ("Compiling NVIDIA driver kernel modules...\nmake[1]: *** [Makefile:1834: __modpost] Error 2\n", "build"),
    # CONSTRUCTED from ubuntu22.04/precompiled/nvidia-driver: echo "Installing Closed NVIDIA driver kernel modules..."
    ("Installing Closed NVIDIA driver kernel modules...\nE: Unable to locate package linux-objects-nvidia-570-server-6.8.0-1015-aws\n",
     "install"),
])
def test_failure_stages(text, stage):
    assert ndc.detect(text)
    (f,) = parse_text(text).facts
    assert f.stage == stage


@pytest.mark.parametrize("text", [
    "",
    "Error: Unable to find a match: kernel-headers-4.18.0\n",  # a dnf error alone is no driver build
    "+ echo 'Installing Linux kernel headers...'\n",  # the bash -x trace of the step, not the step
])
def test_not_this_kind(text):
    assert not ndc.detect(text)

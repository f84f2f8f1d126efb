"""nvidia-installer's module-load failure (facts/parsers/nvidia_installer.py) on real pastes, with near misses."""
from __future__ import annotations

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py

from stethoscope.facts.parsers import nvidia_installer
from stethoscope.facts.parsers.base import Artefact


def test_secure_boot_install_log_names_the_module():
    r = _parse(nvidia_installer, "nvidia_installer/gpu_driver_container44_secure_boot_load_failed.txt")
    (f,) = r.facts
    assert (f.kind, f.module, f.reason, f.source, f.evidence.line) == (
        "kernel_module_load_failure", "nvidia", "other", "nvidia-installer", 19)
    assert r.errors == []


def test_load_error_detail_gives_the_reason():
    r = _parse(nvidia_installer, "nvidia_installer/bumblebee932_load_error_no_such_device.txt")
    (f,) = r.facts
    assert (f.module, f.reason) == ("nvidia", "no_device")
    assert f.message.endswith("Kernel module load error: No such device")
    assert r.lines_used == 3  # the ERROR, the "Please see the log entries" line, the detail


def test_near_misses():
    assert not nvidia_installer.detect("Installing NVIDIA driver version 535.161.07.\nBuilding kernel modules\n")
    # an installer that loaded its module: nothing to say
    text = "Building kernel modules\n  : [##############################] 100%\nInstallation of the NVIDIA Accelerated Graphics Driver for Linux-x86_64 (version: 535.161.07) is now complete.\n"
    assert not nvidia_installer.detect(text)
    assert nvidia_installer.parse(Artefact(path="i.log", text=text)).facts == []


def test_unsigned_module_error_gives_the_signature_reason():
    r = _parse(nvidia_installer, "nvidia_installer/dataproc_gpu_readme_secure_boot_unsigned.txt")
    (f,) = r.facts  # one event: the unsigned-module ERROR is the reason of the load failure after it
    assert (f.module, f.reason, f.evidence.line) == ("nvidia", "signature", 2)
    assert "not signed by a key that is trusted by the kernel" in f.message
    assert r.lines_used == 3  # the two ERRORs and "Please see the log entries"


def test_unsigned_module_error_alone_older_wording():
    # the older wording, the paste cut before "Unable to load" (NVIDIA/gpu-operator#266's driver container)
    text = ("Building kernel modules\n  : [##############################] 100%\n"
            "ERROR: The kernel module failed to load, because it was not signed by a key that is trusted by the kernel. "
            "Please try installing the driver again, and sign the kernel module when prompted to do so.\n")
    assert nvidia_installer.detect(text)
    (f,) = nvidia_installer.parse(Artefact(path="d.log", text=text)).facts
    assert (f.module, f.reason, f.source, f.evidence.line) == ("nvidia", "signature", "nvidia-installer", 3)


def test_unsigned_near_misses():
    # a how-to's prose about the message, not the installer's line
    text = "+ The kernel module failed to load. Secure boot is enabled on this system, so this is likely because it was not signed by a key that is trusted by the kernel.... \n"
    assert not nvidia_installer.detect(text)
    # the installer's question before signing, answered: no failure yet
    text = "The target kernel has CONFIG_MODULE_SIG set, which means that it supports cryptographic signatures on kernel modules.\n"
    assert not nvidia_installer.detect(text)


def test_build_that_went_through_is_recognised_without_a_fact():
    # NVIDIA/gpu-operator#1726: the driver container's build tail (kbuild's LD [M] lines, the installer's ui_log line)
    r = _parse(nvidia_installer, "nvidia_installer/gpuoperator1726_driver_container_build_went_through.txt")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 5)
    text = "Welcome to the NVIDIA Software Installer for Unix/Linux\n\nInstalling NVIDIA driver version 535.161.07.\n"
    assert nvidia_installer.parse(Artefact(path="i.log", text=text)).lines_used == 1
    assert nvidia_installer.detect(text)  # gpu-driver-container#44's first lines
    # near misses: another project's build ("Kernel module compilation complete" without its period), kbuild alone
    assert not nvidia_installer.detect("Kernel module compilation complete, installing\n")
    assert not nvidia_installer.detect("  LD [M]  drivers/net/foo.ko\n")


def test_nouveau_in_use_wrapped_and_indented():
    for name in ("apollo2466_nouveau_in_use.txt", "azure_ethereum_mine2_nouveau_in_use_indented.txt"):
        r = _parse(nvidia_installer, f"nvidia_installer/{name}")
        (f,) = r.facts
        assert (f.kind, f.refusal, f.evidence.line) == ("driver_installer_refusal", "nouveau_in_use", 1)
        assert f.message.endswith("The Nouveau kernel driver is currently in use by your system.")


def test_module_already_loaded_both_wordings():
    for name, line in (("apollo6308_module_already_loaded_error.txt", 1), ("cuda_samples286_module_already_loaded_abort.log", 6),
                       ("libvfio20_installer_log_module_already_loaded.log", 19)):
        r = _parse(nvidia_installer, f"nvidia_installer/{name}")
        (f,) = r.facts
        assert (f.refusal, f.module, f.evidence.line) == ("module_in_use", "nvidia_drm", line)


def test_module_already_loaded_but_install_continued_is_no_refusal():
    # CONSTRUCTED from nvidia-installer kernel.c's 545 wording and its recorded answer: the operator let it go on
    text = ("WARNING: An NVIDIA kernel module 'nvidia-drm' appears to be already loaded in your kernel.  This may be because it is in use.\n"
            "-> Would you like to continue installation and skip the sanity checks? If not, please abort the installation, then close "
            "any programs which may be using the NVIDIA GPU(s), and attempt installation again. (Answer: Continue installation)\n")
    assert nvidia_installer.detect(text)
    assert nvidia_installer.parse(Artefact(path="i.log", text=text)).facts == []


def test_no_supported_gpu_reads_the_release_across_blank_lines():
    r = _parse(nvidia_installer, "nvidia_installer/instagraal10_no_supported_gpu_warning.txt")
    (f,) = r.facts
    assert (f.refusal, f.driver_version, f.evidence.line) == ("no_supported_gpu", "410.48", 6)
    assert f.message.endswith("410.48 NVIDIA Linux graphics driver installed in this system.")


def test_refusal_words_in_prose_are_not_read():
    # CONSTRUCTED: a user's sentence about nouveau, without the installer's ERROR:/WARNING: prefix
    text = "I think the Nouveau kernel driver is currently in use, so I blacklisted it.\n"
    assert not nvidia_installer.detect(text)

"""package_install: dpkg / apt / DKMS output of an install that failed, as package_install_failed facts (real pastes)."""
from __future__ import annotations

from parse_helper import FIX

from stethoscope.facts.parsers import package_install
from stethoscope.facts.parsers.base import Artefact


def parse_fixture(mod, rel: str | None = None, text: str | None = None):
    """As the pipeline reads a file: wrappers off (a CI log's RFC 3339 stamps), detect, then parse."""
    a = Artefact(path=rel or "t.txt", text=(FIX / rel).read_text() if text is None else text, node="n1")
    a.normalise()
    assert mod.detect(a.text)
    return mod.parse(a)


def facts(rel: str | None = None, text: str | None = None):
    return [(f.evidence.line, f.tool, f.package, f.step, f.reason, f.exit_status, f.nvidia_driver)
            for f in parse_fixture(package_install, rel, text).facts]


def test_dkms_build_failure_is_the_cause_of_the_package_script_failure():
    # pop-os/beta#310: the DKMS build error, then nvidia-dkms-390's postinst (exit 10), then nvidia-driver-390 left behind it
    res = parse_fixture(package_install, "package_install/beta310_nvidia_dkms_390_build_failed.txt")
    (f,) = res.facts
    assert (f.evidence.line, f.package, f.module, f.module_version, f.kernel, f.step, f.reason, f.exit_status, f.nvidia_driver) == (
        3, "nvidia-dkms-390", "nvidia", "390.144", "5.15.2-76051502-generic", "configure", "build_failed", 10, True)
    assert res.lines_used == 13  # every line but the blank one; the dependent package is read with no fact of its own


def test_dkms_install_alone_names_the_module():
    # NVIDIA/open-gpu-kernel-modules#526: dkms install nvidia/390.157 on 6.4.1-zen1-1-zen
    res = parse_fixture(package_install, "package_install/ogkm526_dkms_install_nvidia_390_build_failed.txt")
    (f,) = res.facts
    assert (f.evidence.line, f.tool, f.package, f.module_version, f.kernel, f.reason, f.nvidia_driver) == (
        8, "dkms", "nvidia", "390.157", "6.4.1-zen1-1-zen", "build_failed", True)
    assert res.lines_used == 8  # the signing and build lines too


def test_packages_left_unconfigured_are_facts_where_the_root_failure_is_cut_off():
    # NVIDIA/open-gpu-kernel-modules#188: CI-stamped lines, the nvidia-kernel-dkms failure before the excerpt
    assert facts("package_install/ogkm188_driver_packages_dependency_unconfigured.txt") == [
        (6, "dpkg", "nvidia-driver", "configure", "dependency", None, True),
        (8, "dpkg", "cuda-drivers-515", "configure", "dependency", None, True),
        (14, "dpkg", "cuda-drivers", "configure", "dependency", None, True),
    ]


def test_other_dkms_package_and_errors_list():
    # pop-os/pop#1338: bcmwl-kernel-source's DKMS build; the package under "Errors were encountered" is the same failure
    assert facts("package_install/pop1338_bcmwl_dkms_build_failed.txt") == [
        (15, "dpkg", "bcmwl-kernel-source", "configure", "build_failed", 10, False)]


def test_reason_line_without_its_leading_space():
    # Mellanox/nv_peer_memory#80 (harvest 1904): the paste lost the reason's leading space
    text = ("dpkg: error processing package nvidia-peer-memory-dkms (--install):\n"
            "installed nvidia-peer-memory-dkms package post-installation script subprocess returned error exit status 1\n"
            "Errors were encountered while processing:\n"
            "nvidia-peer-memory-dkms\n")
    assert facts(text=text) == [(1, "dpkg", "nvidia-peer-memory-dkms", "install", "script_failed", 1, False)]


def test_listed_package_alone_and_apt_line_alone():
    # pop-os/pop#1338's list without the lines before it; NVIDIA/open-gpu-kernel-modules#188's apt line
    assert facts(text="Errors were encountered while processing:\n bcmwl-kernel-source\n") == [
        (2, "dpkg", "bcmwl-kernel-source", "other", "listed", None, False)]
    assert facts(text="E: Sub-process /usr/bin/dpkg returned an error code (1)\n") == [
        (1, "apt", None, "other", "other", 1, False)]
    # harvest 1904's list item without its leading space; the list's head alone (its packages cut off)
    assert facts(text="Errors were encountered while processing:\nnvidia-peer-memory-dkms\n") == [
        (2, "dpkg", "nvidia-peer-memory-dkms", "other", "listed", None, False)]
    assert facts(text="Errors were encountered while processing:\n") == [(1, "dpkg", None, "other", "listed", None, False)]


def test_driver_package_names():
    assert package_install._is_driver("nvidia-dkms-580-open", None) and package_install._is_driver("nvidia-kernel-dkms", None)
    assert package_install._is_driver("cuda-drivers-515", None) and package_install._is_driver(None, "nvidia-current")
    assert not package_install._is_driver("nvidia-peer-memory-dkms", None) and not package_install._is_driver(None, "nvidia-fs")
    assert not package_install._is_driver("bcmwl-kernel-source", "bcmwl")


def test_progress_without_a_failure_is_not_this_reader():
    # Mellanox/nv_peer_memory#80's progress lines: an install that went through is not detected
    assert not package_install.detect("Setting up nvidia-peer-memory-dkms (1.1-0) ...\nDKMS: install completed.\n")


def test_compiler_error_in_the_driver_dkms_tree_is_its_build_failure():
    # linux-surface/linux-surface#52: the make.log alone, gcc's error under /var/lib/dkms/nvidia-current/418.74/build/
    (f,) = parse_fixture(package_install, "package_install/linuxsurface52_nvidia_current_418_make_log_error.txt").facts
    assert (f.evidence.line, f.tool, f.module, f.module_version, f.kernel, f.step, f.reason, f.nvidia_driver) == (
        2, "dkms", "nvidia-current", "418.74", None, "build", "build_failed", True)
    assert f.message.endswith("nv-linux.h:733:21: error: void value not ignored as it ought to be")
    # CONSTRUCTED (dkms build -v: gcc's errors, make's, then DKMS's own line): one fact, DKMS's line naming the kernel
    text = ("/var/lib/dkms/nvidia/530.30.02/build/nvidia/os-mlock.c:42:9: error: implicit declaration of function 'follow_pfn'\n"
            "/var/lib/dkms/nvidia/530.30.02/build/nvidia/os-mlock.c:57:5: error: too few arguments to function 'pin'\n"
            "make[1]: *** [Makefile:2024: /var/lib/dkms/nvidia/530.30.02/build] Error 2\n"
            "Error! Bad return status for module build on kernel: 6.5.0-41-generic (x86_64)\n"
            "Consult /var/lib/dkms/nvidia/530.30.02/build/make.log for more information.\n")
    (f,) = parse_fixture(package_install, text=text).facts
    assert (f.evidence.line, f.module, f.module_version, f.kernel, f.nvidia_driver) == (4, "nvidia", "530.30.02", "6.5.0-41-generic", True)
    assert "follow_pfn" in f.message


def test_compiler_lines_that_are_not_the_driver_build_error_are_not_read():
    # CONSTRUCTED: another module's tree (left to the unrecognised-text reader), a warning, the path in prose
    for line in ("/var/lib/dkms/bbswitch/0.8/build/bbswitch.c:12:3: error: unknown type name 'acpi_handle'\n",
                 "/var/lib/dkms/nvidia/530.30.02/build/nvidia/nv.c:12:3: warning: unused variable 'x'\n",
                 "see /var/lib/dkms/nvidia/530.30.02/build/nvidia/nv.c:12:3: error: x\n"):
        assert not package_install.detect(line)

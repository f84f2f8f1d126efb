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


def test_dkms_kernel_headers_missing_each_release():
    # dkms's check for the kernel's build tree, in each release's wording (round rY6): the first line is the failure,
    # the others are read with it. dkms 3.x (Frogging-Family/linux-tkg#1186, verbatim):
    res = parse_fixture(package_install, "package_install/tkg1186_dkms_kernel_headers_not_found.txt")
    (f,) = res.facts
    assert (f.evidence.line, f.tool, f.kernel, f.module, f.step, f.reason, f.nvidia_driver) == (
        1, "dkms", "linux-headers-6.19.6-tkg-bore", None, "build", "build_failed", False)
    assert res.lines_used == 2
    # dkms 2.2 (Ubuntu's): three lines (a public repository's notes, code index file 56867522190, verbatim)
    old = ("Error! Your kernel headers for kernel 3.5.0-26-generic cannot be found.\n"
           "Please install the linux-headers-3.5.0-26-generic package,\n"
           "or use the --kernelsourcedir option to tell DKMS where it's located\n")
    res = parse_fixture(package_install, text=old)
    assert [(f.kernel, f.reason) for f in res.facts] == [("3.5.0-26-generic", "build_failed")] and res.lines_used == 3
    # dkms 2.x upstream: "cannot be found at" then the two paths on the next line (code index file 57148653389, verbatim)
    up = ("Error! Your kernel headers for kernel 2.6.38-02063801-generic cannot be found at\n"
          "/lib/modules/2.6.38-02063801-generic/build or /lib/modules/2.6.38-02063801-generic/source.\n")
    res = parse_fixture(package_install, text=up)
    assert [f.kernel for f in res.facts] == ["2.6.38-02063801-generic"] and res.lines_used == 2
    # dkms 2.8's "Error! echo" slip, the message on its own line (code index file 37085321893, verbatim but its blank rows)
    echo = ("Error! echo\nYour kernel headers for kernel 3.10.33-1-lts cannot be found at\n"
            "/usr/lib/modules/3.10.33-1-lts/build or /usr/lib/modules/3.10.33-1-lts/source.\n")
    res = parse_fixture(package_install, text=echo)
    assert [f.kernel for f in res.facts] == ["3.10.33-1-lts"] and res.lines_used == 3


def test_dkms_kernel_headers_missing_names_the_module_the_installer_built():
    # nvidia-installer running dkms (a public repository's deployment notes, code index file 31072961625, verbatim):
    # the command names the module and its version: the NVIDIA driver's
    line = ("Failed to run `/usr/sbin/dkms build -m nvidia -v 440.64 -k 3.10.0-957.el7.x86_64`: Error! Echo Your kernel headers"
            " for kernel 3.10.0-957.el7.x86_64 cannot be found at /lib/modules/3.10.0-957.el7.x86_64/build or"
            " /lib/modules/3.10.0-957.el7.x86_64/source. You can use the --kernelsourcedir option to tell DKMS where it's located.\n")
    (f,) = parse_fixture(package_install, text=line).facts
    assert (f.module, f.module_version, f.kernel, f.nvidia_driver) == ("nvidia", "440.64", "3.10.0-957.el7.x86_64", True)


def test_nvidia_module_symvers_check_in_a_quoted_make_log():
    # Tk-Glitch/PKGBUILDS#414 (round rY6): the NVIDIA driver's conftest.sh check failed in DKMS's build of nvidia
    # 435.27.08; the make.log quoted behind "> " (the wrapper taken off as the pipeline does)
    res = parse_fixture(package_install, "package_install/pkgbuilds414_nvidia_435_module_symvers_missing.txt")
    (f,) = res.facts
    assert (f.evidence.line, f.tool, f.module, f.module_version, f.reason, f.nvidia_driver) == (
        6, "dkms", "nvidia", "435.27.08", "build_failed", True)
    assert "Module.symvers file is missing" in f.message
    assert res.lines_used == 9  # the check's six lines and make's three failure lines


def test_module_symvers_check_of_another_driver_is_not_the_nvidia_one():
    # CONSTRUCTED: the same conftest.sh check copied into another vendor's driver (its second line names that vendor)
    text = ("The Module.symvers file is missing, or does not contain any\n"
            "symbols exported from the kernel. This could cause the OTHERGPU\n")
    a = Artefact(path="t.txt", text=text, node="n1")
    a.normalise()
    assert package_install.parse(a).facts == []

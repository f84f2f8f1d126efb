"""debian_packages: dpkg -l and apt list rows of the GPU/RDMA stack as package_version facts."""
from __future__ import annotations

from pathlib import Path

from stethoscope.engine.combine import version_compat
from stethoscope.facts.kinds.host import NvidiaDriverVersion, PackageVersion
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers import debian_packages
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/debian_packages"
CASE1201 = ROOT / "fixtures/harvest/cases/1201-nvidia-fs-2-25-6-regression-rw-verify-area-efault-gds-io-failed/other-apt-list.txt"


def parse(text: str):
    return debian_packages.parse(Artefact(path="t.txt", text=text, node="n1"))


def rows(text: str):
    return [(f.evidence.line, f.package, f.version, f.manager, f.cuda_build, f.nvidia_driver) for f in parse(text).facts]


def test_dpkg_grep_libnccl_without_header():
    text = (FIX / "llmc742_dpkg_grep_libnccl.txt").read_text()
    assert debian_packages.detect(text)
    assert rows(text) == [(1, "libnccl2", "2.22.3-1+cuda12.2", "dpkg", "12.2", False)]
    (f,) = parse(text).facts
    assert (f.cuda_build_num, f.cuda_build_major) == (12020, 12)


def test_packages_outside_the_stack_are_read_not_kept():
    text = (FIX / "llmc742_dpkg_grep_nccl_no_library.txt").read_text()
    res = parse(text)
    assert res.facts == [] and res.lines_used == 2  # libvncclient1, nccl-local-repo-...: no NCCL library


def test_dpkg_l_with_header_keeps_installed_rows_only():
    text = (FIX / "nvidia_docker1364_dpkg_l_nvidia.txt").read_text()
    res = parse(text)
    assert res.lines_used == 14  # header, un, rc and ii rows: every line read
    assert [r[1:] for r in rows(text)] == [
        ("libnvidia-cfg1-450", "450.51.06-0ubuntu1", "dpkg", None, True),
        ("libnvidia-common-450", "450.51.06-0ubuntu1", "dpkg", None, True),
        ("libnvidia-compute-450", "450.51.06-0ubuntu1", "dpkg", None, True),
    ]


def test_apt_list_candidates_and_the_installed_version():
    text = CASE1201.read_text()
    assert debian_packages.detect(text)
    res = parse(text)
    assert res.lines_used == 6
    # "[upgradable from: 2.12.4-1]": 2.12.4-1 is installed; the other rows are only available
    assert rows(text) == [(3, "nvidia-fs-dkms", "2.12.4-1", "apt", None, False)]


def test_newest_driver_package_is_the_node_driver_when_nothing_running_says():
    facts = parse((FIX / "nct188_dpkg_l_two_driver_branches.txt").read_text()).facts
    assert version_compat._drivers(facts) == {"n1": "510.47.03"}  # 495's common package left behind
    ev = Evidence(path="smi.txt", line=1, text="x")
    running = NvidiaDriverVersion(id="d", node="n1", evidence=ev, version="535.104.05")
    assert version_compat._drivers([*facts, running]) == {"n1": "535.104.05"}


def test_cuda_build_of_a_listed_package_is_checked_against_the_driver_package():
    ev = Evidence(path="dpkg.txt", line=1, text="x")
    nccl = PackageVersion(id="a", node="n1", evidence=ev, package="libnccl2", version="2.22.3-1+cuda12.2", manager="dpkg",
                          cuda_build="12.2", cuda_build_num=12020, cuda_build_major=12)
    driver = PackageVersion(id="b", node="n1", evidence=ev, package="libnvidia-compute-470", version="470.103.01-0ubuntu0.20.04.1",
                            manager="dpkg", nvidia_driver=True)
    (c,) = [f for f in version_compat.summarise([nccl, driver]) if f.check == "cuda_build_driver"]
    assert not c.ok and "driver 470.103.01; libnccl2 2.22.3-1+cuda12.2 built for CUDA 12.2" in c.have


def test_not_a_package_list():
    assert not debian_packages.detect("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
    assert not debian_packages.detect("see ./src/foo 1.2 all of them\n")


def test_debian_driver_packages_without_a_branch_and_the_loaded_module():
    # illinois-scicomp/machine-shop-maintenance#70: /proc/driver/nvidia/version (the loaded module, 520.56.06), then
    # `dpkg -l nvidia-smi`: Debian's package of the driver, named without a branch, 525.85.12-1
    from stethoscope.facts.parsers import host_info
    text = (FIX / "machineshop70_mixed_proc_version_dpkg_nvidia_smi.txt").read_text()
    [p] = [f for f in parse(text).facts if f.kind == "package_version"]
    assert (p.package, p.version, p.nvidia_driver, p.driver_release) == ("nvidia-smi", "525.85.12-1", True, "525.85.12")
    [k] = [f for f in host_info.parse(Artefact(path="t.txt", text=text, node="n1")).facts if f.kind == "nvidia_driver_version"]
    assert (k.version, k.loaded_module) == ("520.56.06", True)
    # Debian's other driver packages, and Ubuntu's release with its revision; not a package outside the driver
    more = ("ii  libnvidia-ml1:amd64  525.85.12-1  amd64  NVIDIA Management Library (NVML) runtime library\n"
            "ii  libcuda1:amd64       525.85.12-1  amd64  NVIDIA CUDA Driver Library\n"
            "ii  libnvidia-compute-450:amd64      450.51.06-0ubuntu1       amd64        NVIDIA libcompute package\n"
            "ii  nvidia-persistenced  525.85.05-1  amd64  daemon to maintain persistent software state in the NVIDIA driver\n")
    assert [(f.package, f.driver_release) for f in parse(more).facts] == [
        ("libnvidia-ml1", "525.85.12"), ("libcuda1", "525.85.12"), ("libnvidia-compute-450", "450.51.06"),
        ("nvidia-persistenced", None)]

"""gdscheck: GPUDirect Storage's platform check (gdscheck -p), as pasted."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import gdscheck
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/gdscheck"


def check_of(text: str):
    r = gdscheck.parse(Artefact(path="gdscheck.txt", text=text, node="n"))
    assert r.errors == []
    return r.facts


def test_gds_nvidia_fs_8_every_driver_unsupported():
    text = (FIX / "gdsnvidiafs8_all_unsupported.txt").read_text()
    assert gdscheck.detect(text)
    [f] = check_of(text)
    assert (f.evidence.line, f.drivers_listed, f.drivers_supported, f.supported, f.peer_direct, f.use_compat_mode) == (
        5, 11, 0, None, False, True)
    assert f.evidence.text == "NVMe : Unsupported"


def test_gds_nvidia_fs_70_cut_inside_the_list():
    text = (FIX / "gdsnvidiafs70_cut_in_nvme.txt").read_text()
    assert gdscheck.detect(text)
    [f] = check_of(text)
    # "NVMe P2PDMA : Unsupported" read; "NVMe               : Un", the paste's last line, cut: not counted
    assert (f.drivers_listed, f.drivers_supported, f.gds_release, f.nvidia_fs_version) == (1, 0, "1.15.1.6", "2.26")


def test_a_supported_platform():
    # real lines: a public repository's notes of an 8x H100 host (GDS 1.13) and of a Quadro host under the 0.9 beta,
    # found with the code index's exact-string search for "Platform verification succeeded"
    text = (" NVMe P2PDMA        : Unsupported\n NVMe               : Supported\n NVMeOF             : Unsupported\n"
            " GPU index 0 NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled\n"
            " GPU index 1 NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled\n"
            " ==============\n PLATFORM INFO:\n ==============\n IOMMU: disabled\n"
            " Nvidia Driver Info Status: Supported(Nvidia Open Driver Installed)\n Cuda Driver Version Installed:  12080\n"
            " Platform verification succeeded\n")
    [f] = check_of(text)
    assert (f.drivers_listed, f.drivers_supported, f.supported, f.gpus_supporting, f.iommu, f.verification) == (
        3, 1, "NVMe", 2, "disabled", "succeeded")
    beta = ("    GDS release version (beta): 0.9.1.5\n    nvidia_fs version:  2.4 libcufile version: 2.3\n    cuFile CONFIGURATION:\n"
            "    NVMe           : Supported\n    NVMeOF         : Unsupported\n    LUSTRE         : Unsupported\n"
            "    --MOFED peer direct  : enabled\n    properties.use_compat_mode : 0\n"
            "    GPU index 0 Quadro P400 bar:1 bar size (MiB):256 supports GDS\n    IOMMU : disabled\n    Platform verification succeeded\n")
    assert gdscheck.detect(beta)
    [f] = check_of(beta)
    assert (f.gds_release, f.drivers_listed, f.drivers_supported, f.peer_direct, f.use_compat_mode, f.iommu, f.verification) == (
        "0.9.1.5", 3, 1, True, False, "disabled", "succeeded")


def test_other_text_is_not_gdscheck():
    assert not gdscheck.detect("NFS : Unsupported\nsomething else\n")

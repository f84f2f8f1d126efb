"""mst status -v on real samples (NVIDIA MFT documentation, lshca#28): device rows as ib_hca,
module lines read as context, a cut row, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import mst_status
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "mst_status"


def hcas(text, node="n1"):
    res = mst_status.parse(Artefact(path="mst.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.kind, f.hca, f.ca_type) for f in res.facts]


def test_device_rows_are_hcas():
    # NVIDIA MFT documentation, "mst Synopsis - FreeBSD" (v4.22-v4.33), its `mst status -v` example as the stored page
    # has it (blanks single): rows with an RDMA device and no NET or NUMA column
    text = ("# mst status -v\nPCI devices:\n------------\nDEVICE_TYPE MST PCI RDMA NET NUMA\n"
            "ConnectX4LX(rev:0) pci0:2:0:0 02:00.0 mlx5_0\nConnectX4LX(rev:0) pci0:2:0:1 02:00.1 mlx5_1\n"
            "ConnectX4(rev:0) pci0:3:0:0 03:00.0 mlx5_2\n")
    assert mst_status.detect(text)
    res, got = hcas(text)
    assert got == [("ib_hca", "mlx5_0", "ConnectX4LX"), ("ib_hca", "mlx5_1", "ConnectX4LX"), ("ib_hca", "mlx5_2", "ConnectX4")]
    assert res.facts[0].evidence.line == 5 and not res.errors and res.lines_used == 5


def test_modules_unloaded_after_lshca():
    res, got = hcas((A / "lshca28_modules_unloaded.txt").read_text())
    assert got == [] and res.lines_used == 3  # "MST modules:" and its two module lines; mst start's own lines are not ours


def test_row_without_rdma_device_and_near_misses():
    # a function bound to no RDMA driver: mst prints its NET column only
    text = ("DEVICE_TYPE             MST                           PCI       RDMA            NET                                     NUMA\n"
            "ConnectX6DX(rev:0)      /dev/mst/mt4125_pciconf0      3b:00.0                   net-ens1f0np0                           0\n")
    assert hcas(text)[1] == []
    assert not mst_status.detect("MST modules loaded: yes\n")
    assert not mst_status.detect("DEVICE_TYPE=gpu\n")

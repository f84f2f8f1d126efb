"""mst status -v on real pastes (sriov-network-device-plugin#601, lshca#28): device rows as ib_hca,
module lines read as context, a cut row, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import mst_status
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "mst_status"


def hcas(text, node="n1"):
    res = mst_status.parse(Artefact(path="mst.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.kind, f.hca, f.ca_type) for f in res.facts]


def test_connectx7_rows_are_hcas():
    text = (A / "sriov_dp601_cx7_eight.txt").read_text()
    assert mst_status.detect(text)
    res, got = hcas(text)
    assert got[0] == ("ib_hca", "mlx5_10", "ConnectX7") and len(got) == 7
    assert got[-1] == ("ib_hca", "mlx5_2", "ConnectX7")  # the row cut after its NET column still names its RDMA device
    assert res.facts[0].evidence.line == 9 and not res.errors and res.lines_used == 12


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

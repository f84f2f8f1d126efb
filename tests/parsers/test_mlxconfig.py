"""mlxconfig / mstconfig query on real pastes (sriov-network-operator#48):
the columns the header names, settings pending for the next firmware reset, cut rows, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import mlxconfig
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "mlxconfig"


def read(text, node="n1"):
    res = mlxconfig.parse(Artefact(path="mlxconfig.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.device, f.device_type, f.name, f.default, f.current, f.next_boot, f.pending) for f in res.facts]


def test_query_e_in_effect_makes_no_fact():
    text = (A / "sriov48_cx5_query_e.txt").read_text()
    assert mlxconfig.detect(text)
    res, got = read(text)
    assert got == [] and not res.errors and res.lines_used == 6  # Device type, Device, the header, 3 rows


def test_pending_rows_two_devices_and_set_form():
    text = ("Device #1:\n----------\n\nDevice type:    ConnectX7\nDevice:         c2:00.0\n\n"
            "Configurations:                              Default         Current         Next Boot\n"
            "*        SRIOV_EN                            False(0)        False(0)        True(1)\n"
            "*        ADVANCED_PCI_SETTINGS               False(0)        True(1)         True(1)\n"
            "The '*' shows parameters with next value different from default/current value.\n\n"
            "Device #2:\n----------\n\nDevice type:    ConnectX7\nDevice:         0000:C3:00.0\n\n"
            "Configurations:                              Default         Current         Next Boot\n"
            "*        LINK_TYPE_P1                        IB(1)           IB(1)           ETH(2)\n")
    res, got = read(text)
    assert got == [("0000:c2:00.0", "ConnectX7", "SRIOV_EN", "False(0)", "False(0)", "True(1)", True),
                   ("0000:c3:00.0", "ConnectX7", "LINK_TYPE_P1", "IB(1)", "IB(1)", "ETH(2)", True)]
    # a set's confirmation table (Next Boot / New) has no Current column: nothing pending to judge
    _, got = read("Configurations:                                          Next Boot       New\n"
                  "        BOOT_VLAN                                   1                    0                   \n")
    assert got == []


def test_near_misses():
    assert not mlxconfig.detect("Configurations: none\n")
    assert not mlxconfig.detect("PCI devices:\n------------\nDEVICE_TYPE             MST                           PCI\n")

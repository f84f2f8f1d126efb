"""ibportstate / smpquery portinfo on a real paste (tuananh0788/Exadata#2) and ibportstate.c's peer
check: Down ports' stale width and speed, the peer block, the validate warnings, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import ibportstate
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ibportstate"


def links(text, node="n1"):
    res = ibportstate.parse(Artefact(path="ibportstate.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.lid, f.port, f.state, f.physical_state, f.width, f.lane_speed, f.generation, f.rate_gbps, f.below_capability)
                 for f in res.facts]


def test_disabled_switch_ports_width_and_speed_left_unknown():
    text = (A / "exadata2_disabled_ports.txt").read_text()
    assert ibportstate.detect(text)
    res, got = links(text)
    assert got == [(1, 28, "Down", "Disabled", None, None, None, None, False), (1, 29, "Down", "Disabled", None, None, None, None, False)]
    assert res.facts[1].evidence.line == 12 and not res.errors and res.lines_used == 18  # the prompt and "PortInfo:" are not ours


def test_peer_block_and_validate_warnings():
    # ibportstate.c on a switch port: the local block, "Peer PortInfo:", the peer's block, then validate_*'s IBWARN
    text = ("# Port info: Lid 1 port 6\nLinkState:.......................Active\nPhysLinkState:...................LinkUp\n"
            "LinkWidthActive:.................4X\nLinkSpeedActive:.................10.0 Gbps\n"
            "LinkSpeedExtActive:..............25.78125 Gbps\nPeer PortInfo:\n"
            "# Port info: Lid 1 DR path slid 2; dlid 65535; 0,6 port 1\nLinkState:.......................Active\n"
            "PhysLinkState:...................LinkUp\n"
            "ibwarn: [4242] validate_extended_speed: Peer ports operating at active extended speed 2 rather than 4 (53.125 Gbps)\n")
    res, got = links(text)
    assert got == [(1, 6, "Active", "LinkUp", "4X", "25.78125 Gbps", "EDR", 100.0, True)]  # the peer's block makes no fact
    f = res.facts[0]
    assert f.could_be_speed == "53.125 Gbps" and f.could_be_width is None and f.source == "ibportstate"
    assert f.peer_note == "Peer ports operating at active extended speed 2 rather than 4 (53.125 Gbps)"


def test_near_misses():
    assert not ibportstate.detect("# Port counters: Lid 21 port 1 (CapMask: 0x1600)\nSymbolErrorCounter:..............0\n")
    res, got = links("# Port info: Lid 3 port 1\nLid:.............................3\n")  # no LinkState: nothing to judge
    assert got == [] and not res.errors

"""iproute2's ``rdma link`` on real pastes: both line forms, IB vs Ethernet, cut lines, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import rdma_link
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "rdma_link"


def ports(text, node="n1"):
    art = Artefact(path="rdma_link.txt", text=text, node=node, node_from_folder=True)
    res = rdma_link.parse(art)
    return res, [(f.hca, f.port, f.state, f.physical_state, f.link_layer, f.lid, f.sm_lid) for f in res.facts]


def test_sriov635_ib_ports_disabled_vfs_and_cut_last_line():
    text = (A / "sriov635_ib_vfs_disabled.txt").read_text()
    assert rdma_link.detect(text)
    res, got = ports(text)
    assert len(got) == 10 and not res.errors
    assert got[0] == ("mlx5_0", 1, "Active", "LinkUp", "InfiniBand", 3, 1)
    assert got[1] == ("mlx5_1", 1, "Down", "Disabled", "InfiniBand", 65535, 0)
    assert got[4] == ("mlx5_4", 1, "Active", "LinkUp", "Ethernet", None, None)  # no LID: a RoCE port
    assert got[9] == ("mlx5_9", 1, "Down", None, "InfiniBand", 65535, 0)  # cut inside "physical_state"
    assert res.facts[1].evidence.line == 13 and res.facts[1].port_id == "n1/mlx5_1/1"
    assert res.lines_used == 10  # mlxconfig, opensm.conf and ps lines are not this reader's


def test_numbered_form_of_older_iproute2_and_iwarp_nop():
    res, got = ports((A / "oap_i40iw_cx4_numbered.txt").read_text())
    assert got == [("i40iw0", 1, "Down", None, "Ethernet", None, None), ("i40iw1", 1, "Active", None, "Ethernet", None, None),
                   ("mlx5_0", 1, "Down", "Disabled", "Ethernet", None, None), ("mlx5_1", 1, "Active", "LinkUp", "Ethernet", None, None)]


def test_near_misses_and_bad_state():
    # ip link's lines, the command itself, prose: not ports
    assert ports("2: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP\nrdma link add rxe0 type rxe netdev eth0\n")[1] == []
    assert not rdma_link.detect("link/ether 08:00:27:c4:7d:47 brd ff:ff:ff:ff:ff:ff\n")
    res, got = ports("link mlx5_0/1 state WEIRD physical_state LINK_UP netdev eth0\n")
    assert got == [] and res.errors and "WEIRD" in res.errors[0].message
    assert ports("")[1] == []

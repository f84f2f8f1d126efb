"""iproute2's ``rdma link`` on real pastes: both line forms, IB vs Ethernet, cut lines, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import rdma_link
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "rdma_link"


def ports(text, node="n1"):
    art = Artefact(path="rdma_link.txt", text=text, node=node, node_from_folder=True)
    res = rdma_link.parse(art)
    return res, [(f.hca, f.port, f.state, f.physical_state, f.link_layer, f.lid, f.sm_lid) for f in res.facts]


def test_ib_and_ethernet_ports_and_cut_last_line():
    # CONSTRUCTED from iproute2 rdma/link.c's pr_out formats ("link %s/%u ", "subnet_prefix %s " of "%04x:%04x:%04x:%04x",
    # "lid %u ", "sm_lid %u ", "lmc %u ", "state %s ", "physical_state %s ", "netdev %s "; each field followed by its
    # blank): two InfiniBand ports, one without a subnet manager, a RoCE port, and a last line cut inside its word
    text = ("$ rdma link\n"
            "link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 12 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP \n"
            "link mlx5_1/1 subnet_prefix fe80:0000:0000:0000 lid 0 sm_lid 0 lmc 0 state DOWN physical_state DISABLED \n"
            "link mlx5_2/1 state ACTIVE physical_state LINK_UP netdev eth2 \n"
            "link mlx5_3/1 subnet_prefix fe80:0000:0000:0000 lid 0 sm_lid 0 lmc 0 state DOWN physical_s")
    assert rdma_link.detect(text)
    res, got = ports(text)
    assert not res.errors
    assert got == [("mlx5_0", 1, "Active", "LinkUp", "InfiniBand", 12, 1), ("mlx5_1", 1, "Down", "Disabled", "InfiniBand", 0, 0),
                   ("mlx5_2", 1, "Active", "LinkUp", "Ethernet", None, None),  # no LID: a RoCE port
                   ("mlx5_3", 1, "Down", None, "InfiniBand", 0, 0)]  # cut inside "physical_state"
    assert res.facts[1].evidence.line == 3 and res.facts[1].port_id == "n1/mlx5_1/1"
    assert res.lines_used == 4  # the command line is not this reader's


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

"""ibv_devinfo (plain, -v, fragments, none), show_gids, and ibstat fragments in other spellings:
real pastes from public threads."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import ibstat, ibv_devinfo, show_gids
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def parse(mod, rel: str):
    text = (A / rel).read_text()
    assert mod.detect(text)
    return mod.parse(Artefact(path=rel, text=text, node="n1", node_from_folder=True))


def of(res, kind: str):
    return [f for f in res.facts if f.kind == kind]


def test_ibv_devinfo_roce_bond_nccl426() -> None:
    res = parse(ibv_devinfo, "ibv_devinfo/nccl426_roce_bond.txt")
    [hca], [port] = of(res, "ib_hca"), of(res, "ib_port")
    assert (hca.hca, hca.firmware, hca.ports) == ("mlx5_bond_0", "16.28.2006", 1)
    assert (port.state, port.link_layer, port.lid, port.source) == ("Active", "Ethernet", 0, "ibv_devinfo")
    assert port.evidence.text.strip().startswith("state:")
    assert not res.errors


def test_ibv_devinfo_v_fragment_rate_and_gids() -> None:
    res = parse(ibv_devinfo, "ibv_devinfo/rdma_shared_dev_plugin164_v_port_gids.txt")
    [port] = of(res, "ib_port")
    assert (port.hca, port.physical_state, port.width, port.rate_gbps) == ("unnamed1", "LinkUp", "1X", 25.0)
    assert [(g.index, g.ipv4) for g in of(res, "ib_gid")] == [(14, "192.168.6.6"), (15, "192.168.6.6")]


def test_ibv_devinfo_spaces_and_no_devices() -> None:
    [port] = of(parse(ibv_devinfo, "ibv_devinfo/rxe_dev46_softroce.txt"), "ib_port")
    assert (port.hca, port.state, port.link_layer) == ("rxe0", "Active", None)
    assert len(of(parse(ibv_devinfo, "ibv_devinfo/pib2_no_devices_session.txt"), "ib_no_hca")) == 1


def test_show_gids_empty_table_in_pod() -> None:
    res = parse(show_gids, "show_gids/rdma_sriov_dev_plugin30_no_gids_in_pod.txt")
    assert [f.count for f in of(res, "ib_gid_count")] == [0]
    assert res.lines_used == 3


def test_ibstat_summary_with_other_spellings_infra_controller4762() -> None:
    res = parse(ibstat, "ibstat/infra_controller4762_host_summary.txt")
    [port] = of(res, "ib_port")
    assert (port.state, port.physical_state) == ("Active", "LinkUp")
    assert not res.errors  # the trailing 'Physical state: LINK_UP' alone is a fragment, not a malformed port


def test_ibv_devinfo_cut_at_port_line_is_cut_short_not_malformed() -> None:
    """devinfo.c prints a port's `port:` and `state:` lines together: a paste that ends at the port
    line was cut, while a port block that goes on without a state line is still malformed. CONSTRUCTED
    cut: NVIDIA/nccl#426's real ibv_devinfo (nccl426_roce_bond.txt) ended after its port line."""
    full = (A / "ibv_devinfo/nccl426_roce_bond.txt").read_text().splitlines(keepends=True)
    cut = "".join(full[:11])
    assert cut.endswith("\t\tport:\t1\n")
    res = ibv_devinfo.parse(Artefact(path="x.txt", text=cut, node="n1"))
    [hca] = of(res, "ib_hca")
    assert (hca.hca, hca.firmware, of(res, "ib_port")) == ("mlx5_bond_0", "16.28.2006", [])
    assert res.errors == [] and [(h.limit, h.line) for h in res.limits] == [("cut_short", 11)]
    bad = ibv_devinfo.parse(Artefact(path="x.txt", text=cut + full[12], node="n1"))
    assert [e.line for e in bad.errors] == [11] and bad.limits == []


def test_ibv_devinfo_device_ports_heading_ucx2534() -> None:
    # openucx/ucx#2534: a build whose devinfo prints "\tDevice ports:" above each device's ports: read with no fact,
    # each port still its device's (the entity), every line but the prompt and the cut last one read
    res = parse(ibv_devinfo, "ibv_devinfo/ucx2534_device_ports_heading_cut.txt")
    assert [(p.hca, p.port, p.state, p.link_layer) for p in of(res, "ib_port")] == [
        ("mlx5_1", 1, "Active", "InfiniBand"), ("mlx5_3", 1, "Down", "Ethernet"), ("mlx5_0", 1, "Down", None)]
    text = (A / "ibv_devinfo/ucx2534_device_ports_heading_cut.txt").read_text()
    assert res.lines_used == len([ln for ln in text.splitlines() if ln.strip()]) - 2 and not res.errors


def test_ibv_devinfo_device_ports_heading_outside_a_device_is_not_read() -> None:
    # must not: the heading with no hca_id above it is no line of a device's block
    res = ibv_devinfo.parse(Artefact(path="x.txt", text="\tDevice ports:\n", node="n1"))
    assert res.lines_used == 0 and not res.facts

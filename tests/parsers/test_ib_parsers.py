"""The InfiniBand and topology parsers on real (and documented crafted) files."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import (
    ibdev2netdev, ibnetdiscover, ibstat, ibstatus, ibv_devinfo, nccl_topo_xml, node_exporter_ib, nvidia_smi_topo, perfquery, steth_inventory,
)
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def run(mod, rel, node="n1", text=None):
    art = Artefact(path=rel, text=text if text is not None else (A / rel).read_text(), node=node, node_from_folder=True)
    assert mod.detect(art.text[:65536]) or text is not None
    return mod.parse(art)


def views(res, kind):
    return [f.rule_view() for f in res.facts if f.kind == kind]


def test_ibstat_roce_ports_and_evidence():
    res = run(ibstat, "ibstat/l2fwd_nv6_roce_100.txt")
    ports = views(res, "ib_port")
    assert [(p["hca"], p["port"], p["state"], p["physical_state"], p["rate_gbps"], p["link_layer"]) for p in ports] == [
        ("mlx5_0", 1, "Active", "LinkUp", 100.0, "Ethernet"), ("mlx5_1", 1, "Active", "LinkUp", 100.0, "Ethernet")]
    assert ports[0]["port_id"] == "n1/mlx5_0/1"
    # an Active port is judged by its rate: its evidence is the Rate line
    assert res.facts[0].evidence.text.strip() == "Rate: 100" and not res.errors
    assert views(res, "ib_hca")[0]["ca_type"] == "MT4125"


def test_ibstat_dual_port_down_disabled_and_ibpanic():
    ports = views(run(ibstat, "ibstat/rdma_test_roce_active_ib_disabled.txt"), "ib_port")
    assert [(p["hca"], p["port"], p["state"], p["physical_state"]) for p in ports] == [
        ("mlx5_0", 1, "Active", "LinkUp"), ("mlx5_1", 1, "Down", "Disabled")]
    facts = [f for f in run(ibstat, "ibstat/rdma_test_roce_active_ib_disabled.txt").facts if f.kind == "ib_port"]
    assert facts[1].evidence.text.strip().startswith("State: Down")  # a port not Active: its State line
    res = run(ibstat, "ibstat/gpud752_ibpanic.txt")
    assert [p["rate_gbps"] for p in views(res, "ib_port")] == [200.0] and not res.errors


def test_ibstat_empty_output_means_no_hca_not_error():
    res = run(ibstat, "ibstat/empty_session_no_hca.txt")
    assert [f.kind for f in res.facts] == ["ib_no_hca"] and not res.errors
    assert ibstat.parse(Artefact(path="x", text="")).facts == []


def test_ibstatus_states_rates_width():
    ports = views(run(ibstatus, "ibstatus/hdr_active_and_polling.txt"), "ib_port")
    assert [(p["hca"], p["state"], p["physical_state"], p["rate_gbps"], p["width"], p["lid"]) for p in ports] == [
        ("mlx5_0", "Active", "LinkUp", 200.0, "4X", 5), ("mlx5_1", "Down", "Polling", 10.0, "4X", 65535)]


def test_ibstatus_state_line_without_its_header_is_a_cut_block():
    """A port's ``state:`` line with its block's header cut off names no port (session 30, C3): not DOWN read as no
    one's error, nor (above another block's lines) as the state of the block before it: a cut_short limit where the
    port is not up. Lines of the fixture (the script's format: rdma-core scripts/ibstatus port_status())."""
    rows = (A / "ibstatus" / "hdr_active_and_polling.txt").read_text().split("\n")
    down, active = rows[13], rows[4]  # "\tstate:\t\t 1: DOWN", "\tstate:\t\t 4: ACTIVE"
    for text in (down, down.strip(), "\n".join(rows[13:17])):
        res = run(ibstatus, "x", text=text)
        assert ibstatus.detect(text) and not res.facts and not res.errors and res.lines_used == 1
        assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 1)] and "1: DOWN" in res.limits[0].detail
    res = run(ibstatus, "x", text="\n".join(rows[:9] + rows[13:17]))  # mlx5_0's block, a blank line, a cut block
    assert [(p["hca"], p["state"]) for p in views(res, "ib_port")] == [("mlx5_0", "Active")]
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 10)]
    res = run(ibstatus, "x", text=active)  # a port shown up: nothing to hide, no limit
    assert not res.facts and not res.limits and not res.errors
    assert not ibstatus.detect("state: 1: DOWN (the link)") and not ibstatus.detect("\tState: Down")  # ibstat's


def test_ibdev2netdev_column_t_and_prompt():
    rows = views(run(ibdev2netdev, "ibdev2netdev/imbue_h100_column_t.txt"), "ib_netdev")
    assert len(rows) == 12 and rows[1] == {**rows[1], "hca": "mlx5_1", "netdev": "enp27s0f0np0", "netdev_up": True}
    assert views(run(ibdev2netdev, "ibdev2netdev/sriov382_pod.txt"), "ib_netdev")[0]["netdev"] == "net1"


def test_perfquery_extended_and_two_readings():
    x = views(run(perfquery, "perfquery/netdata2620_x.txt"), "ib_port_counters")
    assert x == [{**x[0], "lid": 21, "port": 1, "extended": True, "xmit_data": 13672645927, "symbol_errors": 0}]
    two = views(run(perfquery, "perfquery/two_readings_symbol_errors.txt", node="node07"), "ib_port_counters")
    assert [(r["reading"], r["symbol_errors"], r["link_downed"], r["hca"], r["time_s"]) for r in two] == [
        (0, 14, 1, "mlx5_3", 1709632800.0), (1, 2891, 3, "mlx5_3", 1709636400.0)]


def test_perfquery_bad_value_is_parse_error():
    res = run(perfquery, "x", text="# Port counters: Lid 2 port 1 (CapMask: 0x1600)\nSymbolErrorCounter:..............12x\n")
    assert [(e.line, "not a number" in e.message) for e in res.errors] == [(2, True)]


def test_ibnetdiscover_nodes_and_links():
    res = run(ibnetdiscover, "ibnetdiscover/two_hosts_one_leaf.txt")
    assert [(n["node_type"], n["description"]) for n in views(res, "ib_fabric_node")] == [
        ("Switch", "MF0;leaf01:MQM8700/U1"), ("Ca", "node01 mlx5_0"), ("Ca", "node02 mlx5_0")]
    links = views(res, "ib_fabric_link")
    assert len(links) == 4 and links[0]["remote_description"] == "node01 mlx5_0" and links[0]["speed"] == "HDR"
    assert run(ibnetdiscover, "x", text='[1]\t"H-1"[1] # "a b" lid 1 4xHDR\n').errors


def test_node_exporter_ports_and_counters():
    res = run(node_exporter_ib, "node_exporter_ib/e2e_output_excerpt.prom")
    ports = views(res, "ib_port")
    assert [(p["hca"], p["state"], p["physical_state"], p["rate_gbps"]) for p in ports] == [
        ("roceP2p1s0f0", "Active", "LinkUp", 200.0), ("roceP2p1s0f1", "Down", "Disabled", 40.0)]
    assert views(res, "ib_port_counters")[0]["symbol_errors"] == 0


def test_topo_matrix_with_ansi_header_and_nccl_xml():
    links = views(run(nvidia_smi_topo, "nvidia_smi_topo/h200_nv18_topo_m.txt", node="vm"), "gpu_topo_link")
    assert [(l["a"], l["b"], l["connection"], l["nvlinks"]) for l in links] == [("GPU0", "GPU1", "NV18", 18)]
    res = run(nccl_topo_xml, "nccl_topo_xml/h200_topo_dump.xml", node="vm")
    assert [(g["pci_bus_id"], g["nvlinks"], g["nvswitch"]) for g in views(res, "nccl_topo_gpu")] == [("0000:00:06.0", 18, True), ("0000:00:07.0", 18, True)]
    assert views(res, "nccl_topo_nic")[0]["name"] == "eth0"
    bad = run(nccl_topo_xml, "x", text='<system version="1">\n  <cpu host_hash="0x1">\n  <pci busid="zz">\n  </pci>\n')
    assert bad.errors and bad.errors[-1].line >= 3


def test_nccl_topo_xml_dump_inside_a_ticket_cut_short():
    # NVIDIA/nccl-tests#154: prose and commands, then the dump in a fence, cut inside "<pci busid=..." where the excerpt
    # ends: the dump is read from its <system>, and its cut end is cut_short, not a parse problem
    res = run(nccl_topo_xml, "nccl_topo_xml/nccltests154_ticket_dump_cut.md")
    assert res.errors == []
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 30)]


@pytest.mark.parametrize("text, errors, cut", [
    # a whole dump, a sentence after it: read, no problem (CONSTRUCTED from h200_topo_dump.xml's shape)
    ('see:\n<system version="1">\n  <cpu host_hash="0x1">\n    <pci busid="0000:00:06.0" class="0x030200"/>\n  </cpu>\n</system>\nthanks\n', 0, 0),
    # the dump cut, then the fence its poster closed: cut_short
    ('```\n<system version="1">\n  <cpu host_hash="0x1">\n    <pci busid="0000:00:0\n```\nmore text\n', 0, 1),
    # a malformed line inside a dump that closes: still a parse problem
    ('<system version="1">\n  <cpu host_hash="0x1">\n    <pci busid="0000:00:06.0" <<\n  </cpu>\n</system>\n', 1, 0),
])
def test_nccl_topo_xml_bounds(text, errors, cut):
    res = run(nccl_topo_xml, "x", text=text)
    assert (len(res.errors), sum(h.limit == "cut_short" for h in res.limits)) == (errors, cut)


@pytest.mark.parametrize("text, message", [("kind: steth-inventory\nhosts: {n1: {ports: {mlx5_0: {}}}}\n", "hca/port"), ("kind: other\n", "kind")])
def test_inventory_validation_errors(text, message):
    res = run(steth_inventory, "inv.yaml", text=text)
    assert res.errors and message in res.errors[0].message


def test_inventory_facts():
    res = run(steth_inventory, "steth_inventory/two_nodes.yaml")
    ports = views(res, "inventory_port")
    assert [(p["node"], p["port_id"], p["switch"], p["expected_rate_gbps"]) for p in ports] == [
        ("node01", "node01/mlx5_0/1", "leaf01", 200.0), ("node02", "node02/mlx5_0/1", "leaf01", 200.0)]


def test_ibstat_fragments_banner_elisions_and_unindented_fields():
    # corpus-style paste: a banner, no indentation, a cut marked "...", a redacted CA type
    text = ("Log ibstat:\n=======\nCA 'mlx5_3'\nCA type: ...\nNumber of ports: 1\n...\nPort 1:\n"
            "State: Down\nPhysical state: Polling\nRate: 10\nBase lid: 868\nSM lid: 334\nLink layer: InfiniBand\n")
    res = ibstat.parse(Artefact(path="x", text=text, node="n1"))
    assert ibstat.detect(text) and not res.errors and res.lines_used == len(text.splitlines())
    (port,) = views(res, "ib_port")
    assert (port["hca"], port["state"], port["physical_state"], port["lid"], port["sm_lid"]) == ("mlx5_3", "Down", "Polling", 868, 334)
    assert "ca_type" not in views(res, "ib_hca")[0]  # "..." is unknown, not a CA type


def test_ibstat_port_block_without_ca_line_and_ibpanic():
    text = "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n"
    (port,) = views(ibstat.parse(Artefact(path="x", text=text, node="n1")), "ib_port")
    assert port["hca"] == "unnamed1" and port["rate_gbps"] == 400.0
    (panic,) = views(run(ibstat, "ibstat/gpud752_ibpanic.txt"), "ib_tool_panic")
    assert panic["hca"] == "mlx5_8" and panic["missing"] and panic["function"] == "main"


def test_ibstat_port_block_without_state_lines_is_cut_short_not_error():
    # raids-lab.github.io/crater's RDMA page: the host's ibstat with each port's block down to its Link layer line, the
    # second block ending at the page's cut; neither port's state is shown: a capture limit each, no error, no port fact
    text = ("$ ibstat\nCA 'mlx5_0'\n        Port 1:\n                Link layer: InfiniBand\nCA 'mlx5_1'\n        Port 1:\n")
    res = ibstat.parse(Artefact(path="x", text=text, node="n1"))
    assert ibstat.detect(text) and res.errors == [] and views(res, "ib_port") == []
    assert [h.hca for h in res.facts if h.kind == "ib_hca"] == ["mlx5_0", "mlx5_1"]
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 3), ("cut_short", 6)]
    # near miss: a block with its State line is a port, no limit
    ok = ibstat.parse(Artefact(path="x", text="CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: InfiniBand\n", node="n1"))
    assert [p["state"] for p in views(ok, "ib_port")] == ["Active"] and ok.limits == [] and ok.errors == []


def test_ibstat_in_markdown_inline_code():
    # NVIDIA/nccl#1524: ibstat pasted inside single backticks (`CA 'mlx5_0' ...), cut after State
    res = run(ibstat, "ibstat/nccl1524_markdown_backtick_active.txt")
    (port,) = views(res, "ib_port")
    assert (port["hca"], port["port"], port["state"]) == ("mlx5_0", 1, "Active") and not res.errors
    assert views(res, "ib_hca")[0]["ca_type"] == "MT4115"
    # the backtick that closes the span on the last line is not part of the value
    closed = ibstat.parse(Artefact(path="x", text="`CA 'mlx5_3'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Down\n"
                                   "\t\tPhysical state: Disabled`\n", node="n1"))
    (port,) = views(closed, "ib_port")
    assert (port["state"], port["physical_state"]) == ("Down", "Disabled") and not closed.errors


def test_rdma_stack_stopped_means_no_hca_not_error():
    """ibv_devinfo's perror of ibv_get_device_list (ENOSYS: no kernel verbs interface) and the ibstatus script's
    fatal() 'No devices' (dash's 'exit: Illegal number: -1' after it) each say no HCA is visible: an ib_no_hca
    from each reader, no parse error, every line of theirs read. The perror line is rdma-core devinfo.c's
    perror("Failed to get IB devices list") with strerror(ENOSYS); the ibstatus lines are what rdma-core's
    scripts/ibstatus before 347a1a40 prints under dash with /sys/class/infiniband absent (run here)."""
    enosys = "Failed to get IB devices list: Function not implemented\n"
    no_devices = "Fatal error:  No devices\n/usr/sbin/ibstatus: 21: exit: Illegal number: -1\n"
    for mod, text in ((ibv_devinfo, enosys), (ibstatus, no_devices)):
        res = run(mod, "x", text=text)
        assert [(f.kind, f.source, f.evidence.line) for f in res.facts] == [("ib_no_hca", mod.KIND, 1)] and not res.errors
    assert run(ibstatus, "x", text=no_devices).lines_used == 2
    # another errno is read the same way; the bare words are not the perror line
    assert [f.kind for f in run(ibv_devinfo, "x", text="Failed to get IB devices list: Permission denied\n").facts] == ["ib_no_hca"]
    assert not ibv_devinfo.detect("we failed to get IB devices list\n")

"""``nvidia-smi topo -m`` as pasted into issue threads (spaces for tabs, glued cells, mlx5
columns, NIC rows) and the GPU<->NIC locality it gives the topology graph."""
from pathlib import Path

import pytest

from stethoscope.engine.topo_matrix import local_gpus, local_nics
from stethoscope.engine.topology import build
from stethoscope.facts.parsers import nvidia_smi_topo
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def parse(rel: str, node: str = "n1"):
    text = (A / rel).read_text()
    assert nvidia_smi_topo.detect(text[:65536])
    return nvidia_smi_topo.parse(Artefact(path=rel, text=text, node=node, node_from_folder=True))


def cell(res, a, b):
    return next(f.connection for f in res.facts if f.kind == "gpu_topo_link" and {f.a, f.b} == {a, b})


@pytest.mark.parametrize("rel, devices, rows, pairs", [
    ("nvidia_smi_topo/nccl933_a800_9nic_spaces.txt", 17, 7, 16 + 15 + 14 + 13 + 12 + 11 + 10),
    ("nvidia_smi_topo/nccl1505_dgx_a100_12nic_spaces.txt", 20, 4, 19 + 18 + 17 + 16),
    ("nvidia_smi_topo/deepep60_8gpu_14nic_topo_mp_spaces.txt", 22, 4, 21 + 20 + 19 + 18),
    ("nvidia_smi_topo/vllm8691_h100_glued_cells.txt", 18, 1, 17),
    ("nvidia_smi_topo/ucxpy749_dgx_a100_mlx5_columns_tabs.txt", 20, 9, sum(range(11, 20))),
])
def test_every_pair_of_every_row_once(rel, devices, rows, pairs):
    res = parse(rel)
    assert not res.errors
    assert len([f for f in res.facts if f.kind == "gpu_topo_link"]) == pairs
    assert res.lines_used == 1 + rows


def test_spaces_for_tabs_keep_columns_and_affinity():
    res = parse("nvidia_smi_topo/nccl933_a800_9nic_spaces.txt")
    assert (cell(res, "GPU0", "NIC2"), cell(res, "GPU0", "NIC0"), cell(res, "GPU4", "NIC1"), cell(res, "GPU6", "NIC8")) == ("PIX", "NODE", "PIX", "SYS")
    aff = [(f.gpu, f.cpu_affinity, f.numa_affinity, f.gpu_numa_id) for f in res.facts if f.kind == "gpu_topo_affinity"]
    assert aff[0] == ("GPU0", "0-47,96-143", "0", None) and aff[4] == ("GPU4", "48-95,144-191", "1", None)
    a100 = parse("nvidia_smi_topo/nccl1505_dgx_a100_12nic_spaces.txt")
    assert [(f.gpu, f.numa_affinity, f.gpu_numa_id) for f in a100.facts if f.kind == "gpu_topo_affinity"][2] == ("GPU2", "1", "N/A")


def test_glued_cells_and_header_names_split():
    """vllm#8691: 'NIC7NIC8' in the header and 'SYSSYS' in the row are two columns each."""
    res = parse("nvidia_smi_topo/vllm8691_h100_glued_cells.txt")
    assert (cell(res, "GPU0", "NIC6"), cell(res, "GPU0", "NIC7"), cell(res, "GPU0", "NIC8"), cell(res, "GPU0", "NIC9")) == ("SYS", "SYS", "SYS", "NODE")
    assert [(f.cpu_affinity, f.numa_affinity, f.gpu_numa_id) for f in res.facts if f.kind == "gpu_topo_affinity"] == [("0-47,96-143", "0", "N/A")]


def test_old_mlx5_columns_name_the_rdma_device_and_nic_rows():
    res = parse("nvidia_smi_topo/ucxpy749_dgx_a100_mlx5_columns_tabs.txt")
    link = next(f for f in res.facts if f.kind == "gpu_topo_link" and (f.a, f.b) == ("GPU7", "mlx5_8"))
    assert (link.connection, link.b_rdma_device, link.evidence.line) == ("PXB", "mlx5_8", 9)
    nic = next(f for f in res.facts if f.kind == "gpu_topo_link" and (f.a, f.b) == ("mlx5_0", "mlx5_2"))
    assert (nic.connection, nic.a_rdma_device, nic.evidence.line) == ("SYS", "mlx5_0", 10)
    assert not [f for f in res.facts if f.kind == "gpu_topo_affinity" and f.gpu.startswith("mlx")]


def test_fragment_without_header_reads_nothing_and_fails_nothing():
    res = parse("nvidia_smi_topo/vllm32862_b200_nic_rows_and_legend.txt")
    assert not res.facts and not res.errors
    assert res.lines_used == 8  # the eight NIC Legend lines


def test_short_row_is_a_parse_error_at_its_line():
    text = "        GPU0    GPU1    NIC0    CPU Affinity\nGPU0     X      NV18    PIX     0-31\nGPU1    NV18     X\n"
    res = nvidia_smi_topo.parse(Artefact(path="t.txt", text=text, node="n1"))
    assert [(e.line, "2 cells for 3 devices" in e.message) for e in res.errors] == [(3, True)]


def test_legend_names_the_nic_and_locality_reaches_the_graph():
    text = ("\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
            "GPU0\t X \tNV18\tPIX\tSYS\t0-31\t0\t\tN/A\n"
            "GPU1\tNV18\t X \tSYS\tPXB\t32-63\t1\t\tN/A\n"
            "NIC0\tPIX\tSYS\t X \tSYS\n"
            "NIC1\tSYS\tPXB\tSYS\t X \n\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n")
    res = nvidia_smi_topo.parse(Artefact(path="n1/topo.txt", text=text, node="n1"))
    assert [(f.a, f.b, f.connection, f.b_rdma_device) for f in res.facts if f.kind == "gpu_topo_link"][:2] == [
        ("GPU0", "GPU1", "NV18", None), ("GPU0", "NIC0", "PIX", "mlx5_0")]
    g = build(res.facts)
    assert local_nics(g, "n1", "GPU0") == [("mlx5_0", "PIX")] and local_nics(g, "n1", "GPU1") == [("mlx5_1", "PXB")]
    assert local_gpus(g, "n1", "mlx5_1") == [("GPU1", "PXB")]
    assert g.edges["gpu:n1/GPU0", "hca:n1/mlx5_0"]["source"] == "nvidia-smi topo -m (n1/topo.txt)"
    assert g.nodes["gpu:n1/GPU1"]["numa"] == "1"


def test_real_hgx_locality_and_unnamed_nics():
    g = build(parse("nvidia_smi_topo/ucxpy749_dgx_a100_mlx5_columns_tabs.txt").facts)
    assert [local_nics(g, "n1", f"GPU{i}") for i in (0, 3, 6)] == [
        [("mlx5_0", "PXB"), ("mlx5_1", "PXB")], [("mlx5_2", "PXB"), ("mlx5_3", "PXB")], [("mlx5_8", "PXB"), ("mlx5_9", "PXB")]]
    assert local_gpus(g, "n1", "mlx5_10") == []  # storage NICs share no switch with a GPU
    h800 = build(parse("nvidia_smi_topo/deepep60_8gpu_14nic_topo_mp_spaces.txt").facts)
    assert local_nics(h800, "n1", "GPU3") == [("NIC7 (no NIC Legend)", "PIX")]
    assert h800.nodes["hca:n1/NIC7"]["unnamed"] is True


def test_a_topology_dump_wins_over_the_matrix():
    xml = (A / "nccl_topo_xml" / "hgx_a100_8gpu_pex_switches.xml").read_text()
    from stethoscope.engine.diagnose import parse_artefacts
    facts = parse_artefacts([Artefact("n1/topo.xml", xml, "n1", True)]).facts + parse("nvidia_smi_topo/ucxpy749_dgx_a100_mlx5_columns_tabs.txt").facts
    g = build(facts)
    assert not [e for e in g.edges(data=True) if e[2].get("type") == "pcie_local"]

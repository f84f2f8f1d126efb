"""``nvidia-smi topo -m`` as pasted into issue threads (spaces for tabs, glued cells, mlx5
columns, NIC rows) and the GPU<->NIC locality it gives the topology graph."""
from pathlib import Path

import pytest

from stethoscope.engine.localise.topo_matrix import local_gpus, local_nics
from stethoscope.engine.localise.graph import build
from stethoscope.facts.parsers import nvidia_smi_topo
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def parse(rel: str, node: str = "n1"):
    text = (A / rel).read_text()
    assert nvidia_smi_topo.detect(text[:65536])
    return nvidia_smi_topo.parse(Artefact(path=rel, text=text, node=node, node_from_folder=True))


def cell(res, a, b):
    return next(f.connection for f in res.facts if f.kind == "gpu_topo_link" and {f.a, f.b} == {a, b})


@pytest.mark.parametrize("rel, devices, rows, pairs, legend", [
    ("nvidia_smi_topo/deepep128_8gpu_10nic_spaces.txt", 18, 6, 17 + 16 + 15 + 14 + 13 + 12, 0),
    ("nvidia_smi_topo/nccl_tests78_dgx2_16gpu_mlx5_spaces.txt", 26, 4, 25 + 24 + 23 + 22, 0),
    ("nvidia_smi_topo/deepep60_8gpu_14nic_topo_mp_spaces.txt", 22, 4, 21 + 20 + 19 + 18, 0),
    ("nvidia_smi_topo/crafted_glued_cells_deepep128.txt", 18, 1, 17, 0),
    ("nvidia_smi_topo/lmdeploy1944_2gpu_mlx5_rows_tabs.txt", 10, 10, sum(range(10)), 8),  # "Legend:" and its 7 codes
])
def test_every_pair_of_every_row_once(rel, devices, rows, pairs, legend):
    res = parse(rel)
    assert not res.errors
    assert len([f for f in res.facts if f.kind == "gpu_topo_link"]) == pairs
    assert res.lines_used == 1 + rows + legend


def test_the_connection_legend_under_the_matrix_is_read():
    """nvidia-smi's own legend of the codes ("Legend:", "  X    = Self", "  NV#  = Connection traversing a bonded set of
    # NVLinks", ...) is the reader's to read: every line of a whole capture (the project's 2 x H200), no fact of it.
    Left unread, a matrix of two GPUs or more had an unread run under it (inconclusive: noonghunna/club-3090#1140)."""
    res = parse("nvidia_smi_topo/h200_nv18_topo_m.txt")
    text = (A / "nvidia_smi_topo/h200_nv18_topo_m.txt").read_text()
    assert res.lines_used == len([ln for ln in text.splitlines() if ln.strip()]) == 11
    assert {f.kind for f in res.facts} == {"gpu_topo_link", "gpu_topo_affinity"}
    # the older legend (R3xx: "SOC", "PCIe switch"; tensorflow's contrib/gdr/README.md, 4 x K40m), under its matrix
    old = ("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tPHB\t0-5\nGPU1\tPHB\t X \t0-5\n\nLegend:\n\n  X   = Self\n"
           "  SOC  = Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)\n"
           "  PIX  = Connection traversing a single PCIe switch\n")
    assert nvidia_smi_topo.parse(Artefact(path="t.txt", text=old)).lines_used == 7
    # without a matrix above it the legend is nobody's row (a fragment reads nothing)
    assert nvidia_smi_topo.parse(Artefact(path="l.txt", text=old[old.index("Legend"):])).lines_used == 0


def test_spaces_for_tabs_keep_columns_and_affinity():
    res = parse("nvidia_smi_topo/deepep128_8gpu_10nic_spaces.txt")
    assert (cell(res, "GPU0", "NIC0"), cell(res, "GPU0", "NIC1"), cell(res, "GPU4", "NIC4"), cell(res, "GPU5", "NIC9")) == ("PIX", "SYS", "PIX", "SYS")
    aff = [(f.gpu, f.cpu_affinity, f.numa_affinity, f.gpu_numa_id) for f in res.facts if f.kind == "gpu_topo_affinity"]
    assert aff[0] == ("GPU0", "0-55,112-167", "0", "N/A") and aff[4] == ("GPU4", "56-111,168-223", "1", "N/A")
    old = parse("nvidia_smi_topo/nccl_tests78_dgx2_16gpu_mlx5_spaces.txt")  # CPU Affinity is the only affinity column
    assert [(f.gpu, f.cpu_affinity, f.numa_affinity, f.gpu_numa_id) for f in old.facts if f.kind == "gpu_topo_affinity"][2] == ("GPU2", "0-23,48-71", None, None)
    assert (cell(old, "GPU2", "mlx5_1"), cell(old, "GPU2", "GPU15")) == ("PIX", "NV6")


def test_glued_cells_and_header_names_split():
    """'NIC4NIC5' in the header and 'PIXSYS' in the row are two columns each (CRAFTED from DeepEP#128's lines)."""
    res = parse("nvidia_smi_topo/crafted_glued_cells_deepep128.txt")
    assert (cell(res, "GPU4", "NIC3"), cell(res, "GPU4", "NIC4"), cell(res, "GPU4", "NIC5"), cell(res, "GPU4", "NIC6")) == ("SYS", "PIX", "SYS", "SYS")
    assert [(f.cpu_affinity, f.numa_affinity, f.gpu_numa_id) for f in res.facts if f.kind == "gpu_topo_affinity"] == [("56-111,168-223", "1", "N/A")]


def test_old_mlx5_columns_name_the_rdma_device_and_nic_rows():
    res = parse("nvidia_smi_topo/lmdeploy1944_2gpu_mlx5_rows_tabs.txt")
    link = next(f for f in res.facts if f.kind == "gpu_topo_link" and (f.a, f.b) == ("GPU1", "mlx5_7"))
    assert (link.connection, link.b_rdma_device, link.evidence.line) == ("PXB", "mlx5_7", 4)
    nic = next(f for f in res.facts if f.kind == "gpu_topo_link" and (f.a, f.b) == ("mlx5_0", "mlx5_2"))
    assert (nic.connection, nic.a_rdma_device, nic.evidence.line) == ("NODE", "mlx5_0", 5)
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
    g = build(parse("nvidia_smi_topo/lmdeploy1944_2gpu_mlx5_rows_tabs.txt").facts)
    assert [local_nics(g, "n1", f"GPU{i}") for i in (0, 1)] == [[("mlx5_6", "PXB"), ("mlx5_7", "PXB")]] * 2
    assert local_gpus(g, "n1", "mlx5_0") == []  # NICs that share no switch with a GPU
    dgx2 = build(parse("nvidia_smi_topo/nccl_tests78_dgx2_16gpu_mlx5_spaces.txt").facts)
    assert local_nics(dgx2, "n1", "GPU2") == [("mlx5_1", "PIX"), ("mlx5_0", "PXB")]
    h800 = build(parse("nvidia_smi_topo/deepep60_8gpu_14nic_topo_mp_spaces.txt").facts)
    assert local_nics(h800, "n1", "GPU3") == [("NIC7 (no NIC Legend)", "PIX")]
    assert h800.nodes["hca:n1/NIC7"]["unnamed"] is True


def test_a_topology_dump_wins_over_the_matrix():
    xml = (A / "nccl_topo_xml" / "hgx_a100_8gpu_pex_switches.xml").read_text()
    from stethoscope.engine.pipeline import parse_artefacts
    facts = parse_artefacts([Artefact("n1/topo.xml", xml, "n1", True)]).facts + parse("nvidia_smi_topo/lmdeploy1944_2gpu_mlx5_rows_tabs.txt").facts
    g = build(facts)
    assert not [e for e in g.edges(data=True) if e[2].get("type") == "pcie_local"]

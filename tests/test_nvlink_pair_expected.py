"""Two GPUs of one host joined by NVLink bridges: the expected all_reduce busbw follows from the
NVLinks nvidia-smi topo -m counts between them (knowledge/expected_perf.yaml nvlink_pairs).

The rows are NVIDIA/nccl-tests#194's (2 x H100 PCIe on an NVLink bridge, 1-4 GiB at ~115 GB/s);
that thread showed no topology, so each case says which one it assumes. H100 PCIe: 25 GB/s a
link; NV12 -> 12 x 25 x 0.75 = 225 GB/s expected, below 0.8 of it (180) reported, under 0.5 of
it (112.5) far below (the limits' rules: tests/rules/nccl/busbw_below_baseline*.test.yaml)."""
import pytest

from stethoscope.engine.baselines import perf_compare
from stethoscope.facts import knowledge
from stethoscope.facts.kinds.bench import NcclTestRank, NcclTestRow, NcclTestRun, NcclTestTable
from stethoscope.facts.kinds.gpu import GpuTopoLink
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor

GIB = 1 << 30
EV = Evidence(path="n/nccl-tests.txt", line=1, text="x")


def _facts(busbw: float, gpu: str = "NVIDIA H100 PCIe", topo: tuple[tuple[str, str, str, int | None], ...] = (("GPU0", "GPU1", "NV12", 12),),
           collective: str = "all_reduce", sizes=(GIB, 2 * GIB, 4 * GIB), nranks: int = 2):
    run = NcclTestRun(id="n/nccl-tests.txt:1:run", node="n", evidence=EV, collective=collective, nranks=nranks, hosts=1, rows=len(sizes))
    facts = [run]
    facts += [NcclTestRank(id=f"rank{i}", node="n", evidence=EV, run_id=run.id, rank=i, host="h", device=i,
                           pci_bus_id=f"0000:{i + 1:02x}:00.0", gpu_name=gpu) for i in range(nranks)]
    # busbw = size / time x nccl-tests' factor (all_reduce: 2(n-1)/n, 1 for 2 ranks)
    algbw = busbw / busbw_factor(collective, nranks)
    rows = [NcclTestRow(id=f"row{s}", node="n", evidence=EV, run_id=run.id, collective=collective, size_bytes=s, count=s // 4,
                        dtype="float", oop_time_us=s / algbw / 1e3, oop_algbw=algbw, oop_busbw=busbw) for s in sizes]
    facts += rows + NcclTestTable.of_rows(rows)  # the reader's table of them, which the comparisons read
    facts += [GpuTopoLink(id=f"topo{a}{b}", node="n", evidence=EV, a=a, b=b, connection=c, nvlinks=n) for a, b, c, n in topo]
    return facts


def _bandwidth(facts):
    return [c for c in perf_compare.compare_bundle(facts) if c.band == "bandwidth"]


@pytest.mark.parametrize(("busbw", "below", "critical"), [
    (180.0, False, False),   # 0.8 of 225: at the limit, not below
    (179.9, True, False),    # just under 0.8
    (112.6, True, False),    # just over the critical half
    (112.4, True, True),     # just under it
    (115.93, True, False),   # nccl-tests#194's figure, were the pair NV12
])
def test_nv12_h100_pcie_pair_edges(busbw, below, critical):
    [c] = _bandwidth(_facts(busbw))
    assert c.reference_kind == "expected" and c.reference_busbw == 225.0 and c.run_id == "n/nccl-tests.txt:1:run"
    assert c.below_limit_source == "knowledge/expected_perf.yaml nvlink_pairs.min_ratio"
    assert (c.ratio < c.below_limit, c.ratio < c.critical_limit) == (below, critical)
    assert "joined by NV12" in c.reference


def test_link_count_sets_the_figure():
    """NV6 (half the bridges): 6 x 25 x 0.75 = 112.5; nccl-tests#194's 115.93 is then as expected."""
    [c] = _bandwidth(_facts(115.93, topo=(("GPU0", "GPU1", "NV6", 6),)))
    assert c.reference_busbw == 112.5 and c.ratio >= c.below_limit


def test_a40_pair_rate_and_name_without_vendor_prefix():
    """A40 / RTX A6000: 4 links of 14.0625 GB/s -> 42.19 GB/s; old drivers print 'A40' alone (nccl-tests#74)."""
    [c] = _bandwidth(_facts(40.0, gpu="A40", topo=(("GPU0", "GPU1", "NV4", 4),)))
    assert c.reference_busbw == 42.19


@pytest.mark.parametrize("case", [
    dict(topo=(("GPU0", "GPU1", "PHB", None),)),                                  # a PCIe pair: no figure (CPU-bound)
    dict(topo=(("GPU0", "GPU1", "NV12", 12), ("GPU0", "GPU2", "NODE", None))),    # more GPUs: which pair ran is not known
    dict(topo=()),                                                                # no topology in the bundle
    dict(gpu="NVIDIA GeForce RTX 3090"),                                          # a product the table does not list
    dict(collective="all_gather"),                                                # all_reduce only
    dict(sizes=(64 << 20, 512 << 20)),                                            # below the plateau (1 GiB)
    dict(nranks=4, topo=(("GPU0", "GPU1", "NV12", 12),)),                         # not a pair
])
def test_no_figure_without_a_known_bridged_pair(case):
    assert _bandwidth(_facts(50.0, **case)) == []


def test_every_product_names_a_source_and_pairs_are_all_reduce():
    pairs = knowledge.load("expected_perf.yaml").nvlink_pairs
    assert pairs.collectives == ["all_reduce"] and pairs.min_bytes >= perf_compare.BANDWIDTH_MIN
    assert all(p.source and not any(n.startswith("NVIDIA ") for n in p.gpu_names) for p in pairs.products)


def test_platform_figure_holds_above_its_largest_size():
    """knowledge/expected_perf.yaml h200-sxm-8gpu-nvswitch gives 475 GB/s at 4 GiB (nccl-tests#272);
    a run of 16 GiB alone (harvest 1603's manual run, 480.26 GB/s) is compared with it, not left unjudged."""
    facts = _facts(480.26, gpu="NVIDIA H200", topo=(), sizes=(16 * GIB,), nranks=8)
    [c] = _bandwidth(facts)
    assert (c.reference_busbw, c.size_bytes, c.measured_busbw) == (475.0, 16 * GIB, 480.26) and c.ratio > 1
    [low] = _bandwidth(_facts(300.0, gpu="NVIDIA H200", topo=(), sizes=(8 * GIB, 16 * GIB), nranks=8))
    assert low.ratio < low.below_limit and low.sizes == 2

"""bandwidth_test: CUDA bandwidthTest's sections -> bench_result per row, and host_copy_vs_pcie for a
pinned host copy of one named GPU whose product knowledge/pcie_host_copy.yaml knows."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import bandwidth_test as bt
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/bandwidth_test"


def _parse(name: str):
    text = (FIX / name).read_text()
    assert bt.detect(text)
    return bt.parse(Artefact(path=name, text=text, node="node1"))


def test_gearshifft82_two_runs_mb_per_s():
    res = _parse("gearshifft82_p100_numa_local_and_remote.txt")
    assert res.errors == []
    cmp = [f for f in res.facts if f.kind == "host_copy_vs_pcie"]
    assert [(f.direction, f.gbs, f.ratio, f.evidence.line) for f in cmp] == [
        ("host_to_device", 12.151, 0.771, 11), ("device_to_host", 12.891, 0.818, 16),
        ("host_to_device", 3.783, 0.24, 34), ("device_to_host", 2.539, 0.161, 39)]
    assert {(f.gpu_name, f.generation, f.link_gbs, f.below_ratio) for f in cmp} == {("Tesla P100-PCIE-16GB", 3, 15.76, 0.5)}
    d2d = [f for f in res.facts if f.kind == "bench_result" and f.test == "device_to_device_pinned"]
    assert [f.value for f in d2d] == [443.838]  # the second run's D2D header is cut: no row


def test_helixer22_range_mode_gb_per_s():
    res = _parse("helixer22_rtx2080ti_range_htod.txt")
    [b, c] = res.facts
    assert (b.test, b.entity, b.value, b.size_bytes) == ("host_to_device_pinned", "gpu0", 13.1, 100000000)
    assert (c.gpu_name, c.generation, c.ratio) == ("GeForce RTX 2080 Ti", 3, 0.831)


def test_csv_form_and_pageable_not_judged():
    text = ("[CUDA Bandwidth Test] - Starting...\n Device 0: NVIDIA H100 80GB HBM3\n"
            "bandwidthTest-H2D-Pinned, Bandwidth = 24.9 GB/s, Time = 0.00135 s, Size = 33554432 bytes, NumDevsUsed = 1\n"
            "bandwidthTest-D2H-Paged, Bandwidth = 9.1 GB/s, Time = 0.00369 s, Size = 33554432 bytes, NumDevsUsed = 1\n")
    res = bt.parse(Artefact(path="x", text=text, node="n"))
    [c] = [f for f in res.facts if f.kind == "host_copy_vs_pcie"]
    assert (c.direction, c.generation, c.link_gbs, c.ratio) == ("host_to_device", 5, 63.01, 0.395)
    assert len([f for f in res.facts if f.kind == "bench_result"]) == 2


def test_all_devices_run_is_not_judged():
    text = (" Device 0: NVIDIA A100-SXM4-80GB\n Device 1: NVIDIA A100-SXM4-80GB\n"
            " Host to Device Bandwidth, 2 Device(s)\n PINNED Memory Transfers\n"
            "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t40.1\n")
    res = bt.parse(Artefact(path="x", text=text, node="n"))
    assert [f.kind for f in res.facts] == ["bench_result"] and res.facts[0].entity == "all"


@pytest.mark.parametrize("name, gen", [("Tesla V100-PCIE-32GB", 3), ("NVIDIA A10", 4), ("NVIDIA A100 80GB PCIe", 4),
                                       ("NVIDIA GeForce RTX 4090", 4), ("NVIDIA H100 PCIe", 5), ("NVIDIA GH200 480GB", None),
                                       ("NVIDIA GeForce RTX 5090", 5), ("Some Other GPU", None)])
def test_product_generations(name, gen):
    assert bt.generation_of(name) == gen

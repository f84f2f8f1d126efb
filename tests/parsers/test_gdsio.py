"""gdsio: GPUDirect Storage's benchmark, its result lines as pasted (NVIDIA/gds-nvidia-fs#78, #30; NVIDIA's GDS docs)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import gdsio
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/gdsio"


def runs_of(text: str):
    r = gdsio.parse(Artefact(path="gdsio.txt", text=text, node="n"))
    assert r.errors == []
    return r.facts


def test_gds_nvidia_fs_78_a_gpud_write():
    text = (FIX / "gdsnvidiafs78_gpud_write.txt").read_text()
    assert gdsio.detect(text)
    [f] = runs_of(text)
    assert (f.evidence.line, f.io_type, f.xfer_type, f.path, f.threads, f.io_size_kib) == (2, "WRITE", "GPUD", "gpu_direct", 1, 4)
    assert (f.throughput_gib_s, f.avg_latency_us, f.ops, f.seconds) == (0.013104, 264.007812, 256, 0.074524)


def test_gds_nvidia_fs_30_the_tails_alone():
    text = (FIX / "gdsnvidiafs30_tails_gpud_and_cpu_gpu.txt").read_text()
    assert gdsio.detect(text)
    runs = runs_of(text)
    assert [(f.evidence.line, f.throughput_gib_s, f.avg_latency_us, f.xfer_type, f.path) for f in runs] == [
        (2, 2.308903, 81215.056568, None, None), (5, 6.885191, 27231.054742, None, None), (8, 20.600775, 9095.06197, None, None)]


def test_the_documented_forms_cpu_paths_and_batch_depth():
    # real lines: NVIDIA's "GDS Support for NVMe" Test GDS page (CPUONLY, CPU_GPU) and a public script's comment of a -x 6 run
    text = ("IoType: READ XferType: CPUONLY Threads: 4 DataSetSize: 4069376/4194304(KiB) IOSize: 1024(KiB) Throughput: 2.698050 "
            "GiB/sec, Avg_Latency: 1443.841342 usecs ops: 3974 total_time 1.438394 secs\n"
            "Verifying data\n"
            "IoType: WRITE XferType: CPU_GPU Threads: 4 DataSetSize: 4191232/4194304(KiB) IOSize: 1024(KiB) Throughput: 1.054915 "
            "GiB/sec, Avg_Latency: 3702.944992 usecs ops: 4093 total_time 3.788999 secs\n"
            "IoType: WRITE XferType: GPU_BATCH Threads: 1 IoDepth: 8 DataSetSize: 524206080/8388608(KiB) IOSize: 16384(KiB) "
            "Throughput: 1.664916 GiB/sec, Avg_Latency: 9383.000000 usecs ops: 31995 total_time 300.268538 secs\n")
    assert [(f.io_type, f.xfer_type, f.path, f.threads, f.io_size_kib) for f in runs_of(text)] == [
        ("READ", "CPUONLY", "cpu_only", 4, 1024), ("WRITE", "CPU_GPU", "cpu_bounce", 4, 1024),
        ("WRITE", "GPU_BATCH", "gpu_direct", 1, 16384)]


def test_must_not_read_figures_inside_other_lines():
    # CONSTRUCTED: a sentence quoting the figures, and another tool's throughput line: neither is gdsio's result
    text = ("we saw Throughput: 2.3 GiB/sec, Avg_Latency: 81215.0 usecs on the second node\n"
            "   Average Throughput: 1471.94 MB/s\n")
    assert runs_of(text) == []
    assert not gdsio.detect(text)

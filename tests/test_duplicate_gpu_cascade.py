"""Two ranks of one job on one GPU (NCCL's 'Duplicate GPU detected', rule duplicate_gpu_per_rank) is the launch mapping:
an Exclusive_Process GPU refusing the second rank's context ('CUDA-capable device(s) is/are busy or unavailable', rule
cuda_devices_unavailable) is its cascade, not a busy GPU (issue 11, wild sweep F4); alone, the busy error keeps its reading."""
from __future__ import annotations

from pathlib import Path

import small_bundle

# real lines of two public threads, put in one file (the combination is constructed): rulixiang/afa#26 (NCCL's message
# without its prefix) and karpathy/nanoGPT#116 (DDP on exclusive-process GPUs, the CUDA error PyTorch raised)
DUPLICATE = "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 4f000\n"
BUSY = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"


def _report(tmp_path: Path, text: str, ruleset):
    return small_bundle.diagnose(tmp_path, {"n1/train.log": text}, ruleset)


def test_the_launch_mapping_explains_the_busy_gpu(tmp_path, ruleset):
    rep = _report(tmp_path, BUSY + DUPLICATE, ruleset)
    first, *rest = rep.findings
    assert (first.rule, first.component, first.role) == ("duplicate_gpu_per_rank", "application", "root_cause")
    busy = [f for f in rest if f.rule == "cuda_devices_unavailable"]
    assert busy and busy[0].role == "cascade" and busy[0].explained_by == [first.rank]


def test_the_busy_gpu_alone_keeps_its_reading(tmp_path, ruleset):
    rep = _report(tmp_path, BUSY, ruleset)
    assert (rep.findings[0].rule, rep.findings[0].role) == ("cuda_devices_unavailable", "root_cause")
    assert "another rank on the same GPU" in rep.findings[0].summary and rep.verdict == "faulty"

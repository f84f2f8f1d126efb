"""DeepEP's kernels trap when they time out waiting for a peer (rule deepep_internode_timeout): the process's CUDA
'unspecified launch failure' after it is the trap's, a cascade of the timeout, not a memory fault of the program
(deepseek-ai/DeepEP#274); alone, the same CUDA error keeps its own reading."""
from __future__ import annotations

from pathlib import Path

import small_bundle

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts" / "deepep_log"
EXC = ("terminate called after throwing an instance of 'EPException'\n"
       "  what():  Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:83 'unspecified launch failure'\n")


def test_the_timeout_explains_the_launch_failure(tmp_path, ruleset):
    text = (FIX / "deepep274_internode_nvl_receiver_timeout.log").read_text()
    rep = small_bundle.diagnose(tmp_path, {"n1/test_internode.log": text}, ruleset)
    first, *rest = rep.findings
    assert (first.rule, first.cause, first.component, first.role) == (
        "deepep_internode_timeout", "ep_all_to_all_timeout", "network", "root_cause")
    cuda = [f for f in rest if f.rule == "cuda_error_catalogue"]
    assert cuda and cuda[0].role == "cascade" and cuda[0].explained_by == [first.rank]
    assert rep.verdict == "faulty"


def test_the_launch_failure_alone_keeps_its_reading(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/app.log": EXC}, ruleset)
    assert (rep.findings[0].rule, rep.findings[0].cause, rep.findings[0].role) == (
        "cuda_error_catalogue", "app_gpu_fault", "root_cause")

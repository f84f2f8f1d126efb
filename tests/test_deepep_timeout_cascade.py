"""DeepEP's kernels trap when they time out waiting for a peer (rule deepep_internode_timeout): the process's CUDA
'unspecified launch failure' after it is the trap's, a cascade of the timeout, not a memory fault of the program
(deepseek-ai/DeepEP#274); alone, the same CUDA error keeps its own reading. DeepEP's kernel checks trap the same way
(EP_DEVICE_ASSERT: 'Assertion failed: <file>:<line>, condition: <cond>', then trap; csrc/kernels/exception.cuh): the
launch failure after one is the check's (rule deepep_check_failed). Node-scoped: a check on another node explains none."""
from __future__ import annotations

from pathlib import Path

import pytest
import small_bundle

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts" / "deepep_log"
EXC = ("terminate called after throwing an instance of 'EPException'\n"
       "  what():  Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:83 'unspecified launch failure'\n")


# CONSTRUCTED from EP_DEVICE_ASSERT's format
CHECK = ("Assertion failed: /build/DeepEP/csrc/kernels/internode_ll.cu:315, "
         "condition: num_recv_tokens <= num_max_dispatch_tokens_per_rank\n")


@pytest.mark.parametrize("text,want", [
    ((FIX / "deepep274_internode_nvl_receiver_timeout.log").read_text(),
     ("deepep_internode_timeout", "ep_all_to_all_timeout", "network")),
    (CHECK + EXC, ("deepep_check_failed", "ep_library_check_failed", "application")),
], ids=["timeout_274", "kernel_check"])
def test_the_trap_explains_the_launch_failure(tmp_path, ruleset, text, want):
    rep = small_bundle.diagnose(tmp_path, {"n1/test_internode.log": text}, ruleset)
    first, *rest = rep.findings
    assert (first.rule, first.cause, first.component, first.role) == (*want, "root_cause")
    cuda = [f for f in rest if f.rule == "cuda_error_catalogue"]
    assert cuda and cuda[0].role == "cascade" and cuda[0].explained_by == [first.rank]
    assert rep.verdict == "faulty"


def test_a_check_on_another_node_explains_nothing_here(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/worker.log": CHECK, "n2/worker.log": EXC}, ruleset)
    cuda = [f for f in rep.findings if f.rule == "cuda_error_catalogue"]
    assert cuda and cuda[0].role != "cascade" and cuda[0].cause == "app_gpu_fault"


def test_the_launch_failure_alone_keeps_its_reading(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/app.log": EXC}, ruleset)
    assert (rep.findings[0].rule, rep.findings[0].cause, rep.findings[0].role) == (
        "cuda_error_catalogue", "app_gpu_fault", "root_cause")

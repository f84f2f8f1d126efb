"""ray_gpu_request: Ray's autoscaler reporting a request with GPUs it cannot place."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ray_gpu_request
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_gpu_request"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return ray_gpu_request.parse(art)


def test_scheduler_warning_fractional_gpu():
    text = (FIX / "efficientzero44_gpu_request_pending.log").read_text()
    assert ray_gpu_request.detect(text)
    got = [(f.evidence.line, f.state, f.request, f.gpu) for f in parse_text(text).facts]
    assert got == [(1, "pending", "{'GPU': 0.125, 'CPU': 0.5}", 0.125)]


def test_autoscaler_status_then_warnings():
    # the status block's Demands line is the status's, not the warning: only the two warnings (the second cut) are read
    text = (FIX / "llm_applications58_autoscaler_status_gpu_pending.log").read_text()
    got = [(f.evidence.line, f.state, f.gpu) for f in parse_text(text).facts]
    assert got == [(21, "pending", 1.0), (22, "pending", 1.0)]


def test_infeasible_form():
    # CONSTRUCTED from the format string (autoscaler.py _report_pending_infeasible); no even thread's paste of it with GPUs
    line = ("(autoscaler +1m5s) Error: No available node types can fulfill resource request {'GPU': 8.0, 'CPU': 8.0}. "
            "Add suitable node types to this cluster to resolve this issue.")
    assert [(f.state, f.gpu) for f in parse_text(line).facts] == [("infeasible", 8.0)]


@pytest.mark.parametrize("text", [
    # secretflow/secretflow#192: CPUs and a custom resource, no GPU
    "(scheduler +38s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'alice': 1.0}. "
    "This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster.",
    # the status block's demand line alone, and a request of zero GPUs
    " {'CPU': 1.0, 'GPU': 1.0}: 1+ pending tasks/actors",
    "Warning: The following resource request cannot be scheduled right now: {'GPU': 0.0, 'CPU': 1.0}.",
    "",
])
def test_nothing_else(text):
    assert parse_text(text).facts == []


@pytest.mark.parametrize("name,want", [
    # vLLM's placement groups on Ray: waiting (pending, the bundles' GPUs summed), the cluster's GPUs fewer than the
    # engine's (infeasible), and given up (failed: data parallelism's placement groups; the older words raised)
    ("kuberay3414_vllm_placement_group_wait_head.log", [(2, "pending", 4.0)]),
    ("vllm26028_vllm_placement_group_wait_slurm.log", [(1, "pending", 8.0), (2, "pending", 8.0)]),
    ("gpustack4028_vllm_tp_exceeds_cluster_gpus.log", [(1, "infeasible", 16.0)]),
    ("kuberay4366_vllm_dp_placement_groups_not_enough.log", [(1, "failed", None)]),
    ("vllm2416_required_gpus_exceed_placement_group_raised.log", [(2, "failed", None)]),
])
def test_vllm_placement_groups(name, want):
    text = (FIX / name).read_text()
    assert ray_gpu_request.detect(text)
    assert [(f.evidence.line, f.state, f.gpu) for f in parse_text(text).facts] == want


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED from vLLM's formats (vllm/executor/ray_utils.py _wait_until_pg_ready's ValueError, both wordings; the
    # later vllm/v1/engine/utils.py create_dp_placement_groups ValueError, a logger's format Python prints as a tuple;
    # initialize_ray_cluster's warning since 0.6.5)
    ("ValueError: Cannot provide a placement group of placement_group_specs=[{'node:10.0.0.5': 0.001, 'GPU': 1.0}, "
     "{'GPU': 1.0}] within 1800 seconds. See `ray status` to make sure the cluster has enough resources.",
     [("failed", 2.0, "[{'node:10.0.0.5': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]")]),
    ("(EngineCore_DP0 pid=89) ERROR 04-20 18:08:14 [core.py:1100] ValueError: Cannot provide a placement group requiring "
     "4.0 GPUs (placement_group_specs=[{'node:10.0.0.5': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]) "
     "within 1800 seconds.", [("failed", 4.0, "[{'node:10.0.0.5': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]")]),
    ("ValueError: ('Not enough resources to allocate %s DP ranks on DP master node %s, possible to fit %s DP ranks', 4, "
     "'10.0.0.5', 2)", [("failed", None, "4 data-parallel ranks on the DP master node 10.0.0.5, room for 2")]),
    # CONSTRUCTED from the other releases' words of create_dp_placement_groups (the f-string, the first assert, the span
    # strategy's node count, whole and wrapped after the devices per node, and the cluster without GPUs)
    ("ValueError: Not enough resources to allocate 4 DP ranks on DP master node 10.0.0.5, possible to fit 2 DP ranks.",
     [("failed", None, "4 data-parallel ranks on the DP master node 10.0.0.5, room for 2")]),
    ("AssertionError: Not enough resources to allocate DP ranks on DP master node 10.0.0.5",
     [("failed", None, "the local data-parallel ranks on the DP master node 10.0.0.5")]),
    ("AssertionError: Not enough total available nodes (5) and devices per node (4) to satisfy required world size 8 and "
     "data parallel size 3", [("failed", 24.0, "world size 8 x data-parallel size 3 GPUs, 5 nodes of 4 GPUs in the Ray cluster")]),
    ("AssertionError: Not enough total available nodes (5) and devices per node (4)\nto satisfy required world size 8 and "
     "data parallel size 3", [("failed", None, "5 nodes of 4 GPUs in the Ray cluster")]),
    ("AssertionError: No GPU found in Ray cluster.", [("failed", None, "data-parallel placement groups, no GPU in the Ray cluster")]),
    ("WARNING 12-13 10:00:00 ray_utils.py:285] The number of required GPUs exceeds the total number of available GPUs in "
     "the placement group.", [("infeasible", None, "the engine's world size in GPUs, more than the placement group holds")]),
])
def test_vllm_placement_group_forms(text, want):
    assert [(f.state, f.gpu, f.request) for f in parse_text(text).facts] == want


@pytest.mark.parametrize("text", [
    # CONSTRUCTED: a placement group of TPUs is not a GPU's; another program's "exceeds available GPUs" is not vLLM's
    # placement group (many scripts' own checks print it); the number of required TPUs likewise
    "Waiting for creating a placement group of specs for 10 seconds. specs=[{'TPU': 4.0, 'node:10.0.0.5': 0.001}]. Check `ray status`",
    "ValueError: num_workers (4) exceeds available GPUs (2)",
    "Tensor parallel size (2) exceeds available GPUs (1)",
    "The number of required TPUs exceeds the total number of available TPUs in the placement group.",
    # vLLM's own miscount (too many groups created, vllm-project/vllm#32400) trips these: not a want of GPUs
    "AssertionError: Created 3 DP placement groups, expected 2",
    "AssertionError: Number of placement groups must match data parallel size",
    "AssertionError: No TPU found in Ray cluster.",
])
def test_vllm_nothing_else(text):
    assert parse_text(text).facts == []

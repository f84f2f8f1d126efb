"""Ray's autoscaler reporting a resource request with GPUs that it cannot place. Ray prints these
lines among a job's own output (the driver's, forwarded as ``(autoscaler +2m17s) ...`` or
``(scheduler +2m13s) ...``), so they are looked for anywhere in a file.

Each update the autoscaler (python/ray/autoscaler/_private/autoscaler.py
``_report_pending_infeasible``) sorts the cluster's unmet demands: a request some node type could
hold while every node is taken by actors is *pending*, one that no node type can hold is
*infeasible*, and it reports each once every 30 s::

    "Warning: The following resource request cannot be scheduled right now: {}. This is likely due to all
     cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster."
    "Error: No available node types can fulfill resource request {}. Add suitable node types to this
     cluster to resolve this issue."

Sample content (real lines; the sources beside the patterns)::

    (scheduler +2m13s) Warning: The following resource request cannot be scheduled right now: {'GPU': 0.125, 'CPU': 0.5}. This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster.

vLLM on Ray says the same of the placement groups it asks Ray for, in its own words (each form beside its pattern
below): it waits for a placement group (vllm/executor/ray_utils.py, later vllm/v1/executor/ray_utils.py,
``_wait_until_pg_ready``: *pending*), warns that the cluster holds fewer GPUs than the engine asks for
(``initialize_ray_cluster``: *infeasible*), and gives up, raising, after PG_WAIT_TIMEOUT or where data parallelism's
placement groups do not fit (vllm/v1/engine/utils.py ``CoreEngineActorManager.create_dp_placement_groups``:
*failed*)::

    (EngineCore_DP0 pid=512) WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds available GPUs (8). This may result in Ray placement group allocation failures. ...
    ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available resources: {...}

Facts: ``ray_gpu_request_unplaced`` per such line whose request asks for GPUs: ``state``
(pending / infeasible / failed), ``request`` (as printed) and ``gpu`` (its 'GPU' amount, summed over a placement
group's bundles; None where the line gives no amount: vLLM's data-parallel placement groups, the "number of required
GPUs" warning). A request without GPUs (CPUs, a custom resource) makes no fact: not a GPU's. Empty input, or no such
line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RayGpuRequestUnplaced  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ray_gpu_request"

# (scheduler +2m13s) Warning: The following resource request cannot be scheduled right now: {'GPU': 0.125, 'CPU': 0.5}. This is likely due to all cluster resources being claimed by actors. ...   (YeWR/EfficientZero#44)
# (autoscaler +2m17s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'GPU': 1.0}. This is likely due to ...   (ray-project/llm-applications#58)
# Warning: The following resource request cannot be scheduled right now: {'GPU': 1.0, 'CPU': 1.0}. This is likely due to ...   (OpenRLHF/OpenRLHF#516, the line alone)
_PENDING = re.compile(r"\bThe following resource request cannot be scheduled right now: (?P<req>\{[^{}\n]{0,2000}\})")
# "Error: No available node types can fulfill resource request {}. Add suitable node types ..." (the same function;
#   the form only here: no even-numbered thread's paste of it with a GPU request was found)
_INFEASIBLE = re.compile(r"\bNo available node types can fulfill resource request (?P<req>\{[^{}\n]{0,2000}\})")
_GPU = re.compile(r"'GPU': ?(?P<n>\d{1,6}(?:\.\d{1,9})?)")

# vLLM's placement groups on Ray (every release's wording, vllm/executor/ray_utils.py and vllm/v1/executor/ray_utils.py;
# the specs a list of bundles, the first pinned to the driver's node by 'node:<ip>': 0.001):
#   _wait_until_pg_ready, each wait doubled from 10 s until PG_WAIT_TIMEOUT (1800 s): logger.info("Waiting for creating a
#   placement group of specs for %d seconds. specs=%s. Check `ray status` to see if you have enough resources[, and make
#   sure the IP addresses used by ray cluster are the same as VLLM_HOST_IP environment variable specified in each node if
#   you are running on a multi-node].") (later "Check `ray status` and `ray list nodes` ...")
# Waiting for creating a placement group of specs for 150 seconds. specs=[{'GPU': 1.0, 'node:xxx': 0.001}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources, ...   (ray-project/kuberay#3414)
# 0: (EngineCore_DP0 pid=942408) INFO 10-01 14:35:16 [ray_utils.py:240] Waiting for creating a placement group of specs for 10 seconds. specs=[{'node:172.31.130.15': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, ...]. Check `ray status` and `ray list nodes` ...   (vllm-project/vllm#26028)
_VLLM_PG_WAIT = re.compile(r"\bWaiting for creating a placement group of specs for \d{1,7} seconds\. specs=(?P<req>\[[^\[\]\n]{0,4000}\])")
#   the same on timeout, raised: ValueError("Cannot provide a placement group of {placement_group_specs=} within
#   {PG_WAIT_TIMEOUT} seconds. See `ray status` [and `ray list nodes`] to make sure the cluster has enough resources.");
#   later, with GPUs: "Cannot provide a placement group requiring {total_gpu_required} GPUs
#   (placement_group_specs={placement_group_specs}) within {PG_WAIT_TIMEOUT} seconds.\nTensor parallel size may exceed ..."
# ValueError: Cannot provide a placement group of placement_group_specs=[{'node:10.0.0.5': 0.001, 'GPU': 1.0}, {'GPU': 1.0}] within 1800 seconds. See `ray status` to make sure the cluster has enough resources.   (CONSTRUCTED from the format)
_VLLM_PG_TIMEOUT = re.compile(r"\bCannot provide a placement group (?:of |requiring \d{1,6}(?:\.\d{1,9})? GPUs \()"
                              r"placement_group_specs=(?P<req>\[[^\[\]\n]{0,4000}\])\)? within \d{1,7} seconds")
#   initialize_ray_cluster, where the cluster's GPUs (ray.cluster_resources()) are fewer than the engine's world size:
#   logger.warning("The number of required %ss exceeds the total number of available %ss in the placement group.",
#   device_str, device_str) (0.6.5 on: the engine waits for them; a ValueError of the same words before, raised where
#   the placement group the caller gave held too few), later logger.warning("Tensor parallel size (%d) exceeds available
#   GPUs (%d). This may result in Ray placement group allocation failures. Consider reducing tensor_parallel_size to %d
#   or less, or ensure your Ray cluster has %d GPUs available.", ...)
# ```ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.```   (vllm-project/vllm#2416)
# (EngineCore_DP0 pid=512) WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds available GPUs (8). This may result in Ray placement group allocation failures. Consider reducing tensor_parallel_size to 8 or less, or ensure your Ray cluster has 16 GPUs available.   (gpustack/gpustack#4028)
_VLLM_GPUS_EXCEED = re.compile(r"\bThe number of required GPUs exceeds the total number of available GPUs in the placement group\b"
                               r"|\bTensor parallel size \((?P<want>\d{1,6})\) exceeds available GPUs \((?P<have>\d{1,6})\)\. "
                               r"This may result in Ray placement group allocation failures")
# data parallelism's placement groups (vllm/v1/engine/utils.py CoreEngineActorManager.create_dp_placement_groups, one of
# world_size GPU bundles per DP rank on nodes with room for it), given up where they do not fit; each release's words:
#   assert available_engine_count >= local_engine_count, ("Not enough resources to allocate DP ranks "
#   f"on DP master node {node_ip}")   (the first releases with Ray DP, PR #18366: the DP master node lacks the GPUs of
#   data-parallel-size-local ranks)
#   ValueError("Not enough resources to allocate %s DP ranks on DP master node %s, possible to fit %s DP ranks", ...)
#   (later releases; a logger's format given to ValueError, so Python prints the arguments' tuple)
#   ValueError(f"Not enough resources to allocate {dp_size_local} DP ranks on DP master node {dp_master_ip}, possible to
#   fit {dp_size_available} DP ranks.")   (the releases with VLLM_RAY_DP_PACK_STRATEGY)
#   ValueError(f"Not enough resources to allocate {dp_size} placement groups, only created {len(placement_groups)}
#   placement groups. Available resources: {available_resources}")
#   assert len(n_node_devices) * max_device_per_node >= world_size * dp_size, (f"Not enough total available nodes
#   ({len(n_node_devices)}) and devices per node ({max_device_per_node}) to satisfy required world size {world_size} and
#   data parallel size {dp_size}")   (VLLM_RAY_DP_PACK_STRATEGY=span: a DP rank over several nodes)
#   assert n_node_devices, f"No {device_str} found in Ray cluster."   (no node of the Ray cluster offers a GPU)
# ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available resources: {'42b4896ba1c9868d50df871c7698060b6f43eb10080dc8a8e8868c6b': {'CPU': 8.0, ...   (ray-project/kuberay#4366)
# ValueError: ('Not enough resources to allocate %s DP ranks on DP master node %s, possible to fit %s DP ranks', 4, '10.0.0.5', 2)   (CONSTRUCTED from the call)
# ValueError: Not enough resources to allocate 4 DP ranks on DP master node 10.0.0.5, possible to fit 2 DP ranks.   (CONSTRUCTED from the f-string)
# AssertionError: Not enough resources to allocate DP ranks on DP master node 10.0.0.5   (CONSTRUCTED from the assert)
# AssertionError: Not enough total available nodes (5) and devices per node (4) to satisfy required world size 8 and data parallel size 3
#   (a Slurm launcher's notes in a public repository, quoting its vLLM job: one of six Ray nodes not joined yet; the notes
#   wrap it after "devices per node (4)", which is read too, the sizes then unknown)
# AssertionError: No GPU found in Ray cluster.   (CONSTRUCTED from the assert)
# Not read: "Number of placement groups must match data parallel size" and "Created %d DP placement groups, expected %d"
# (asserts that vLLM's own miscount also trips, creating too many groups: vllm-project/vllm#32400, not a want of GPUs)
_VLLM_DP = re.compile(r"\bNot enough resources to allocate (?P<want>\d{1,6}) placement groups, only created (?P<got>\d{1,6}) placement groups\b"
                      r"|\('Not enough resources to allocate %s DP ranks on DP master node %s, possible to fit %s DP ranks', "
                      r"(?P<ranks>\d{1,6}), '?(?P<node>[^',()\s]{1,100})'?, (?P<fit>\d{1,6})\)"
                      r"|\bNot enough resources to allocate (?:(?P<ranks2>\d{1,6}) )?DP ranks on DP master node (?P<node2>[^\s,]{1,100})"
                      r"(?:, possible to fit (?P<fit2>\d{1,6}) DP ranks)?"
                      r"|\bNot enough total available nodes \((?P<nodes>\d{1,6})\) and devices per node \((?P<per>\d{1,6})\)"
                      r"(?: to satisfy required world size (?P<ws>\d{1,6}) and data parallel size (?P<dp>\d{1,6}))?"
                      r"|\bAssertionError: No GPU found in Ray cluster\.")


#: the line raised it (vLLM before 0.6.5: "ValueError: The number of required GPUs exceeds ...")
_RAISED = re.compile(r"\bValueError: [^\n]*The number of required GPUs exceeds")
_ALL = (_PENDING, _INFEASIBLE, _VLLM_PG_WAIT, _VLLM_PG_TIMEOUT, _VLLM_GPUS_EXCEED, _VLLM_DP)


def detect(head: str) -> bool:
    return any(p.search(head) is not None for p in _ALL)


def _gpus(request: str) -> float | None:
    """The GPUs a printed request asks for: its 'GPU' amounts summed (a placement group's bundles), None if none."""
    amounts = [float(g["n"]) for g in _GPU.finditer(request)]
    return sum(amounts) if amounts else None


def _dp_request(m: re.Match[str]) -> str:
    """What a data-parallel placement failure asked for, in words, from whichever of _VLLM_DP's forms matched."""
    if m["want"]:
        return f"{m['want']} data-parallel placement groups, {m['got']} created"
    if m["ranks"]:
        return f"{m['ranks']} data-parallel ranks on the DP master node {m['node']}, room for {m['fit']}"
    if m["node2"]:
        ranks = f"{m['ranks2']} data-parallel ranks" if m["ranks2"] else "the local data-parallel ranks"
        room = f", room for {m['fit2']}" if m["fit2"] else ""
        return f"{ranks} on the DP master node {m['node2']}{room}"
    if m["nodes"]:  # the line may be cut (wrapped) after the devices per node
        want = f"world size {m['ws']} x data-parallel size {m['dp']} GPUs, " if m["ws"] else ""
        return f"{want}{m['nodes']} nodes of {m['per']} GPUs in the Ray cluster"
    return "data-parallel placement groups, no GPU in the Ray cluster"


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for state, pattern in (("pending", _PENDING), ("infeasible", _INFEASIBLE), ("pending", _VLLM_PG_WAIT),
                           ("failed", _VLLM_PG_TIMEOUT)):
        for n, m in iter_matches(pattern, artefact):
            gpu = _gpus(m["req"])
            if gpu is None or gpu <= 0:  # CPUs or a custom resource only: not a GPU's
                continue
            result.lines_used += 1
            fb.add(RayGpuRequestUnplaced, n, state=state, request=m["req"], gpu=gpu)
    for n, m in iter_matches(_VLLM_GPUS_EXCEED, artefact):
        result.lines_used += 1
        if m["want"] is None:  # the older words give no number; before 0.6.5 vLLM raised them
            raised = _RAISED.search(artefact.lines[n - 1]) is not None
            fb.add(RayGpuRequestUnplaced, n, state="failed" if raised else "infeasible",
                   request="the engine's world size in GPUs, more than the placement group holds", gpu=None)
        else:
            fb.add(RayGpuRequestUnplaced, n, state="infeasible", request=f"tensor parallel size {m['want']}, "
                   f"{m['have']} GPUs in the Ray cluster", gpu=float(m["want"]))
    for n, m in iter_matches(_VLLM_DP, artefact):
        result.lines_used += 1
        fb.add(RayGpuRequestUnplaced, n, state="failed", request=_dp_request(m),
               gpu=float(int(m["ws"]) * int(m["dp"])) if m["ws"] else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"The following resource request cannot be scheduled right now: \{",
              r"No available node types can fulfill resource request \{",
              r"Waiting for creating a placement group of specs for \d+ seconds\. specs=\[",
              r"Cannot provide a placement group (?:of |requiring [\d.]+ GPUs \()placement_group_specs=\[",
              r"The number of required GPUs exceeds the total number of available GPUs in the placement group",
              r"Tensor parallel size \(\d+\) exceeds available GPUs \(\d+\)\. This may result in Ray placement group",
              r"Not enough resources to allocate \d+ placement groups, only created \d+ placement groups",
              r"Not enough resources to allocate %s DP ranks on DP master node %s",
              r"Not enough resources to allocate (?:\d+ )?DP ranks on DP master node \S",
              r"Not enough total available nodes \(\d+\) and devices per node \(\d+\)",
              r"AssertionError: No GPU found in Ray cluster\.")

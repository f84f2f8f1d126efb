"""vLLM's Ray executor refusing to start: Ray's resources show no free GPU on the node it runs on.
vLLM prints it among a job's own output (a Ray Serve replica's traceback, the engine core's
log, a KubeRay pod's log, a title that quotes it), so it is looked for anywhere in a file.

``initialize_ray_cluster`` (vllm/executor/ray_utils.py) asks Ray for the resources still
*available* on the driver's node; with no ``GPU`` among them it raises (samples: its format, then real lines
of the thread named)::

    ValueError: Current node has no GPU available. current_node_resource={...}. vLLM engine cannot start without GPU. Make sure you have at least 1 GPU available in a node current_node_id=... current_ip=...    (the format)
    ValueError: Current node has no GPU available. current_node_resource={'node:10.233.87.77': 1.0, 'object_store_memory': 10762244505.0, 'accele    (ray-project/kuberay#2354, cut)
    `ValueError: Current node has no GPU available. current_node_resource={'memory': 36000000000.0, 'GPU': 0.05....}.`    (the same thread: a Serve actor's num_gpus 0.95 left 0.05)

The GPUs are there (an ``accelerator_type:<name>`` entry says Ray saw one) but held: by the
placement group of the Serve replica or of an earlier run that was killed rather than stopped
(``bundle_group_*`` / ``GPU_group_*`` entries: Ray names a placement group's resources with
``kGroupKeyword`` "_group_", src/ray/common/bundle_spec.h), by the actor that runs vLLM itself (its own
``num_gpus``), or Ray started on the node without GPUs (``--num-gpus`` 0, no GPU in the pod).

Facts: ``vllm_ray_node_no_gpu`` per line: ``ip`` (current_ip, or the resources' ``node:<ip>``),
``ray_gpu`` (the free ``'GPU'`` listed, else None), ``accelerator`` (``accelerator_type``),
``placement_groups`` (bundles listed). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import VllmRayNodeNoGpu  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "vllm_ray_no_gpu"

_LINE = re.compile(r"\bCurrent node has no GPU available\.[^\n]{0,8000}")
# current_node_resource={'node:10.233.87.77': 1.0, 'object_store_memory': 10762244505.0, 'accele    (ray-project/kuberay#2354)
# current_node_resource={'memory': 36000000000.0, 'GPU': 0.05....}                               (the same thread's comment)
_GPU = re.compile(r"'GPU': ?(?P<n>\d+(?:\.\d+)?)")
_ACCEL = re.compile(r"'accelerator_type:(?P<a>[\w.-]{1,40})'")
_NODE = re.compile(r"'node:(?P<ip>[0-9A-Fa-f.:]{3,45})'")
_IP = re.compile(r"\bcurrent_ip='(?P<ip>[0-9A-Fa-f.:]{3,45})'")
_GROUP = re.compile(r"'(?:bundle_group|GPU_group)_")


def detect(head: str) -> bool:
    return "Current node has no GPU available" in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        text = m[0]
        gpu = _GPU.search(text)
        accel = _ACCEL.search(text)
        ip = _IP.search(text) or _NODE.search(text)
        result.lines_used += 1
        fb.add(VllmRayNodeNoGpu, n, node=artefact.node_for(ip["ip"]) if ip else None, ip=ip["ip"] if ip else None,
               ray_gpu=float(gpu["n"]) if gpu else None, accelerator=accel["a"] if accel else None,
               placement_groups=_GROUP.search(text) is not None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Current node has no GPU available",)

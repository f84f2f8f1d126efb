"""torch.distributed's refusal of a collective on tensors of a device type the process group has no backend for, in any
program's output (a traceback's last line, a C++ ``what():``), so it is looked for anywhere in a file.

Since PyTorch 2.0 a ProcessGroup maps each device type to a backend (``init_process_group(backend="nccl")``: cuda only;
``"gloo"``: cpu, and cuda through gloo's CUDA support; ``"cpu:gloo,cuda:nccl"``: both). A collective resolves the backend
of its tensors' device type, and ProcessGroup::getBackend (torch/csrc/distributed/c10d/ProcessGroup.cpp, ProcessGroup.hpp
before 2.2) stops with ``TORCH_CHECK(false, "No backend type associated with device type ", deviceType)`` when there is
none: a CPU tensor broadcast or all-reduced in a group made with NCCL alone (an object list's size tensor, a loss scalar
left on the CPU, an optimizer's CPU ``step``), an XPU or NPU tensor in a gloo group. Sample lines (real)::

    [rank0]: RuntimeError: No backend type associated with device type cpu    (unslothai/unsloth#2584, the reporter's sentence in backticks)

and, CONSTRUCTED from getBackend's format, an out-of-tree backend's device type::

    RuntimeError: No backend type associated with device type npu

Facts: ``torch_pg_device_without_backend`` per line (the device type as c10 prints it, the ``[rankN]:`` rank). Empty
input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchPgDeviceWithoutBackend  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.torch_log_lines import global_rank

KIND = "torch_pg_device_backend"

# RuntimeError: No backend type associated with device type cpu                (unslothai/unsloth#2584)
#   what():  No backend type associated with device type cpu                   (CONSTRUCTED: the same c10::Error from C++)
#   (the exception's class and ": ", C++'s "what():", or the line's start: a raised error, not a sentence that quotes it;
#    the device type one word, c10::DeviceType's lower-case name)
NO_BACKEND = re.compile(
    r"(?:^|\b\w{0,60}(?:Error|Exception): |what\(\): +)No backend type associated with device type (?P<dev>[A-Za-z][\w]{0,30})\b",
    re.M)


def detect(head: str) -> bool:
    return "No backend type associated with device type" in head and NO_BACKEND.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if "No backend type associated with device type" not in artefact.text:
        return result
    lines = artefact.lines
    for n, m in iter_matches(NO_BACKEND, artefact):
        result.lines_used += 1
        fb.add(TorchPgDeviceWithoutBackend, n, device_type=m["dev"].lower(), rank=global_rank(artefact, lines[n - 1], n))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"No backend type associated with device type \w",)

"""``nvidia-smi -L`` (``--list-gpus``): one line per GPU the driver enumerates.

Sample content (real, ``srun -n 2 ... nvidia-smi -L`` on a node of two A100 80GB PCIe, each task
printing the list, NVIDIA/nccl-tests#300; the command line in front is its paste's)::

    ~$ srun -p temp -w node1 -n 2 --tres-per-task=gres/gpu:a100_80gb_pcie:1 --tres-bind=gres/gpu:none nvidia-smi -L
    GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-e7b3bccd-51ac-85a4-b4cd-54a40b14ddb1)
    GPU 1: NVIDIA A100 80GB PCIe (UUID: GPU-989d4723-8384-4046-39ce-b8535b6b92da)

Each task of a job step may print its own list behind a label of its own making (an ``echo`` of
its rank, NVIDIA/deepops#1102, Slurm 21.08 tasks in pyxis/enroot containers, the quotes its
paste's), or srun's ``-l`` label; nvidia-smi says ``No devices found.`` where it enumerates none
(:mod:`nvml_init` reads that line)::

    "PROCID=0: No devices found."
    "PROCID=1: GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-02348a17-a825-300c-0336-48e33d0dadb2)"

Facts: ``gpu_listed`` per GPU line (``index``, ``name``, ``uuid``, ``task``: the task's label
where one is printed; a list printed twice, as by two tasks, gives each line's fact). A listing says which GPUs the driver enumerates and nothing of
their health, so it checks no component (knowledge/coverage.yaml). ``nvidia-smi nvlink`` and
gpu-burn print the same ``GPU N: ...`` line: a GPU line followed by an indented line (``Link 0:
...``) is nvlink's header, and a text gpu-burn's reader recognises is its report; neither is read
here. A GPU in MIG mode lists its MIG devices indented under its line (Azure's AKS MIG guide, nvidia-smi -L in a
pod given the whole A100)::

    GPU 0: NVIDIA A100 40GB PCIe (UUID: GPU-48aeb943-9458-4282-da24-e5f49e0db44b)
      MIG 1g.5gb     Device  0: (UUID: MIG-fb42055e-9e53-5764-9278-438605a3014c)

those rows are the listing's (``mig_devices``: how many). Empty input, or no GPU line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import GpuListed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import gpu_burn
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "nvidia_smi_list"

# A task's label before its output: a rank echoed as NAME=N (or srun -l's bare N), then ": "
# PROCID=1: GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-02348a17-a825-300c-0336-48e33d0dadb2)     (NVIDIA/deepops#1102)
TASK_LABEL = r"(?:(?P<task>(?:[A-Za-z_][A-Za-z0-9_]{0,30}=)?\d{1,6}): )?"
# GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-e7b3bccd-51ac-85a4-b4cd-54a40b14ddb1)
_GPU = re.compile(r"^" + TASK_LABEL + r"GPU (?P<index>\d{1,3}): (?P<name>[^\n]{1,120}?) \(UUID: (?P<uuid>GPU-[0-9a-fA-F-]{36})\)[ \t]*\r?$", re.M)
# the line under it when another tool printed the header:  "\t Link 0: 25 GB/s"
_INDENTED = re.compile(r"^[ \t]+\S")
# nvidia-smi nvlink's link row ("\t Link 0: 25 GB/s", NVIDIA/nccl-tests#228's nvidia-smi nvlink -s): a GPU line
# with one line of another program between it and this row is still that block's header (a stray stderr line)
_LINK_ROW = re.compile(r"^[ \t]+Link \d{1,3}: ")
#   MIG 1g.5gb     Device  0: (UUID: MIG-fb42055e-9e53-5764-9278-438605a3014c)     (a MIG device under its GPU, the
#   docstring's listing; older drivers print "MIG 1g.5gb Device 0: (UUID: MIG-GPU-<uuid>/<gi>/<ci>)")
_MIG = re.compile(r"^[ \t]*MIG \S{1,40} +Device +\d{1,3}: \(UUID: MIG-")


def _own(artefact: Artefact):
    if gpu_burn.detect(artefact.text[:65536]):
        return  # gpu-burn's report starts with the same list: its reader reads it
    lines = artefact.lines
    for n, m in iter_matches(_GPU, artefact):
        if n < len(lines) and _INDENTED.match(lines[n]) and not _MIG.match(lines[n]):
            continue  # a header of nvidia-smi nvlink's or gpu-burn's block
        if n + 1 < len(lines) and _LINK_ROW.match(lines[n + 1]) and not _GPU.match(lines[n]):
            continue  # nvlink's header, another program's line after it (read as that line, not as a list)
        yield n, m


def detect(head: str) -> bool:
    if "(UUID: GPU-" not in head:
        return False
    return any(True for _ in _own(Artefact(path="", text=head, node="")))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, m in _own(artefact):
        mig = 0
        while n + mig < len(lines) and _MIG.match(lines[n + mig]):
            mig += 1
        b.add(GpuListed, n, index=int(m["index"]), name=m["name"].strip(), uuid=m["uuid"], task=m["task"], mig_devices=mig)
        result.lines_used += 1 + mig
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_GPU,)

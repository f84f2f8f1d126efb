"""The log of GPUDirect-TCPXO's receive-datapath manager (RxDM: ``fastrak_gpumem_manager``, the
``tcpxo-daemon`` sidecar of GKE's A3 Mega pods and the RxDM container of Slurm's A3 Mega prolog,
google/nccl-plugin-gpudirect-tcpxo buffer_mgmt_daemon/). Its errors say why NCCL's FasTrak plugin
then finds no RxDM to talk to.

The daemon logs through absl/glog: ``<severity><MMDD> <hh:mm:ss.uuuuuu> <thread> <file>:<line>] <text>``,
as kubectl logs prints it, or pasted without the time and thread. Real sample line (GoogleCloudPlatform/
container-engine-accelerators#580, cut where the stored copy of the thread ends)::

    E0312 fastrak_gpumem_manager.cc:200] Number of GPUs detected in the

and the daemon's own format strings (buffer_mgmt_daemon/fastrak_gpumem_manager.cc at v1.0.17),
filled in::

    E0312 10:11:12.123456       1 fastrak_gpumem_manager.cc:269] Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8.
    E0312 10:11:12.123456       1 fastrak_gpumem_manager.cc:262] CUDA initialization failed

Facts: ``rxdm_error`` per E or F line of the daemon's own source files (file, message; for the
GPU-count check, the GPUs found in the PCI tree and by CUDA). Its I and W lines are read, give
nothing and check nothing: a startup log cut before its error is no healthy RxDM.

The GPU-count check is also read where a ticket or a pull request quotes its text without the
daemon's prefix (in inline code, in prose): the sentence is the daemon's own, so wherever it stands
RxDM refused to start on that node. Real sample line (NVIDIA/aicr#1662, the pull request's
description)::

    - RxDM (`fastrak_gpumem_manager`) then logs `Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8`, exits 1, and never binds `rxdm_uds_nic_mapping`.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import RxdmError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gcp_rxdm_log"

# the daemon's source files (buffer_mgmt_daemon/*.cc of google/nccl-plugin-gpudirect-tcpxo, v1.0.x)
_FILES = (r"(?:fastrak_\w+|a3_gpu_rxq_configurator|buffer_mgr_client|unix_socket_(?:client|connection|server)|uds_helpers"
          r"|gpu_ip_server|pci_utils|status_utils|main_cloud)\.cc")
# E0312 fastrak_gpumem_manager.cc:200] Number of GPUs detected in the            (container-engine-accelerators#580)
# I0312 10:11:12.123456       1 fastrak_gpumem_manager.cc:255] Initializing CUDA   (absl's full prefix, filled in)
_LINE = re.compile(
    r"^[ \t]*(?P<sev>[IWEF])\d{4}(?: \d\d:\d\d:\d\d(?:\.\d+)?)?(?: +\d+)? (?P<file>" + _FILES + r"):(?P<line>\d+)\] ?"
    r"(?P<msg>(?:[^\n]*[^ \t\r\n])?)[ \t\r]*$", re.M)
# Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8.
_GPU_COUNT = re.compile(r"Number of GPUs detected in the PCI tree (?P<pci>\d+) is not equal to the actual number of GPUs "
                        r"reported by CUDA (?P<cuda>\d+)")


def detect(text: str) -> bool:
    return (".cc:" in text and _LINE.search(text) is not None) or _GPU_COUNT.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    logged: list[tuple[int, int]] = []
    for m in _LINE.finditer(artefact.text):
        logged.append(m.span())
        result.lines_used += 1
        if m["sev"] not in "EF":
            continue
        g = _GPU_COUNT.search(m["msg"])
        b.add(RxdmError, artefact.line_of(m.start()), source_file=m["file"], message=m["msg"], fatal=m["sev"] == "F",
              gpus_pci=int(g["pci"]) if g else None, gpus_cuda=int(g["cuda"]) if g else None)
    # the GPU-count check quoted without the daemon's prefix (NVIDIA/aicr#1662, in the docstring)
    for g in _GPU_COUNT.finditer(artefact.text):
        if any(start <= g.start() < end for start, end in logged):
            continue
        result.lines_used += 1
        b.add(RxdmError, artefact.line_of(g.start()), source_file="fastrak_gpumem_manager.cc", message=g[0],
              gpus_pci=int(g["pci"]), gpus_cuda=int(g["cuda"]))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_LINE, _GPU_COUNT)

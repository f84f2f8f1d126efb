"""OpenMM's refusal of a GPU index its process does not have (OpenMM: molecular dynamics, under MELD, openmmtools,
YANK, BioSimSpace and other tools that hand OpenMM a GPU per replica or per job), in any program's output.

OpenMM's CUDA platform compares the ``DeviceIndex`` it was given with the number of GPUs the process can see and
throws (platforms/cuda/src/CudaContext.cpp, as openmm/openmm#2190 quotes it)::

    CHECK_RESULT(cuDeviceGetCount(&numDevices));
    if (deviceIndex < -1 || deviceIndex >= numDevices)
        throw OpenMMException("Illegal value for DeviceIndex: "+intToString(deviceIndex));

so the process sees fewer GPUs than the index assumes: the condition CUDA itself reports as 101 cudaErrorInvalidDevice
('invalid device ordinal'). Under a scheduler that hides the GPUs a job was not given (Slurm's CUDA_VISIBLE_DEVICES)
a physical index handed on as it is, or an index from a global rank, is out of range. Sample line, real (a Slurm site with
cons_tres, CUDA_VISIBLE_DEVICES=0,1,2,3,4,6 and MELD passing the physical indices on; maccallumlab/meld#84)::

    simtk.openmm.OpenMMException: Illegal value for DeviceIndex: 6

Facts: ``cuda_error`` (form ``openmm_device_index``) with the catalogue's cudaErrorInvalidDevice, whose judgement (the
GPU binding, or an index chosen from a global rank) the CUDA error catalogue gives, and ``device`` the index asked for.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "openmm_device_index"

# simtk.openmm.OpenMMException: Illegal value for DeviceIndex: 6                         (maccallumlab/meld#84)
ILLEGAL = re.compile(r"\bIllegal value for DeviceIndex: (?P<dev>-?\d{1,4})\b")
_MARKER = ("Illegal value for DeviceIndex: ",)
_ENTRY = "cudaErrorInvalidDevice"


def detect(text: str) -> bool:
    return _MARKER[0] in text and ILLEGAL.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    e = catalogue.by_name(_ENTRY)
    used = 0
    for n, line in iter_lines_with(_MARKER, artefact):
        if (m := ILLEGAL.search(line)) is None or e is None:
            continue
        used += 1
        dev = int(m["dev"])
        fb.add(CudaError, n, error_name=e.name, catalogue_name=e.name, runtime_name=e.name, code=e.code,
               message=line.strip()[:300], form="openmm_device_index", device=dev if dev >= 0 else None)
    result.lines_used = used
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Illegal value for DeviceIndex: -?\d",)

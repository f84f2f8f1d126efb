"""openmm_device_index: OpenMM refusing a DeviceIndex beyond the GPUs its process sees."""
from __future__ import annotations

from stethoscope.facts.parsers import openmm_device_index as o
from stethoscope.facts.parsers.base import Artefact

# maccallumlab/meld#84: MELD handing OpenMM the physical index Slurm's CUDA_VISIBLE_DEVICES=0,1,2,3,4,6 named
MELD_84 = ('  `File "/apps/cuda/11.0.207/gcc/9.3.0/openmpi/4.0.4/openmm/7.5.0/lib64/python3.8/site-packages/simtk/openmm/'
           'openmm.py", line 16117, in __init__\n    this = _openmm.new_Context(*args)\n'
           'simtk.openmm.OpenMMException: Illegal value for DeviceIndex: 6\n`\n')


def test_meld_84_device_index_beyond_visible_gpus():
    assert o.detect(MELD_84)
    r = o.parse(Artefact(path="t.log", text=MELD_84, node="n1"))
    assert [(x.code, x.catalogue_name, x.device, x.form, x.evidence.line) for x in r.facts] == [
        (101, "cudaErrorInvalidDevice", 6, "openmm_device_index", 3)]
    assert r.lines_used == 1


def test_other_device_index_words_not_read():
    # CONSTRUCTED near miss: OpenMM's property named without its refusal
    text = "platformProperties = {'DeviceIndex': '6', 'Precision': 'mixed'}\n"
    assert not o.detect(text)
    assert o.parse(Artefact(path="t.log", text=text, node="n1")).facts == []

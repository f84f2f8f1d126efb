"""An nvidia-smi -q -d TEMPERATURE section pasted without the banner or the GPU header (issue 11):
recognised from its key lines and read as gpu_temperature of an anonymous GPU."""
from pathlib import Path

from stethoscope.facts.parsers import nvidia_smi_q
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def test_temperature_section_alone():
    whole = (FIX / "nvidia_smi_q/nvidia-smi-q-TEMPERATURE.txt").read_text().split("\n")
    start = next(i for i, ln in enumerate(whole) if ln.strip() == "Temperature")
    text = "\n".join(whole[start:start + 9]) + "\n"
    assert "NVSMI LOG" not in text and nvidia_smi_q.detect(text)
    r = nvidia_smi_q.parse(Artefact(path="t.txt", text=text, node="n1"))
    (t,) = [f for f in r.facts if f.kind == "gpu_temperature"]
    assert (t.gpu_temp_c, t.tlimit_c, t.slowdown_tlimit_c, t.memory_temp_c) == (32, 55, -2, 33) and r.errors == []


def test_a_temperature_word_alone_is_not_nvidia_smi():
    assert not nvidia_smi_q.detect("CPU temperature: 71 C\nGPU temperature is fine\n")

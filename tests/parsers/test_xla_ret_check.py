"""xla_ret_check: XLA's failed RET_CHECKs (xla/status_macros.cc) as JAX/TensorFlow print them."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import xla_ret_check
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/xla_ret_check"
REAL = (FIX / "jax11882_gpu_device_ordinal.log").read_text()


def parse_text(text: str):
    return xla_ret_check.parse(Artefact(path="x.log", text=text, node="n1"))


def test_real_jax11882_line():
    assert xla_ret_check.detect(REAL)
    r = parse_text(REAL)
    assert [(f.source, f.source_line, f.condition, f.repeats, f.evidence.line) for f in r.facts] == [
        ("xla/pjrt/gpu_device.cc", 345, "local_device->device_ordinal() == local_topology.devices_size()", 1, 1)]
    assert r.errors == [] and r.lines_used == 1


def test_every_replica_repeating_it_is_one_fact():
    r = parse_text(REAL * 3)
    assert [(f.repeats, f.evidence.line) for f in r.facts] == [(3, 1)]


def test_jaxlib_external_xla_path_and_bare_path():
    # jaxlib 0.4.x vendors XLA as external/xla/xla/...; the condition's own "(...)" stays in it
    line = REAL.replace("external/org_tensorflow/tensorflow/compiler/xla/", "external/xla/xla/")
    assert parse_text(line).facts[0].source == "xla/pjrt/gpu_device.cc"
    line = REAL.replace("external/org_tensorflow/tensorflow/compiler/xla/pjrt/", "xla/pjrt/")
    assert parse_text(line).facts[0].source == "xla/pjrt/gpu_device.cc"


def test_a_check_outside_xla_is_not_read():
    # MediaPipe's ret_check.cc builds the same words; its source is no XLA file
    line = REAL.replace("external/org_tensorflow/tensorflow/compiler/xla/pjrt/gpu_device.cc", "mediapipe/framework/calculator_graph.cc")
    assert not xla_ret_check.detect(line)
    assert parse_text(line).facts == []


def test_empty_input():
    assert parse_text("").facts == []

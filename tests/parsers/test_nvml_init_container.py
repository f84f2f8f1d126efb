"""nvml_init: an NVML failure printed inside a container, known by the pod that keeps restarting."""
from __future__ import annotations

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py

from stethoscope.facts.parsers import nvml_init


def test_nvml_failure_beside_a_crash_looping_pod_is_a_containers():
    # NVIDIA/gpu-monitoring-tools#96: the report names the pod's CrashLoopBackOff, then the bare NVML failure
    (f,) = _parse(nvml_init, "nvml_init/gpu_monitoring_tools96_pod_crashloop_sentence.txt").facts
    assert (f.kind, f.reason, f.container) == ("nvml_init_failure", "other", True)
    # kubectl's listing form (gpu-monitoring-tools#120's line) beside the same failure
    text = "dcgm-exporter-8k4s5     0/1     CrashLoopBackOff   27         117m\nError: Failed to initialize NVML\n"
    assert [g.container for g in _parse(nvml_init, text=text).facts] == [True]
    # without a pod's state or the exporter's start line the failure is not placed in a container
    assert [g.container for g in _parse(nvml_init, text="Error: Failed to initialize NVML\n").facts] == [False]

"""kubectl describe pod / get pods (real samples: fixtures/artefacts/kubectl_pods/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kubectl_pods
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def _parse(mod, name: str):
    text = (FIX / name).read_text()
    assert mod.detect(text)
    res = mod.parse(Artefact(path=name, text=text, node="n1"))
    assert not res.errors
    return res


@pytest.mark.parametrize("name, want", [
    ("kubectl_pods/k8s98157_describe_last_state_oomkilled.txt",
     [("k8s_container_terminated", 24, {"pod": "jumpserver-reader-589945c95c-d2nzg", "container": "jumpserver-reader",
                                        "which": "Last State", "reason": "OOMKilled", "exit_code": 137, "oom_killed": True,
                                        "k8s_node": "research.center.master.069"})]),
    # the Completed init container gives nothing; app2's OOMKilled (its exit code as pasted); the PodInitializing row nothing
    ("kubectl_pods/toolkit30_init_container_oomkilled.txt",
     [("k8s_container_terminated", 19, {"container": "app2", "which": "State", "reason": "OOMKilled", "exit_code": 0,
                                        "oom_killed": True})]),
    ("kubectl_pods/kubeflow794_pending_insufficient_gpu.txt",
     [("k8s_pod_event", 8, {"reason": "FailedScheduling", "source": "default-scheduler", "count": 57,
                            "insufficient": "nvidia.com/gpu", "insufficient_gpu": True})]),
    ("kubectl_pods/geti1876_failed_scheduling_preemption.txt",
     [("k8s_pod_event", 1, {"count": 351, "insufficient": "nvidia.com/gpu", "insufficient_gpu": True})]),
    ("kubectl_pods/gpumanager24_failed_scheduling_quota.txt",
     [("k8s_pod_event", 1, {"reason": "FailedScheduling", "insufficient": "", "insufficient_gpu": False})]),
    # eleven Running rows read without a fact, "12 (4m24s ago)" restarts
    ("kubectl_pods/gpuoperator624_get_pods_crashloop.txt",
     [("k8s_container_waiting", 6, {"pod": "gpu-operator-657c5b798d-xgvgc", "reason": "CrashLoopBackOff"})]),
    ("kubectl_pods/gpumanager182_pod_unexpected_admission.txt",
     [("k8s_pod_status", 1, {"status": "UnexpectedAdmissionError"})]),
])
def test_real_samples(name, want):
    got = _parse(kubectl_pods, name).facts
    assert [(f.kind, f.evidence.line) for f in got] == [(k, line) for k, line, _ in want]
    for f, (_, _, fields) in zip(got, want):
        assert {k: getattr(f, k) for k in fields} == fields


def test_get_pods_statuses_read_as_what_they_are():
    text = ("NAMESPACE   NAME      READY   STATUS                     RESTARTS      AGE\n"
            "default     train-0   0/1     OOMKilled                  3 (1m ago)    9m\n"
            "default     train-1   0/1     Init:OOMKilled             0             9m\n"
            "default     train-2   0/1     ExitCode:139               1             9m\n"
            "default     train-3   0/1     UnexpectedAdmissionError   0             4s\n"
            "default     train-4   0/1     Init:0/1                   0             4s\n"
            "default     train-5   1/1     Running                    0             4s\n")
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.pod, getattr(f, "reason", None) or f.status) for f in got] == [
        ("k8s_container_terminated", "train-0", "OOMKilled"), ("k8s_container_terminated", "train-1", "OOMKilled"),
        ("k8s_container_terminated", "train-2", "ExitCode:139"), ("k8s_pod_status", "train-3", "UnexpectedAdmissionError")]
    assert [f.oom_killed for f in got[:3]] == [True, True, False] and got[2].exit_code == 139


def test_not_kubectl():
    assert not kubectl_pods.detect("Warning: something went wrong\nState: fine\n")
    assert not kubectl_pods.detect("")


"""kubectl_daemonsets: kubectl get daemonsets tables of the node GPU stack."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import kubectl_daemonsets as p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/kubectl_daemonsets"


def parse_text(text: str):
    art = Artefact(path="t.txt", text=text, node="node1")
    art.normalise()
    return p.parse(art)


def rows(text: str):
    return [(f.daemonset, f.namespace, f.role, f.desired, f.ready, f.not_ready) for f in parse_text(text).facts]


def test_all_namespaces_indented_as_pasted():
    text = (FIX / "gpuop448_all_namespaces_operands_not_ready.txt").read_text()
    assert p.detect(text)
    assert rows(text) == [
        ("gpu-feature-discovery", "gpu-operator", "gpu-feature-discovery", 1, 0, 1),
        ("nvidia-container-toolkit-daemonset", "gpu-operator", "container-toolkit", 1, 0, 1),
        ("nvidia-dcgm-exporter", "gpu-operator", "dcgm-exporter", 1, 0, 1),
    ]  # calico and NFD rows are read, no fact


def test_namespace_column_absent_desired_zero():
    text = (FIX / "gpuop590_dcgm_exporter_not_ready.txt").read_text()
    got = rows(text)
    assert ("nvidia-dcgm-exporter", None, "dcgm-exporter", 3, 0, 3) in got
    assert ("nvidia-driver-daemonset", None, "driver", 0, 0, 0) in got
    assert ("nvidia-mig-manager", None, "mig-manager", 0, 0, 0) in got
    assert [f.evidence.line for f in parse_text(text).facts][0] == 2


def test_get_all_prefix_wide_columns_and_chart_names():
    text = ("NAME                                              DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE   CONTAINERS   IMAGES   SELECTOR\n"
            "daemonset.apps/nvidia-device-plugin-daemonset    3         3         0       3            0           nvidia.com/gpu.deploy.device-plugin=true   2s    nvidia-device-plugin   nvcr.io/nvidia/k8s-device-plugin:v0.14.0-ubi8   app=nvidia-device-plugin-daemonset\n"
            "nvdp-nvidia-device-plugin                         0         0         0       0            0           <none>          5m\n"
            "nvdp-nvidia-device-plugin-gpu-feature-discovery   2         2         2       2            2           <none>          5m\n"
            "dcgm-exporter-1725446363                          4         4         3       4            3           <none>          1d\n")
    assert rows(text) == [
        ("nvidia-device-plugin-daemonset", None, "device-plugin", 3, 0, 3),
        ("nvdp-nvidia-device-plugin", None, "device-plugin", 0, 0, 0),
        ("nvdp-nvidia-device-plugin-gpu-feature-discovery", None, "gpu-feature-discovery", 2, 2, 0),
        ("dcgm-exporter-1725446363", None, "dcgm-exporter", 4, 3, 1),
    ]


def test_other_tables_and_empty_give_nothing():
    pods = ("NAME                            READY   STATUS             RESTARTS   AGE\n"
            "gpu-operator-657c5b798d-xgvgc   0/1     CrashLoopBackOff   12         67m\n")
    assert not p.detect(pods)
    assert parse_text(pods).facts == []
    assert parse_text("").facts == []
    # a row without the header above it is not read
    assert rows("nvidia-dcgm-exporter   3   3   0   3   0   <none>   44h\n") == []

"""A node's capacity and allocatable (real samples: fixtures/artefacts/k8s_node_resources/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import k8s_node_resources
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "k8s_node_resources"


def _facts(text: str):
    assert k8s_node_resources.detect(text)
    return k8s_node_resources.parse(Artefact(path="node.txt", text=text, node="n1")).facts


def test_k8sdp58_allocatable_zero_of_sixteen():
    (f,) = _facts((FIX / "k8sdp58_node_status_allocatable_zero.txt").read_text())
    assert (f.resource, f.capacity, f.allocatable, f.unallocatable, f.gpu, f.evidence.line) == ("nvidia.com/gpu", 16, 0, 16, True, 13)


def test_k8sdp1228_elided_blocks_capacity_zero():
    (f,) = _facts((FIX / "k8sdp1228_node_status_capacity_zero.txt").read_text())
    assert (f.capacity, f.allocatable, f.unallocatable) == (0, 0, 0)


def test_describe_node_blocks_and_mig_resources():
    text = ("Capacity:\n  cpu:                    64\n  nvidia.com/gpu:         8\n  nvidia.com/mig-1g.5gb:  7\n"
            "Allocatable:\n  cpu:                    64\n  nvidia.com/gpu:         6\n  nvidia.com/mig-1g.5gb:  7\n"
            "System Info:\n  Machine ID:  x\n")
    got = _facts(text)
    assert [(f.resource, f.unallocatable, f.gpu) for f in got] == [("nvidia.com/gpu", 2, True), ("nvidia.com/mig-1g.5gb", 0, True)]


def test_not_a_node_status():
    # a block ends at a line at its level: a later "nvidia.com/gpu" (a pod's limits) is not the node's
    text = "capacity:\n  cpu: \"4\"\nlimits:\n  nvidia.com/gpu: 1\nallocatable:\n  cpu: \"4\"\n"
    assert k8s_node_resources.parse(Artefact(path="x", text=text, node="n1")).facts == []
    assert not k8s_node_resources.detect("Allocatable memory: 5 GiB\ncapacity: 3\n")
    assert not k8s_node_resources.detect("")

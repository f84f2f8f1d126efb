"""kubectl describe computedomain (k8s_compute_domain): the real status of a NotReady domain
(kubernetes-sigs/dra-driver-nvidia-gpu#1050, fixture) and the shapes around it: a paste cut before
the domain's own status, the describe header's name and Num Nodes, a Ready domain, texts that are
not a ComputeDomain's."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import k8s_compute_domain as cd
from stethoscope.facts.parsers.base import Artefact

FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "k8s_compute_domain"
           / "dra1050_computedomain_notready_status.txt")


def _facts(text: str):
    return cd.parse(Artefact(path="cd.txt", text=text, node="n1")).facts


def test_real_notready_domain_both_nodes_listed():
    text = FIXTURE.read_text()
    assert cd.detect(text)
    (f,) = _facts(text)
    assert (f.status, f.nodes, f.nodes_ready) == ("NotReady", 2, 0)
    assert f.nodes_not_ready == "cluster1-mgx-00011, cluster1-mgx-00017"
    assert f.evidence.text == "  Status: NotReady" and f.evidence.line == 13


def test_describe_header_name_and_num_nodes_ready_domain():
    # the real status block's layout under kubectl describe's header and spec (field names of
    # api/nvidia.com/resource/v1beta1/computedomain.go, title-cased by kubectl)
    text = ("Name:         inference-cd\nNamespace:    default\nKind:         ComputeDomain\nSpec:\n  Channel:\n"
            "    Allocation Mode:  Single\n  Num Nodes:  2\nStatus:\n  Nodes:\n"
            "    Clique Id:   9f410827-489f-46fd-8203-51266ca08eb7.32766\n    Index:       0\n"
            "    Ip Address:  10.42.3.138\n    Name:        n-a\n    Status:      Ready\n"
            "    Clique Id:   9f410827-489f-46fd-8203-51266ca08eb7.32766\n    Index:       1\n"
            "    Ip Address:  10.42.1.100\n    Name:        n-b\n    Status:      Ready\n  Status:  Ready\nEvents:  <none>\n")
    (f,) = _facts(text)
    assert (f.domain, f.num_nodes, f.status, f.nodes, f.nodes_ready, f.nodes_not_ready) == ("inference-cd", 2, "Ready", 2, 2, "")


def test_cut_before_the_domain_status_keeps_the_nodes():
    lines = FIXTURE.read_text().split("\n")
    (f,) = _facts("\n".join(lines[:12]) + "\n")
    assert f.status is None and f.nodes == 2 and f.nodes_ready == 0


def test_other_texts_are_not_a_compute_domain():
    assert not cd.detect("Clique Id: 5\n")  # no Nodes: block, not indented
    assert not cd.detect("Status:\n  Nodes:\n    Name: a\n    Status: Ready\n")  # no clique id: not a ComputeDomain's
    assert _facts("Status:\n  Nodes:\n") == []

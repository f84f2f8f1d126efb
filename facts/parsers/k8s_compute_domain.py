"""A ComputeDomain of NVIDIA's Kubernetes DRA driver (multi-node NVLink: GB200/GB300 NVL72 and
other IMEX domains) as ``kubectl describe computedomain <name>`` shows it.

A ComputeDomain asks the DRA driver to run one IMEX daemon per node of a multi-node NVLink job;
its status says whether they are ready (api/nvidia.com/resource/v1beta1/computedomain.go:
``ComputeDomainStatus.Status`` Ready / NotReady / Failed, and per node ``ComputeDomainNode``
name, ipAddress, cliqueID, index and status, "Ready whenever the IMEX daemon is ready to broker
GPU memory exchanges"). kubectl describe prints the fields title-cased and sorted, each node's
block starting at ``Clique Id:``. Sample content (kubernetes-sigs/dra-driver-nvidia-gpu#1050, a
domain that stayed NotReady)::

    Status:
      Nodes:
        Clique Id: 9f410827-489f-46fd-8203-51266ca08eb7.32766
        Index: 0
        Ip Address: 10.42.3.138
        Name: cluster1-mgx-00011
        Status: NotReady
      Status: NotReady

Fact: ``compute_domain_status`` per status block: the domain's own status (the ``Status:`` at the
level of ``Nodes:``; None when the paste stops before it), the nodes listed, how many are Ready,
the names of the others, and the domain's name and ``Num Nodes`` where the paste shows them;
citing the domain's status line (or the first node's). ``kubectl get computedomain -o yaml`` is
a Kubernetes object in YAML: :mod:`k8s_object_yaml` reads it. A ``Clique Id:`` line outside a
``Nodes:`` block, or a status block without a node or a status, gives nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import ComputeDomainStatus  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_compute_domain"

#     Clique Id: 9f410827-489f-46fd-8203-51266ca08eb7.32766      (kubectl describe: cliqueID title-cased)
_CLIQUE = re.compile(r"^[ \t]+Clique Id:[ \t]+(?:[0-9a-f-]{36}\.)?\d+[ \t]*$", re.M)
#   Name: cluster1-mgx-00011    Status: NotReady    Ip Address: 10.42.3.138    Num Nodes:  2
_KEY = re.compile(r"^(?P<ind>[ \t]*)(?P<key>[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*):(?:[ \t]+(?P<val>\S(?:.*\S)?))?[ \t]*$")
_STATES = frozenset({"Ready", "NotReady", "Failed"})


def detect(head: str) -> bool:
    return "Clique Id:" in head and _CLIQUE.search(head) is not None and "Nodes:" in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    name = num_nodes = None
    nodes_ind: int | None = None  # indentation of the "Nodes:" key of the block being read
    nodes: list[dict] = []
    status = status_line = first_line = None

    def flush() -> None:
        nonlocal nodes, status, status_line, first_line, nodes_ind
        if nodes and (status is not None or any(n.get("status") for n in nodes)):
            ready = [n for n in nodes if n.get("status") == "Ready"]
            b.add(ComputeDomainStatus, status_line or first_line, status=status, domain=name, num_nodes=num_nodes,
                  nodes=len(nodes), nodes_ready=len(ready),
                  nodes_not_ready=", ".join(n.get("name") or "?" for n in nodes if n.get("status") != "Ready"))
        nodes, status, status_line, first_line, nodes_ind = [], None, None, None, None

    for no, line in enumerate(artefact.lines, 1):
        m = _KEY.match(line)
        if m is None:
            continue
        ind, key, val = len(m["ind"].expandtabs()), m["key"], m["val"]
        if key == "Nodes" and val is None:
            flush()
            nodes_ind = ind
            result.lines_used += 1
            continue
        if nodes_ind is None:
            if key == "Name" and val and ind == 0:  # the describe header's "Name:  <domain>"
                name = val
                result.lines_used += 1
            elif key == "Num Nodes" and val and val.isdigit():
                num_nodes = int(val)
                result.lines_used += 1
            continue
        if ind <= nodes_ind:  # back at the level of Nodes: the domain's own fields, or past the block
            if key == "Status" and val in _STATES and ind == nodes_ind:
                status, status_line = val, no
                result.lines_used += 1
            flush()
            continue
        if key == "Clique Id" or not nodes or key in nodes[-1]:
            nodes.append({})
            first_line = first_line or no
        nodes[-1][key] = val
        if key == "Status":
            nodes[-1]["status"] = val
        elif key == "Name":
            nodes[-1]["name"] = val
        result.lines_used += 1
    flush()
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_CLIQUE,)

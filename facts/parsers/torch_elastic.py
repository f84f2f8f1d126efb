"""torchrun (torch.distributed.elastic) rendezvous and c10d store failures.

Command: ``torchrun ...`` / ``python -m torch.distributed.run ...`` (its own log, or the job's).

Sample content (pytorch/pytorch#79388, the agent's launch configs then the failure)::

    rdzv_endpoint    : IP1:2222
    rdzv_configs     : {'timeout': 900}
    [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
        "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",

and the store client of PyTorch 2.x (fixtures/harvest case 145)::

    torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to

Facts: ``torch_rendezvous_error`` (``error``: timeout | connection | closed | store_timeout |
state, the endpoint and timeout when printed; the launch config's ``rdzv_endpoint``, ``min_nodes``
when the file shows them). The exception names are PyTorch's own
(``torch/distributed/elastic/rendezvous/api.py``: RendezvousTimeoutError "did not complete on
time", RendezvousConnectionError "the connection to a rendezvous backend has failed",
RendezvousClosedError, RendezvousStateError).
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "torch_elastic"


@fact_kind
class TorchRendezvousError(Fact):
    """torchrun's rendezvous or its c10d store failed: the nodes never met."""

    kind: Literal["torch_rendezvous_error"] = "torch_rendezvous_error"
    error: str
    message: str
    endpoint: str | None = None
    timeout_s: float | None = None
    min_nodes: int | None = None
    during_rendezvous: bool = False  # the agent's Rendezvous*Error, or a store timeout in a file that shows one (torchrun's own store)


# "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
# torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError
RDZV = re.compile(r"\bRendezvous(?P<which>Timeout|Connection|Closed|State)Error\b:?(?P<msg>[^\"\n]*)")
# [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
# torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to
STORE = re.compile(r"The client socket has timed out after (?P<n>\d+)(?P<unit>ms|s) while trying to connect to(?: \(?(?P<host>[^,()\s]+)(?:, |:)(?P<port>\d+)\)?)?")
# rdzv_endpoint    : IP1:2222
ENDPOINT = re.compile(r"^\s*rdzv_endpoint\s*:\s*(?P<ep>\S+)\s*$", re.M)
# min_nodes        : 2
MIN_NODES = re.compile(r"^\s*min_nodes\s*:\s*(?P<n>\d+)\s*$", re.M)


def detect(text: str) -> bool:
    return ("Rendezvous" in text and RDZV.search(text) is not None) or (
        "client socket has timed out" in text and STORE.search(text) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    ep = ENDPOINT.search(text)
    mn = MIN_NODES.search(text)
    config = {"endpoint": ep["ep"] if ep else None, "min_nodes": int(mn["n"]) if mn else None}
    agent_error = "Rendezvous" in text and RDZV.search(text) is not None
    for pat in (ENDPOINT, MIN_NODES):
        result.lines_used += sum(1 for _ in pat.finditer(text))
    for line, raw in iter_lines(re.compile(r"Rendezvous(?:Timeout|Connection|Closed|State)Error|client socket has timed out"), artefact):
        m = STORE.search(raw)
        if m:
            secs = int(m["n"]) / (1000 if m["unit"] == "ms" else 1)
            endpoint = f"{m['host']}:{m['port']}" if m["host"] else config["endpoint"]
            b.add(TorchRendezvousError, line, error="store_timeout", message=raw.strip()[:300],
                  endpoint=endpoint, timeout_s=secs, min_nodes=config["min_nodes"], during_rendezvous=agent_error)
            result.lines_used += 1
            continue
        m = RDZV.search(raw)
        if m:
            b.add(TorchRendezvousError, line, error=m["which"].lower(), message=raw.strip()[:300], during_rendezvous=True,
                  **config)
            result.lines_used += 1
    return result

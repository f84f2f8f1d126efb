"""torchrun (torch.distributed.elastic) rendezvous and c10d store failures.

Command: ``torchrun ...`` / ``python -m torch.distributed.run ...`` (its own log, or the job's).

Sample content (pytorch/pytorch#79388, the agent's launch configs then the failure)::

    rdzv_endpoint    : IP1:2222
    rdzv_configs     : {'timeout': 900}
    [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
        "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",

and the store client of PyTorch 2.x (modelscope/DiffSynth-Studio#538)::

    torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to

and the agent's own rendezvous lines (torchrun 2.11 on the H200 with --nnodes=2 and one node
started; the dynamic rendezvous of 1.9-2.x at INFO, torch/distributed/elastic/rendezvous/dynamic_rendezvous.py)::

    I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:693] [default] Rendezvous'ing worker group
    [INFO] 2021-06-29 12:04:55,398 dynamic_rendezvous: The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.
    [INFO] 2021-06-29 12:05:25,632 dynamic_rendezvous: The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.

and the c10d store's own errors in any PyTorch 2.x output: the store server that gave up waiting for
its clients (OpenRLHF/OpenRLHF#1040), and a store or peer connection closed from the other end
(pytorch/pytorch#118666, #128970)::

    torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.
    torch.distributed.DistNetworkError: Connection reset by peer

Facts: ``torch_rendezvous_error`` (``error``: timeout | connection | closed | store_timeout |
state | clients_timeout (``clients_joined`` of ``clients_expected``) | connection_lost (the
other end closed the socket: ECONNRESET, EPIPE), the endpoint and timeout when printed; the launch config's ``rdzv_endpoint``, ``min_nodes``
when the file shows them); ``torch_rendezvous_join`` for each node that took part (``attempt``: the
agent began its rendezvous or a node asked to join; ``joined``: a node joined a round; ``host``
from the node descriptor ``{addr}_{pid}_{local_id}``, else the file's node). The exception names are PyTorch's own
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
    clients_joined: int | None = None  # clients_timeout: clients that connected to the store server ...
    clients_expected: int | None = None  # ... of those it waited for (the world size)


@fact_kind
class TorchRendezvousJoin(Fact):
    """A node took part in torchrun's rendezvous: its agent began it, asked to join, or joined."""

    kind: Literal["torch_rendezvous_join"] = "torch_rendezvous_join"
    host: str  # the node, as its node descriptor names it (or the file's node)
    event: Literal["attempt", "joined"]
    run_id: str | None = None
    rank: int | None = None  # joined: the node's rank in the round
    world_size: int | None = None  # joined: nodes in the round


@fact_kind
class TorchRendezvousIncomplete(Fact):
    """torchrun's rendezvous timed out and the bundle shows which nodes took part: those that did
    not (a node of the bundle with no rendezvous line, or fewer nodes than ``min_nodes``) never
    joined. Made by :mod:`stethoscope.engine.combine.rendezvous`; ``sources`` are the timeout and
    join facts."""

    kind: Literal["torch_rendezvous_incomplete"] = "torch_rendezvous_incomplete"
    joined: str  # "node1, node2": nodes whose agent took part
    joined_count: int
    min_nodes: int | None = None
    missing: str  # "node3" or "not in the bundle"
    missing_count: int  # nodes that never joined (at least the named ones; min_nodes - joined when larger)
    sources: str


# "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
# torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError
RDZV = re.compile(r"\bRendezvous(?P<which>Timeout|Connection|Closed|State)Error\b:?(?P<msg>[^\"\n]*)")
# [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
# torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to
STORE = re.compile(r"The client socket has timed out after (?P<n>\d+)(?P<unit>ms|s) while trying to connect to(?: \(?(?P<host>[^,()\s]+)(?:, |:)(?P<port>\d+)\)?)?")
# the store server (rank 0's TCPStore, torch/csrc/distributed/c10d/TCPStore.cpp waitForWorkers, PyTorch >= 2.2):
# torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.   (OpenRLHF/OpenRLHF#1040)
CLIENTS = re.compile(r"Timed out after (?P<n>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<world>\d+) clients joined")
# the store's or a peer's socket closed from the other end: c10d's SYSCHECK throws DistNetworkError with
# strerror(errno) (torch/csrc/distributed/c10d/Utils.hpp; RuntimeError before 2.0, not read: too general alone):
# torch.distributed.DistNetworkError: Connection reset by peer      (pytorch/pytorch#118666, #128970)
# torch.distributed.DistNetworkError: Broken pipe
LOST = re.compile(r"\bDistNetworkError: (?P<err>Connection reset by peer|Broken pipe)\s*$", re.M)
# I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:693] [default] Rendezvous'ing worker group
# The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.
# The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.
JOIN = re.compile(
    r"\[[\w\-]+\] Rendezvous'ing worker group"
    r"|The node '(?P<desc>[^']+)' (?:attempts to join the next round|has joined round (?P<round>\d+)) of the rendezvous '(?P<run>[^']*)'"
    r"(?: as rank (?P<rank>\d+) in a world of size (?P<world>\d+))?"
)
# rdzv_endpoint    : IP1:2222
# I1201 10:35:57.543000 440 torch/distributed/launcher/api.py:224]   rdzv_endpoint            : localhost:29555   (2.x, glog prefix)
ENDPOINT = re.compile(r"(?:^|\] )\s*rdzv_endpoint\s*:\s*(?P<ep>\S+)\s*$", re.M)
# min_nodes        : 2
# I1201 10:35:57.543000 440 torch/distributed/launcher/api.py:224]   min_nodes                : 2
MIN_NODES = re.compile(r"(?:^|\] )\s*min_nodes\s*:\s*(?P<n>\d+)\s*$", re.M)


_ANY = re.compile(r"Rendezvous(?:Timeout|Connection|Closed|State)Error|client socket has timed out"
                  r"|seconds waiting for clients\. |DistNetworkError: (?:Connection reset by peer|Broken pipe)")


def detect(text: str) -> bool:
    return ("Rendezvous" in text and RDZV.search(text) is not None) or (
        "client socket has timed out" in text and STORE.search(text) is not None) or (
        ("Rendezvous'ing" in text or "of the rendezvous '" in text) and JOIN.search(text) is not None) or (
        "waiting for clients" in text and CLIENTS.search(text) is not None) or (
        "DistNetworkError: " in text and LOST.search(text) is not None)


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
    for line, raw in iter_lines(_ANY, artefact):
        m = CLIENTS.search(raw)
        if m:
            b.add(TorchRendezvousError, line, error="clients_timeout", message=raw.strip()[:300],
                  endpoint=config["endpoint"], timeout_s=float(m["n"]), min_nodes=config["min_nodes"],
                  during_rendezvous=agent_error, clients_joined=int(m["joined"]), clients_expected=int(m["world"]))
            result.lines_used += 1
            continue
        m = LOST.search(raw)
        if m:
            b.add(TorchRendezvousError, line, error="connection_lost", message=raw.strip()[:300],
                  endpoint=config["endpoint"], during_rendezvous=agent_error)
            result.lines_used += 1
            continue
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
    _joins(artefact, b, result)
    return result


def _joins(artefact: Artefact, b: FactBuilder, result: ParseResult) -> None:
    """One torch_rendezvous_join per node and event: the nodes that took part in the rendezvous."""
    seen: set[tuple[str, str]] = set()
    for line, raw in iter_lines(JOIN, artefact):
        m = JOIN.search(raw)
        result.lines_used += 1
        host = artefact.node_for(m["desc"].rsplit("_", 2)[0] if m["desc"] else None)
        event = "joined" if m["round"] is not None else "attempt"
        if (host, event) in seen:
            continue
        seen.add((host, event))
        b.add(TorchRendezvousJoin, line, node=host, host=host, event=event, run_id=m["run"],
              rank=int(m["rank"]) if m["rank"] else None, world_size=int(m["world"]) if m["world"] else None)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (RDZV, STORE, JOIN, CLIENTS, LOST)

"""torch_elastic: torchrun's rendezvous failures and the nodes that took part, real captures."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import torch_elastic
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_elastic"


def parse(name: str, node: str = "n1"):
    return torch_elastic.parse(Artefact(path=name, text=(FIX / name).read_text(), node=node))


def test_torchrun_211_join_timeout_capture():
    r = parse("torchrun_2.11_rdzv_join_timeout_min2.log", node="h200a")
    errors = [f for f in r.facts if f.kind == "torch_rendezvous_error"]
    joins = [f for f in r.facts if f.kind == "torch_rendezvous_join"]
    assert {(f.error, f.min_nodes, f.endpoint, f.during_rendezvous) for f in errors} == {("timeout", 2, "localhost:29555", True)}
    assert [(f.host, f.event, f.evidence.line) for f in joins] == [("h200a", "attempt", 23)]
    assert r.errors == []


def test_store_timeout_alone_and_beside_the_agent():
    alone = [f for f in parse("store_client_timeout_1800000ms.log").facts if f.kind == "torch_rendezvous_error"]
    assert [(f.error, f.timeout_s, f.during_rendezvous) for f in alone] == [("store_timeout", 1800.0, False)]
    beside = [f for f in parse("pytorch79388_rdzv_connection.log").facts if f.error == "store_timeout"]
    assert [f.during_rendezvous for f in beside] == [True]


@pytest.mark.parametrize("line, expect", [
    # dynamic_rendezvous.py at INFO (public 1.9-era log line)
    ("[INFO] 2021-06-29 12:04:55,398 dynamic_rendezvous: The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.",
     ("master1", "attempt", None, None)),
    ("[INFO] 2021-06-29 12:05:25,632 dynamic_rendezvous: The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.",
     ("master1", "joined", 0, 1)),
])
def test_join_lines(line, expect):
    assert torch_elastic.detect(line)
    [f] = torch_elastic.parse(Artefact(path="x.log", text=line, node="n1")).facts
    assert (f.host, f.event, f.rank, f.world_size) == expect


def test_store_server_waiting_for_clients():
    (f,) = parse("openrlhf1040_store_clients_timeout.log").facts
    assert (f.error, f.timeout_s, f.clients_joined, f.clients_expected, f.during_rendezvous) == ("clients_timeout", 1801.0, 1, 3, False)


@pytest.mark.parametrize("line,expect", [
    ("torch.distributed.DistNetworkError: Connection reset by peer", "connection_lost"),  # pytorch/pytorch#118666
    ("torch.distributed.DistNetworkError: Broken pipe", "connection_lost"),
    # near misses: another strerror, and the store client's own timeout (store_timeout)
    ("torch.distributed.DistNetworkError: Connection refused", None),
    ("RuntimeError: Connection reset by peer", None),
])
def test_connection_closed_by_the_other_end(line, expect):
    got = [f.error for f in torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts]
    assert got == ([expect] if expect else [])
    assert torch_elastic.detect(line) == bool(expect)

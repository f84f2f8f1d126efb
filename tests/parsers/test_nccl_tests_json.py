"""nccl-tests ``-J`` JSON parser on real files (2 x H200, nccl-tests 2.19.6); the check that
JSON and text of one run agree lives in test_nccl_tests.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_tests_json
from stethoscope.facts.parsers.base import Artefact

FIXJ = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_tests_json"


def _parse(path: Path):
    return nccl_tests_json.parse(Artefact(path=path.name, text=path.read_text()))


def _kinds(result, kind):
    return [f for f in result.facts if f.kind == kind]


def _run(result):
    runs = _kinds(result, "nccl_test_run")
    assert len(runs) == 1
    return runs[0]


def test_json_observation_pretty_printed():
    res = _parse(FIXJ / "allreduce_healthy_g2.json")
    run = _run(res)
    assert (run.collective, run.nccl_version, run.max_bytes, run.rows, run.status, run.avg_busbw) == (
        "all_reduce", "2.28.9", 1073741824, 28, "OK", 85.906938)
    assert (run.evidence.line, run.evidence.text.strip()) == (5, '"/tmp/nt/build/all_reduce_perf",')
    row = _kinds(res, "nccl_test_row")[-1]
    assert (row.size_bytes, row.oop_busbw, row.ip_busbw, row.evidence.line) == (1073741824, 327.929109, 330.5731, 614)
    assert row.evidence.text.strip() == '"size": 1073741824,'
    rank = _kinds(res, "nccl_test_rank")[0]
    assert (rank.pci_bus_id, rank.pid, rank.evidence.line) == ("0000:00:06.0", 1644, 35)


def test_json_bad_ifname_run():
    run = _run(_parse(FIXJ / "allreduce_bad_ifname_json_g2.json"))
    assert (run.failed, run.status, run.rows, run.nranks) == (True, None, 0, 2)


def test_json_ranks_are_processes_times_gpus_per_process():
    """``devices`` has one entry per process (nccl-tests' parseRankInfo reads the first
    ``#  Rank`` line of each process); each process drives nthreads x ngpus ranks."""
    doc = json.loads((FIXJ / "allreduce_healthy_g2.json").read_text())
    assert (doc["config"]["ngpus"], len(doc["config"]["devices"])) == (2, 1)
    assert _run(nccl_tests_json.parse(Artefact(path="g2.json", text=json.dumps(doc)))).nranks == 2
    # the same run launched as 2 MPI processes of -g 2 -t 1 on two hosts: 4 ranks
    second = dict(doc["config"]["devices"][0], rank=2, pid=1700, hostname="vm2")
    doc["config"]["devices"].append(second)
    run = _run(nccl_tests_json.parse(Artefact(path="mpi.json", text=json.dumps(doc))))
    assert (run.nranks, run.hosts) == (4, 2)


@pytest.mark.parametrize("text, line", [('{"version": 3,\n "config": {"ngpus": 2,\n', 3), ("[1, 2]", 1),
                                         ('{"config": {"devices": [{"rank": 0}]}}', 1)])
def test_json_malformed(text, line):
    res = nccl_tests_json.parse(Artefact(path="bad.json", text=text))
    assert [e.line for e in res.errors] == [line] and res.facts == []

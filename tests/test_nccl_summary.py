"""The cross-rank summary on real captures: straggler naming, and its cascade under a hardware fault."""
from __future__ import annotations

import shutil
from pathlib import Path

from stethoscope.engine.pipeline import diagnose_bundle, parse_artefacts
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[1]
STRAGGLER = ROOT / "fixtures/bundles/h200-straggler-timeout/bundle/vm/train.log"
DESYNC = ROOT / "fixtures/bundles/h200-straggler-desync/bundle/vm/train.log"


def _facts(path: Path, kind: str, node: str = "vm", from_folder: bool = True):
    arts = [Artefact(path=f"{node}/{path.name}", text=path.read_text(), node=node, node_from_folder=from_folder)]
    return [f for f in parse_artefacts(arts).facts if f.kind == kind]


def test_lowest_enqueued_names_rank_1_with_its_gpu():
    (c,) = _facts(STRAGGLER, "torch_straggler_candidate")
    assert (c.rank, c.basis, c.timeout_seq, c.last_enqueued_seq, c.waiting_ranks) == (1, "lowest_enqueued", 4, 3, "0")
    assert (c.host, c.gpu, c.op_type) == ("vm", "0000:00:07.0", "ALLREDUCE")


def test_desync_report_wins_and_gives_the_last_collective():
    (c,) = _facts(DESYNC, "torch_straggler_candidate")
    assert (c.rank, c.basis, c.last_enqueued_seq) == (1, "desync_report", 3)


def test_straggler_on_a_node_with_a_lost_gpu_is_a_cascade(tmp_path):
    node = tmp_path / "node3"
    node.mkdir()
    shutil.copy(STRAGGLER, node / "train.log")
    shutil.copy(ROOT / "fixtures/bundles/xid79-timeout-cascade/bundle/node3/dmesg.log", node / "dmesg.log")
    report = diagnose_bundle(tmp_path)
    straggler = next(f for f in report.findings if f.cause == "nccl_timeout_straggler")
    root = next(f for f in report.findings if f.cause == "gpu_fell_off_bus")
    assert straggler.role == "cascade" and root.rank in straggler.explained_by


def test_one_version_and_one_subnet_are_no_mismatch():
    log = ROOT / "fixtures/artefacts/nccl_log/ib_two_nodes_2.5.6.log"
    (v,) = _facts(log, "nccl_version_set")
    assert v.distinct == 1
    # two Azure nodes of that thread (nccl-tests#36), both on 10.0.0.x
    (s,) = _facts(log, "nccl_bootstrap_subnet_set", node="unknown", from_folder=False)
    assert s.distinct == 1 and "pkb-aa8dbd1b-0" in s.interfaces and "pkb-aa8dbd1b-1" in s.interfaces

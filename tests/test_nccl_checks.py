"""Cross-file NCCL checks (engine/combine/nccl_checks.py): GID kinds, NCCL path names, the
architecture table, and the parser fields they read, on real lines."""
from __future__ import annotations

from pathlib import Path

from stethoscope.engine.combine import nccl_checks as nc
from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "artefacts"


def _parse(rel: str, node: str = "n1"):
    return nccl_log.parse(Artefact(path=f"{node}/x.log", text=(FIX / rel).read_text(), node=node, node_from_folder=True))


def test_gid_kinds():
    assert nc.gid_kind("::ffff:29.87.4.221") == "ipv4"
    assert nc.gid_kind("fe80::58a2:e103:da3b:26") == "ipv6_link_local"
    assert nc.gid_kind("fd00:1148:9000:5000:4:200:3:ff22") == "ipv6"
    assert nc.gid_kind("::ffff:") is None and nc.gid_kind(None) is None


def test_completion_lines_give_both_gids_in_every_format():
    res = _parse("nccl_log/rdma_completion_errors.log")
    got = [(c.local_gid, c.remote_gid) for c in res.facts if c.kind == "nccl_rdma_completion_error"]
    assert got.count(("::ffff:29.87.88.182", "::ffff:29.87.4.221")) == 2  # "remoteGids::ffff:..." (no space)
    assert ("::ffff:10.1.1.1", "::ffff:10.1.1.2") in got


def test_gdr_pair_line_keeps_the_bus_id_nccl_printed():
    [g] = [f for f in _parse("nccl_log/crafted_gdr_pair_distance.log").facts if f.kind == "nccl_gdr_state"]
    assert (g.scope, g.enabled, g.gpu_bus_id, g.hca, g.distance, g.limit) == ("gpu_hca_pair", False, "0000:1b:00.0", "1", 6, 4)


def test_path_names_follow_the_nccl_version():
    assert nc.path_name(6, "2.21.5") == "PHB" and nc.path_name(7, "2.21.5") == "SYS"
    assert nc.path_name(7, "2.26.2") == "PHB" and nc.path_name(8, "2.28.9") == "PHB"
    assert nc.path_name(5, "2.10.3") == "PHB" and nc.path_name(6, None) == "unknown"


def test_architecture_table_picks_the_compute_capability_by_product():
    assert nc.arch_entry("Hopper", "NVIDIA H200").nccl_min == "2.15.1"
    assert nc.arch_entry("Blackwell", "NVIDIA B200").compute_capability == "10.0"
    assert nc.arch_entry("Blackwell", "NVIDIA GeForce RTX 5090").compute_capability == "12.0"
    assert nc.arch_entry("Turing", "Tesla T4") is None  # not in the table: no verdict
    for e in nc.arch_table():
        assert e.source.startswith("github.com/NVIDIA/nccl") and e.nccl_min.count(".") == 2

"""nccl-tests busbw against the node's RDMA port line rate (engine/localise/nic_line_rate.py), on real files."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from stethoscope.engine.localise import nic_line_rate
from stethoscope.facts.parsers import ibstatus, nccl_log, nccl_tests
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts"


def facts_of(*files: tuple[object, str, str]):
    by_kind = defaultdict(list)
    for mod, rel, node in files:
        art = Artefact(path=rel, text=(A / rel).read_text(), node=node, node_from_folder=True)
        for f in mod.parse(art).facts:
            by_kind[f.kind].append(f)
    return by_kind


def test_sixteen_ranks_far_below_three_hdr_ports_nccl1412() -> None:
    by_kind = facts_of((nccl_tests, "nccl_tests/nccl1412_footer_only.txt", "swat1-04"),
                       (nccl_log, "nccl_tests/nccl1412_footer_only.txt", "swat1-04"),
                       (ibstatus, "ibstatus/nccl1412_three_hdr_ports.txt", "unknown"))
    [c] = nic_line_rate.summarise(by_kind)
    assert (c.nranks, c.nic_ports, c.nic_busbw, c.measure, c.ports_node) == (16, 3, 75.0, "average", "unknown")
    assert c.ratio < c.min_ratio == 0.5  # knowledge/nic_line_rate.yaml's; the rule compares them


def test_single_node_run_is_not_compared_with_nics() -> None:
    by_kind = facts_of((nccl_tests, "nccl_tests/allreduce_healthy_g2.txt", "vm"),
                       (ibstatus, "ibstatus/nccl1412_three_hdr_ports.txt", "vm"))
    assert by_kind["nccl_test_run"] and nic_line_rate.summarise(by_kind) == []

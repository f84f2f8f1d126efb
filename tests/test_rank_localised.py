"""At equal severity, symptom flag and confidence, a finding that names a part of a node (a GPU by its
bus id, an HCA port, a link, a switch) ranks before one that names only a node or a process: it says
where to act. Real case: harvest 504 (NVIDIA/open-gpu-kernel-modules#862): the driver's
``RmInitAdapter failed!`` on GPU 0000:01:00.0 ranked below nvidia-smi's ``No devices were found``
(nvml_init_failed, no GPU named) only because its rule id sorts later."""
from __future__ import annotations

from stethoscope.engine.findings import SymptomMap, rank_findings
from stethoscope.engine.report import Entity, Finding


def _f(rule: str, severity: str = "critical", confidence: float = 0.8, **where: str) -> Finding:
    node = where.get("node", "node1")
    return Finding(rank=0, rule=rule, title=rule, cause="driver_error", component="driver", severity=severity,
                   confidence=confidence, role="independent", entity=Entity(label=node, **{"node": node, **where}),
                   summary=rule, actions=[], action_text="", evidence=[], evidence_total=0, nodes=[node])


NONE = SymptomMap({}, {})


def test_gpu_named_ranks_first_at_a_tie():
    got = rank_findings([_f("a_node_only"), _f("z_on_the_gpu", gpu="0000:01:00.0")], NONE)
    assert [f.rule for f in got] == ["z_on_the_gpu", "a_node_only"]


def test_port_named_ranks_first_at_a_tie():
    got = rank_findings([_f("a_node_only"), _f("z_on_the_port", hca="mlx5_0", port="1")], NONE)
    assert got[0].rule == "z_on_the_port"


def test_severity_and_confidence_still_decide_first():
    got = rank_findings([_f("a_node_only", severity="fatal"), _f("z_on_the_gpu", gpu="0000:01:00.0")], NONE)
    assert got[0].rule == "a_node_only"
    got = rank_findings([_f("a_node_only", confidence=0.9), _f("z_on_the_gpu", gpu="0000:01:00.0")], NONE)
    assert got[0].rule == "a_node_only"


def test_a_process_rank_is_no_part():
    got = rank_findings([_f("a_node_only"), _f("z_on_rank_3", rank=3)], NONE)  # type: ignore[arg-type]
    assert got[0].rule == "a_node_only"


def test_of_one_rules_findings_the_one_naming_the_rank_first():
    # hao-ai-lab/FastVideo#1008: the title quotes "CUDA error: unspecified launch failure", the log's
    # "[rank9]:[E113 ...] ... watchdog thread terminated with exception: CUDA error: ..." names rank 9
    got = rank_findings([_f("cuda_error_catalogue"), _f("cuda_error_catalogue", rank=9)], NONE)  # type: ignore[arg-type]
    assert [f.entity.rank for f in got] == [9, None]

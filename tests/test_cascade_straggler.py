"""Job-wide cascades (rule field ``cascade_of``): the straggler explains the timeouts of the
ranks that waited for it, and a hardware fault on the straggler's node explains both."""
from __future__ import annotations

from stethoscope.engine.findings import SymptomMap, rank_findings, symptom_map
from stethoscope.engine.knowledge import load_vocabulary
from stethoscope.engine.ruleengine.loader import load_rules
from stethoscope.engine.report import Entity, Finding


def _f(rule: str, cause: str, node: str, severity: str = "critical") -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="nccl", severity=severity, confidence=0.8,
                   role="independent", entity=Entity(label=node, node=node), summary=rule, actions=[], action_text="",
                   evidence=[], evidence_total=0, nodes=[node])


SYMPTOMS = SymptomMap({"torch_watchdog_timeout": True, "nccl_timeout_straggler": True, "xid79_gpu_fell_off_bus": False},
                      {"torch_watchdog_timeout": ("nccl_timeout_straggler",)})


def test_straggler_on_another_node_explains_the_timeout():
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2")], SYMPTOMS)
    by = {f.rule: f for f in got}
    assert (by["nccl_timeout_straggler"].rank, by["nccl_timeout_straggler"].role) == (1, "root_cause")
    assert (by["torch_watchdog_timeout"].role, by["torch_watchdog_timeout"].explained_by) == ("cascade", [1])


def test_hardware_fault_on_the_stragglers_node_explains_both():
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2"),
                         _f("xid79_gpu_fell_off_bus", "gpu_fell_off_bus", "node2", "fatal")], SYMPTOMS)
    by = {f.rule: f for f in got}
    assert (by["xid79_gpu_fell_off_bus"].rank, by["xid79_gpu_fell_off_bus"].role) == (1, "root_cause")
    assert by["nccl_timeout_straggler"].role == "cascade" and by["nccl_timeout_straggler"].explained_by == [1]
    assert by["torch_watchdog_timeout"].role == "cascade"
    assert by["torch_watchdog_timeout"].explained_by == [by["nccl_timeout_straggler"].rank]


def test_without_cascade_of_the_timeout_stays_independent():
    plain = {"torch_watchdog_timeout": True, "nccl_timeout_straggler": True}
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2")], plain)
    assert {f.role for f in got} == {"independent"}


def test_shipped_cascade_of_names_known_causes():
    rules = load_rules().rules
    causes = load_vocabulary().causes
    named = {c for r in rules for c in r.rule.cascade_of}
    assert "nccl_timeout_straggler" in named
    assert named <= set(causes)
    assert symptom_map(rules).cascade_of["torch_watchdog_timeout"] == ("nccl_timeout_straggler",)


# --- cascade_scope: node (rules/application/cuda_error_catalogue.yaml) over real fixtures ---

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XID79 = ROOT / "fixtures/artefacts/kernel_log/syslog_xid79_fell_off_bus.log"
APP = ROOT / "fixtures/artefacts/cuda_app/app-illegal-address.txt"  # CuPy's CUDA_ERROR_ILLEGAL_ADDRESS, an H200


def _diagnose(tmp_path: Path, layout: dict[str, list[Path]]):
    from stethoscope.engine.pipeline import diagnose_bundle

    for node, files in layout.items():
        (tmp_path / node).mkdir()
        for f in files:
            shutil.copy(f, tmp_path / node / f.name)
    return diagnose_bundle(tmp_path, load_rules())


def test_application_cuda_error_on_the_node_whose_gpu_fell_off_is_its_cascade(tmp_path):
    report = _diagnose(tmp_path, {"n1": [XID79, APP]})
    by = {f.rule: f for f in report.findings}
    root, app = by["xid79_gpu_fell_off_bus"], by["cuda_error_catalogue"]
    assert (root.rank, root.role) == (1, "root_cause")
    assert app.role == "cascade" and app.explained_by == [root.rank]


def test_a_gpu_fault_on_another_node_explains_no_cuda_error_here(tmp_path):
    report = _diagnose(tmp_path, {"n1": [XID79], "n2": [APP]})
    by = {f.rule: f for f in report.findings}
    assert by["xid79_gpu_fell_off_bus"].entity.node == "n1"
    app = by["cuda_error_catalogue"]
    assert app.role != "cascade" and app.explained_by == []


def test_node_scope_is_declared_only_with_cascade_of():
    scoped = [r for r in load_rules().rules if r.rule.cascade_scope == "node"]
    assert "cuda_error_catalogue" in {r.id for r in scoped}
    assert all(r.rule.cascade_of for r in scoped)
    assert "cuda_error_catalogue" in symptom_map(load_rules().rules).node_scoped


C176 = ROOT / "fixtures/harvest/cases/176-nvml-function-not-found-after-yum-update-stale-libnvidia-ml-links"


def test_nvml_failing_on_a_node_whose_driver_and_library_differ_is_the_mismatchs_cascade(tmp_path):
    # harvest 176 (real): nvidia-smi's 'Failed to initialize NVML: Function Not Found' beside nvidia-docker's
    # 'nvml: Driver/library version mismatch' on the same host after a yum update: one fault, its root the mismatch
    report = _diagnose(tmp_path, {"n1": [C176 / "app.txt", C176 / "other.txt"]})
    by = {f.rule: f for f in report.findings}
    root, nvml = by["nvml_driver_library_mismatch"], by["nvml_init_failed"]
    assert root.role == "root_cause" and nvml.role == "cascade" and nvml.explained_by == [root.rank]


def test_a_mismatch_on_another_node_explains_no_nvml_failure_here(tmp_path):
    report = _diagnose(tmp_path, {"n1": [C176 / "other.txt"], "n2": [C176 / "app.txt"]})
    nvml = next(f for f in report.findings if f.rule == "nvml_init_failed")
    assert nvml.entity.node == "n2" and nvml.role != "cascade" and nvml.explained_by == []

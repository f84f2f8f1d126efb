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
    # a straggler named explains the timeout; so does a timeout set far below the defaults (torch_watchdog_timeout_short)
    assert symptom_map(rules).cascade_of["torch_watchdog_timeout"] == ("nccl_timeout_straggler", "collective_timeout_too_short")


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


# --- r79: the rest of r73's same-node pairs, over the harvest cases' real files (bench/wild_sweep_r79.md) ---

HARVEST = ROOT / "fixtures/harvest/cases"
DEEPOPS1102 = ROOT / "fixtures/artefacts/nvidia_smi_list/deepops1102_tasks_in_containers_no_devices.txt"


def _case(prefix: str) -> Path:
    return next(HARVEST.glob(prefix + "-*"))


def _lines(tmp_path: Path, src: Path, keep: list[int], name: str) -> Path:
    """Some of a real file's lines (1-based), in their order, as a file of their own."""
    text = src.read_text().splitlines(keepends=True)
    where = tmp_path.parent / (tmp_path.name + "-lines")  # beside the bundle, not a node folder in it
    where.mkdir(exist_ok=True)
    out = where / name
    out.write_text("".join(text[i - 1] for i in keep))
    return out


def test_missing_gsp_firmware_on_a_node_whose_module_lacks_its_packages_is_the_splits_cascade(tmp_path):
    # harvest 136 (ublue-os/bazzite#2668, real): the 570.144 module's firmware file is missing because the image
    # moved user space and firmware to 570.153.02; the RmInitAdapter failure after it is the same finding
    report = _diagnose(tmp_path, {"n1": [_case("136") / "dmesg.log"]})
    by = {f.rule: f for f in report.findings}
    root, fw = by["kernel_module_without_its_driver_packages"], by["gsp_firmware_file_missing"]
    assert root.role == "root_cause" and fw.role == "cascade" and fw.explained_by == [root.rank]
    assert "nvrm_driver_message" in fw.rules and all(f.role != "root_cause" for f in report.findings if f is not root)


def test_missing_gsp_firmware_on_another_node_than_the_version_split_is_its_own(tmp_path):
    dmesg = _case("136") / "dmesg.log"
    report = _diagnose(tmp_path, {"n1": [dmesg], "n2": [_lines(tmp_path, dmesg, [9, 10, 11, 12], "dmesg.log")]})
    fw = next(f for f in report.findings if f.rule == "gsp_firmware_file_missing" and f.entity.node == "n2")
    assert fw.role == "root_cause" and fw.explained_by == []


def test_no_devices_in_tasks_beside_a_task_that_lists_its_gpu_is_the_visibility_mismatchs_cascade(tmp_path):
    # NVIDIA/deepops#1102 (real): one task lists its A100, the others print 'No devices found.'
    report = _diagnose(tmp_path, {"n1": [DEEPOPS1102]})
    by = {f.rule: f for f in report.findings}
    root, nvml = by["task_gpu_visibility_mismatch"], by["nvml_init_failed"]
    assert root.role == "root_cause" and nvml.role == "cascade" and nvml.explained_by == [root.rank]


def test_no_devices_on_a_node_without_the_visibility_mismatch_is_its_own(tmp_path):
    srun = DEEPOPS1102
    report = _diagnose(tmp_path, {"n1": [_lines(tmp_path, srun, [1, 4], "srun.txt")],
                                  "n2": [_lines(tmp_path, srun, [2, 3], "srun-n2.txt")]})
    nvml = next(f for f in report.findings if f.rule == "nvml_init_failed" and f.entity.node == "n2")
    assert nvml.role == "root_cause" and nvml.explained_by == []


def test_exporter_daemonset_not_ready_on_the_node_whose_runtime_mounts_stale_driver_files_is_its_cascade(tmp_path):
    # harvest 1001 (NVIDIA/gpu-operator#590, real): runc cannot mount libcuda.so.535.54.03; dcgm-exporter 0 of 3 ready
    c = _case("1001")
    report = _diagnose(tmp_path, {"n1": [c / "app.txt", c / "kubectl-get-ds.txt"]})
    by = {f.rule: f for f in report.findings}
    root, ds = by["container_driver_files_of_other_version"], by["gpu_monitoring_daemonset_not_ready"]
    assert root.role == "root_cause" and ds.role == "cascade" and ds.explained_by == [root.rank]


def test_exporter_daemonset_status_from_another_node_is_not_joined(tmp_path):
    c = _case("1001")
    report = _diagnose(tmp_path, {"n1": [c / "app.txt"], "n2": [c / "kubectl-get-ds.txt"]})
    ds = next(f for f in report.findings if f.rule == "gpu_monitoring_daemonset_not_ready")
    assert ds.entity.node == "n2" and ds.role != "cascade" and ds.explained_by == []


def test_dcgm_exporter_stopping_after_nvml_failed_on_its_node_is_the_nvml_failures_cascade(tmp_path):
    # harvest 307 (NVIDIA/gpu-monitoring-tools#96, real): 'Error: Failed to initialize NVML', then level=fatal
    # 'Error starting nv-hostengine: DCGM initialization error'
    report = _diagnose(tmp_path, {"n1": [_case("307") / "app.txt"]})
    stop = next(f for f in report.findings if f.rule == "dcgm_exporter_stopped")
    root = next(f for f in report.findings if f.rank in stop.explained_by)
    assert stop.role == "cascade" and root.cause == "driver_error" and root.role == "root_cause"


def test_dcgm_exporter_stopping_on_a_node_without_a_driver_fault_is_its_own(tmp_path):
    app = _case("307") / "app.txt"
    report = _diagnose(tmp_path, {"n1": [_lines(tmp_path, app, [1, 2], "app.txt")],
                                  "n2": [_lines(tmp_path, app, [1, 3], "app-n2.txt")]})
    stop = next(f for f in report.findings if f.rule == "dcgm_exporter_stopped")
    assert stop.entity.node == "n2" and stop.role != "cascade" and stop.explained_by == []
    assert any(f.cause == "driver_error" and f.entity.node == "n1" for f in report.findings)


def test_the_toolkits_nvml_detection_error_on_the_node_of_an_unreadable_gpu_is_its_cascade(tmp_path):
    # harvest 600 (NVIDIA/dcgm-exporter#46, real): nvidia-smi's row for GPU 7 reads ERR!, and docker run --gpus fails with
    # 'nvidia-container-cli: detection error: nvml error: unknown error': one fault, its root the GPU the driver cannot read
    c = _case("600")
    found = _diagnose(tmp_path, {"n1": [c / "app.txt", c / "nvidia-smi.txt"]}).findings
    root = next(f for f in found if f.rule == "gpu_unreadable_nvidia_smi")
    assert root.role == "root_cause" and root.entity.gpu
    assert [(f.role, f.explained_by) for f in found if f.rule == "container_toolkit_nvml_detection_failed"] == [
        ("cascade", [root.rank])]
    assert not any(f.rule == "container_toolkit_error" for f in found)  # (the generic hook rule leaves an NVML query to this one)


def test_the_toolkits_nvml_detection_error_without_a_gpu_fault_on_its_node_is_its_own(tmp_path):
    c = _case("600")
    report = _diagnose(tmp_path, {"n1": [c / "nvidia-smi.txt"], "n2": [c / "app.txt"]})
    hook = next(f for f in report.findings if f.rule == "container_toolkit_nvml_detection_failed")
    assert hook.entity.node == "n2" and hook.role == "root_cause" and hook.explained_by == []


def _ucx_abort(tmp_path: Path, layout: dict[str, str]):
    from stethoscope.engine.pipeline import diagnose_bundle

    for node, text in layout.items():
        (tmp_path / node).mkdir()
        (tmp_path / node / "app.log").write_text(text)
    return diagnose_bundle(tmp_path, load_rules())


# CONSTRUCTED: UCX's ucs_bug line (assert.h's "Bug: " form under log.c's prefix, as
# tests/rules/network/ucx_internal_check_failed.test.yaml's) and bash's report of the abort() it ends in
UCX_BUG = "[node07:20411:0:20411]      rc_iface.c:1022 Bug: unexpected flush state 3\n"
BASH_ABORT = "/bin/bash: line 1: 20411 Aborted                 (core dumped) ./osu_bw -d cuda D D\n"


def test_the_abort_after_ucxs_failed_check_is_its_cascade(tmp_path):
    # a failed UCX check ends in abort(): the SIGABRT the shell reports is that ending, not a crash of its own
    by = {f.rule: f for f in _ucx_abort(tmp_path, {"n1": UCX_BUG + BASH_ABORT}).findings}
    root, abort = by["ucx_internal_check_failed"], by["launched_process_aborted"]
    assert root.role == "root_cause" and abort.role == "cascade" and abort.explained_by == [root.rank]


def test_an_abort_without_ucxs_check_is_its_own(tmp_path):
    # (the rule's cascade is job-wide, as its other causes': an MPI job's rank that failed UCX's check takes the job down)
    by = {f.rule: f for f in _ucx_abort(tmp_path, {"n2": BASH_ABORT}).findings}
    assert "ucx_internal_check_failed" not in by
    assert by["launched_process_aborted"].role != "cascade" and by["launched_process_aborted"].explained_by == []

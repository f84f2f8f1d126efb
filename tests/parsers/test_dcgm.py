"""The DCGM readers (dcgmi diag, DCGM logs, a saved dcgm-exporter scrape) on real samples."""
from pathlib import Path

from stethoscope.facts.parsers import dcgm_exporter_scrape, dcgm_log, dcgmi_diag
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def run(mod, rel):
    text = (A / rel).read_text()
    assert mod.detect(text)
    return mod.parse(Artefact(path=rel, text=text, node="n1"))


def test_diag_old_table_joins_wrapped_warning_and_marks_busy_gpu():
    res = run(dcgmi_diag, "dcgmi_diag/go_dcgm52_memory_fail_busy.txt")
    rows = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result"]
    assert [(r["test"], r["gpu"], r["result"]) for r in rows] == [("GPU Memory", 1, "Pass"), ("GPU Memory", 0, "Fail")]
    assert "cuCtxCreate Check DCGM and system logs" in rows[1]["reason"] and rows[1]["not_comparable"]
    assert rows[1]["component"] == "gpu_memory"


def test_diag_failure_points_where_its_reason_points():
    # the PCIe test failing with NvLink-down warnings only (DCGM_FR_NVLINK_DOWN, dcgm_errors.h "GPU %u's NvLink link %d
    # is currently down", filled as DCGM fills it): NVLink, not PCIe
    text = ('{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "PCIe", "results": '
            '[{"gpu_id": "0", "status": "Fail", "warnings": [{"warning": "GPU 0\'s NvLink link 0 is currently down"}, '
            '{"warning": "GPU 0\'s NvLink link 1 is currently down"}]}]}]}]}}')
    (r,) = [f.rule_view() for f in dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts if f.kind == "dcgm_diag_result"]
    assert (r["test"], r["result"], r["component"], r["cause"]) == ("PCIe", "Fail", "nvlink", "nvlink_down")
    # a reason that quotes no DCGM message knowledge names keeps the test's meaning
    text = ('{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "PCIe", "results": '
            '[{"gpu_id": "3", "status": "Fail", "warnings": [{"warning": "GPU 3 PCIe bandwidth below threshold"}]}]}]}]}}')
    (r,) = [f.rule_view() for f in dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts if f.kind == "dcgm_diag_result"]
    assert (r["component"], r["cause"]) == ("pcie", "pcie_link_degraded")


def test_diag_table_cut_inside_a_row_is_cut_short():
    # NVIDIA/autopilot#68's table cut inside its last row ('| CUDA', its result and closing bar
    # not shown; a paste stopping there is a prefix of the real text): the rows shown are read, the capture is cut short
    text = (A / "dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt").read_text()
    cut = text[:text.rindex(" Main Library")]
    res = dcgmi_diag.parse(Artefact(path="d.txt", text=cut, node="n1"))
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 12)] and res.errors == []
    assert {f.result for f in res.facts if f.kind == "dcgm_diag_result"} == {"Pass"}
    # must not: the same rows ending at a whole row (an excerpt of complete rows), or with the table's border
    for end in ("", "+---------------------------+------------------------------------------------+\n"):
        whole = text[:text.rindex("| CUDA Main Library")] + end
        assert dcgmi_diag.parse(Artefact(path="d.txt", text=whole, node="n1")).limits == [], end
    # a wrapped Warning cut inside its row is cut short too (stas00/ml-engineering's printed excerpt ends '| ts.')
    res = run(dcgmi_diag, "dcgmi_diag/mlengineering_r2_gpu_memory_thermal_violation.txt")
    assert [h.limit for h in res.limits] == ["cut_short"]


def test_diag_thermal_violation_points_at_cooling_unless_it_totals_0_0_seconds():
    # stas00/ml-engineering: GPU Memory failed on 13.3 s of thermal violations (DCGM_FR_THERMAL_VIOLATIONS_TS): cooling
    res = run(dcgmi_diag, "dcgmi_diag/mlengineering_r2_gpu_memory_thermal_violation.txt")
    (r,) = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result" and f.result == "Fail"]
    assert (r["gpu"], r["component"], r["cause"], r["not_comparable"]) == (0, "power_thermal", "gpu_thermal_slowdown", False)
    # NVIDIA/DCGM#242: a violation printed as 0.0 seconds fails the test too; under 0.05 s, not a cooling verdict
    msg = "GPU 0 Thermal violations totaling 0.0 seconds started at 30.0 seconds into the test for GPU 0"
    rows = [msg[i:i + 46] for i in range(0, len(msg), 46)]  # dcgmi wraps a cell every 46 characters, mid-word
    text = "| GPU Memory                | Fail - GPU: 0                                  |\n" + "".join(
        f"| {'Warning' if i == 0 else '':<25} | {row:<46} |\n" for i, row in enumerate(rows))
    (r,) = [f.rule_view() for f in dcgmi_diag.parse(Artefact(path="d.txt", text=text, node="n1")).facts if f.kind == "dcgm_diag_result"]
    assert (r["component"], r["not_comparable"]) == ("power_thermal", True) and "0.05 s" in r["why"]


def test_dcgm_log_reads_a_quoted_0_0_second_thermal_violation():
    # NVIDIA/DCGM#242's description quotes DCGM's message: read as DCGM's, explained as not a verdict on the cooling
    (f,) = run(dcgm_log, "dcgm_log/dcgm242_thermal_violation_0s_quoted.txt").facts
    assert f.kind == "dcgm_error" and f.not_comparable and "0.05 s" in f.why


def test_diag_json_results():
    text = '{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "PCIe", "results": [{"gpu_id": "3", "status": "Fail", "warnings": [{"warning": "GPU 3 PCIe bandwidth below threshold"}]}]}]}], "version": "3.3.5"}}'
    facts = dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts
    (r,) = [f.rule_view() for f in facts if f.kind == "dcgm_diag_result"]
    (run_,) = [f for f in facts if f.kind == "dcgm_diag_run"]  # the run: level from its tests, DCGM's version
    assert (run_.level, run_.dcgm_version, run_.failed, run_.source) == (2, "3.3.5", 1, "json")
    assert (r["test"], r["gpu"], r["result"], r["component"], r["source"]) == ("PCIe", 3, "Fail", "pcie", "json")


def test_dcgm_log_error_lines_and_quoted_messages():
    facts = [f.rule_view() for f in run(dcgm_log, "dcgm_log/dcgm272_nvbandwidth_mcutil.txt").facts]
    assert {(f.get("plugin"), f.get("gpu")) for f in facts} == {("nvbandwidth", 2), (None, None)}
    assert all(f["not_comparable"] for f in facts)
    assert run(dcgm_log, "dcgm_log/dcgm272_nvvs_debug.log").facts == []  # DEBUG lines: read, no facts


def test_dcgm_log_errors_dcgm_logs_about_itself():
    # NVIDIA/DCGM#136: the config package's diag config not read, and the exception DCGM logs after it
    r = run(dcgm_log, "dcgm_log/dcgm136_config_package_missing.log")
    assert [(f.evidence.line, f.kind) for f in r.facts] == [(1, "dcgm_self_message"), (2, "dcgm_self_message")]
    assert r.facts[1].message == "Exception: bad file: /usr/share/nvidia-validation-suite/diag-skus.yaml"
    # the hang detector's stale process: common/HangDetect.cpp's log_error("Failed to compute current fingerprint for
    # {}/{}", pid, tid.value_or(0)) (DCGM 4.4.2-4.5.x, line 193) in the log form of DCGM 4.5.0's hang detector lines
    # in NVIDIA/DCGM#272's nvvs.log ("[/builds/dcgm/dcgm/common/HangDetectMonitor.h:294] [HangDetectMonitor::run]")
    text = "2026-01-16 09:51:43.078 ERROR [3279516:3279541] Failed to compute current fingerprint for 3280376/0 [/builds/dcgm/dcgm/common/HangDetect.cpp:193] [HangDetect::IsHungImpl]\n"
    r = dcgm_log.parse(Artefact(path="nv-hostengine.log", text=text, node="n1"))
    assert [f.kind for f in r.facts] == ["dcgm_self_message"]
    # NVIDIA/DCGM#238: pulse_test refusing a compute capability it has no kernel for (the DEBUG lines read nothing)
    r = run(dcgm_log, "dcgm_log/dcgm238_pulse_test_compute_capability_12.log")
    assert [(f.evidence.line, f.kind) for f in r.facts] == [(3, "dcgm_self_message")]
    # an exception line that follows no self message stays DCGM's error, as does one a line further on
    text = ("2023-11-29 16:27:36.610 ERROR [74919:74919] Exception: bad file: /x.yaml [/a/b.cpp:1] [F]\n"
            "2023-11-29 16:27:36.609 ERROR [74919:74919] Could not read package diag config. Please ensure the datacenter-gpu-manager-config package is installed [/a/b.cpp:1] [F]\n"
            "2023-11-29 16:27:36.610 INFO  [74919:74919] Loaded packaged YAML with version: 1, spec: x [/a/b.cpp:1] [F]\n"
            "2023-11-29 16:27:36.610 ERROR [74919:74919] Exception: something else [/a/b.cpp:1] [F]\n")
    r = dcgm_log.parse(Artefact(path="nvvs.log", text=text, node="n1"))
    assert [f.kind for f in r.facts] == ["dcgm_error", "dcgm_self_message", "dcgm_error"]


def test_dcgm_log_optional_plugin_entry_point_dcgm120():
    # NVIDIA/DCGM#120 (DCGM 3.2, dcgmi diag -r 4): PluginLib::LoadFunction logs the optional ShutdownPlugin's absence at
    # ERROR; the third line lost its year's first digit in the paste and is still DCGM's line
    r = run(dcgm_log, "dcgm_log/dcgm120_shutdownplugin_optional_and_config_missing.log")
    assert [(f.evidence.line, f.kind) for f in r.facts] == [(1, "dcgm_self_message"), (2, "dcgm_self_message"),
                                                          (4, "dcgm_self_message"), (6, "dcgm_self_message")]
    assert r.facts[2].message.startswith("Couldn't load a definition for ShutdownPlugin in plugin libDiagnostic.so")
    # a required entry point that is missing fails the plugin: DCGM's error (CONSTRUCTED from the same format);
    # DCGM 4.6's wording names an optional one itself (log_verbose, PluginLib.cpp LoadFunction)
    text = ("2023-10-26 12:30:42.825 ERROR [4190:4190] Couldn't load a definition for RunTest in plugin libDiagnostic.so: "
            "./libDiagnostic.so: undefined symbol: RunTest [/a/PluginLib.cpp:237] [PluginLib::LoadFunction]\n"
            "2026-01-16 09:54:30.534 VERB  [1:1] Couldn't load an optional definition for ShutdownPlugin in plugin "
            "libpcie.so: './libpcie.so: undefined symbol: ShutdownPlugin' [/a/PluginLib.cpp:290] [PluginLib::LoadFunction]\n")
    r = dcgm_log.parse(Artefact(path="nvvs.log", text=text, node="n1"))
    assert [f.kind for f in r.facts] == ["dcgm_error"]


def test_dcgm_log_profiling_refusals_dcgm218():
    # NVIDIA/DCGM#218: InitLop's refusal of the L4 (arch 8, no gpuId on its line), then ValidateGpuArch's
    # of the H100 (the DEBUG 'chip arch 9' line two lines before gives arch and gpuId); DEBUG lines read, no fact
    r = run(dcgm_log, "dcgm_log/dcgm218_profiling_refuses_ada_hopper_4_1_1.log")
    assert [(f.evidence.line, f.kind, f.arch, f.arch_name, f.profiled_generation, f.gpu, f.supported) for f in r.facts] == [
        (3, "dcgm_profiling_refused", 8, "Ada (architecture 8)", True, None, None),
        (9, "dcgm_profiling_refused", 9, "Hopper (architecture 9)", True, 4, "Volta, Turing, Ampere or Ada")]
    # an ERROR 'DCP metrics ...' line whose chip-arch line is more than 3 lines before: architecture not given
    text = ("2025-01-31 09:26:06.613 DEBUG [1:2] [[Profiling]] gpuId 0 chip arch 4 is not Volta, Turing or Ampere. [/a.cpp:1] [F]\n"
            + "2025-01-31 09:26:06.613 DEBUG [1:2] x [/a.cpp:1] [F]\n" * 3
            + "2025-01-31 09:26:06.613 ERROR [1:2] [[Profiling]] DCP metrics are supported for Volta, Turing or Ampere GPUs architectures only [/a.cpp:1] [F]\n")
    (f,) = dcgm_log.parse(Artefact(path="nv-hostengine.log", text=text, node="n1")).facts
    assert (f.arch, f.profiled_generation, f.arch_name) == (None, False, "an architecture the log does not give")


def test_dcgm_log_timeless_2x_form_gpu_monitoring_tools194():
    # DCGM 2.x's line without the time: read where [pid:tid] and the source location are both there
    (f,) = run(dcgm_log, "dcgm_log/gpu_monitoring_tools194_nvswitch_no_data_2x.log").facts
    assert (f.kind, f.message) == ("dcgm_self_message", "ReadNvSwitchStatusAllSwitches() returned No data is available")
    assert not dcgm_log.detect("ERROR [3468:4824] something went wrong\n")  # no source location: not DCGM's form


def test_exporter_scrape_through_the_live_builders():
    res = run(dcgm_exporter_scrape, "dcgm_exporter_scrape/dcgm_exporter326_xid_fb.txt")
    kinds = {f.kind for f in res.facts}
    assert "gpu_info" in kinds and "xid_event" not in kinds  # the Xid gauge at 0 is no Xid
    info = next(f for f in res.facts if f.kind == "gpu_info")
    assert info.node == "debian" and info.pci_bus_id == "0000:08:00.0" and info.evidence.line == 3
    assert info.id == "dcgm_exporter_scrape/dcgm_exporter326_xid_fb.txt:3:gpu_info" and not res.errors


def test_exporter_scrape_without_pci_bus_id_is_recognised_not_read():
    # dcgm-exporter's own README Quickstart: only gpu and UUID labels: nothing can be tied to a GPU
    res = run(dcgm_exporter_scrape, "dcgm_exporter_scrape/dcgm_exporter_readme_quickstart_no_pci_bus_id.txt")
    assert (res.facts, res.errors, res.lines_used) == ([], [], 0)
    # a non-zero Xid in that form (the README's labels, the Xid family) is never dropped: a parse problem names it
    text = ('DCGM_FI_DEV_XID_ERRORS{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52"} 79\n'
            'DCGM_FI_DEV_XID_ERRORS{gpu="1", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e53"} 0\n')
    res = dcgm_exporter_scrape.parse(Artefact(path="m.txt", text=text, node="n1"))
    assert res.facts == [] and res.lines_used == 0
    assert [(e.line, "Xid 79 on GPU 0" in e.message) for e in res.errors] == [(1, True)]


def test_exporter_scrape_cut_inside_its_last_sample_is_cut_short():
    # NVIDIA/dcgm-exporter#736's scrape as the stored excerpt ends: DCGM_FI_DEV_FB_FREE{gpu="0",UUI
    head = ('DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-fc60126e-514d-3522-2828-c5daa8e99d85",pci_bus_id="00000000:B1:00.0",'
            'device="nvidia1",modelName="NVIDIA RTX 2000 Ada Generation",hostname="dcgm-exporter-wwwjh"} 11275\n')
    res = dcgm_exporter_scrape.parse(Artefact(path="m.txt", text=head + 'DCGM_FI_DEV_FB_FREE{gpu="0",UUI\n', node="n1"))
    assert res.errors == [] and [(h.limit, h.line) for h in res.limits] == [("cut_short", 2)]
    # the same line inside the scrape: a parse problem
    res = dcgm_exporter_scrape.parse(Artefact(path="m.txt", text='DCGM_FI_DEV_FB_FREE{gpu="0",UUI\n' + head, node="n1"))
    assert [e.line for e in res.errors] == [1] and not res.limits


def test_dcgm_log_health_incident_dcgm270():
    r = run(dcgm_log, "dcgm_log/dcgm270_health_thermal_warning.log")
    (h,) = r.facts
    assert (h.kind, h.result, h.system, h.reason, h.gpu, h.component, h.cause, h.severity) == (
        "dcgm_health_incident", "WARNING", "Thermal", "DCGM_FR_CLOCKS_EVENT_THERMAL", 2, "power_thermal",
        "gpu_thermal_slowdown", "warning")
    assert r.errors == [] and r.lines_used == 1


def test_dcgm_health_messages_of_every_version_and_system():
    # DcgmHealthWatch::SetResponse's format with DCGM_FR_*_MSG texts (dcgm_errors.h), full log prefix
    pre = "2024-02-01 14:12:01.205 ERROR [9596:9598] [[Health]] "
    post = " [/workspaces/dcgm/modules/health/DcgmHealthWatch.cpp:890] [DcgmHealthWatch::SetResponse]"
    rows = [
        ("FAILURE", "NVLink", "GPU 3's NvLink link 5 is currently down", "DCGM_FR_NVLINK_DOWN", 3, "nvlink_down"),
        ("WARNING", "PCIe", "Detected more than 8 PCIe replays per minute for GPU 0 : 13", "DCGM_FR_PCI_REPLAY_RATE", 0,
         "pcie_replay_errors"),
        ("WARNING", "Thermal", "Detected clock throttling due to thermal violation in GPU 1.", "DCGM_FR_CLOCK_THROTTLE_THERMAL",
         1, "gpu_thermal_slowdown"),  # DCGM 3.2's wording
        ("FAILURE", "Memory", "Detected 2 volatile double-bit ECC error(s) in GPU 4.", "DCGM_FR_VOLATILE_DBE_DETECTED", 4,
         "ecc_uncorrectable"),
        ("FAILURE", "Memory", "Detected XID 48 for GPU 6", "DCGM_FR_XID_ERROR", 6, "ecc_uncorrectable"),  # the system's
        ("FAILURE", "NVSwitch fatal errors", "Detected fatal errors on NvSwitch 2 link 7", "DCGM_FR_NVSWITCH_FATAL_ERROR",
         None, "nvswitch_error"),
        ("WARNING", "Power", "a message DCGM may add later", None, None, "gpu_power_cap_throttle"),
    ]
    text = "".join(f"{pre}Detected a {res} in health system {sys}: '{msg}'{post}\n" for res, sys, msg, *_ in rows)
    r = dcgm_log.parse(Artefact(path="nv-hostengine.log", text=text, node="n1"))
    got = [(f.result, f.system, f.reason, f.gpu, f.cause) for f in r.facts]
    assert got == [(res, sys, reason, gpu, cause) for res, sys, _m, reason, gpu, cause in rows]
    assert [f.kind for f in r.facts] == ["dcgm_health_incident"] * len(rows)  # not dcgm_error too
    bad = dcgm_log.parse(Artefact(path="x", text="Detected a WARNING in health system Quantum: 'x'\n", node="n1"))
    assert bad.facts == [] and len(bad.errors) == 1


def test_diag_json_nvvs13_shape_from_dcgm_repo():
    """nvvs 1.3's JSON (DCGM's own testing/TestDiagManagerStrings.h, initial commit): upper-case
    statuses, one result for "gpu_ids": "0,1,2,3" whose warnings each name their GPU, warnings as
    strings or null."""
    res = run(dcgmi_diag, "dcgmi_diag/dcgm_repo_nvvs13_sm_stress_fail.json")
    assert not res.errors
    rows = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result"]
    fails = [(r["test"], r.get("gpu"), r["reason"]) for r in rows if r["result"] == "Fail"]
    assert [(t, g) for t, g, _ in fails] == [("sm_stress", 0), ("sm_stress", 2), ("sm_stress", 3)]
    assert fails[1][2] == "Max stress level of 1096.5 did not exceed desired stress level of 3000.0 for GPU 2"
    assert ("memory", 0, "Skip") in {(r["test"], r.get("gpu"), r["result"]) for r in rows}
    assert ("targeted_power", None, "Skip") in {(r["test"], r.get("gpu"), r["result"]) for r in rows}  # "warnings": null
    (run_,) = [f for f in res.facts if f.kind == "dcgm_diag_run"]
    assert (run_.failed, run_.dcgm_version) == (3, None)  # "version": "1.3" is nvvs's own, not DCGM's


def test_diag_json_per_gpu_shape_from_dcgm_repo():
    """The same file's PER_GPU_JSON at DCGM 4.6.0: one result per GPU, warnings as objects."""
    res = run(dcgmi_diag, "dcgmi_diag/dcgm_repo_per_gpu_sm_stress_fail.json")
    rows = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result"]
    sm = {r.get("gpu"): r["result"] for r in rows if r["test"] == "sm_stress"}
    assert sm == {0: "Fail", 1: "Pass", 2: "Fail", 3: "Fail"}
    (mem0,) = [r for r in rows if r["test"] == "memory" and r.get("gpu") == 0]
    assert mem0["result"] == "Skip" and mem0["reason"].startswith("ECC memory on GPU 0 is not currently active")


def _diag_json(text):
    res = dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1"))
    rows = [(f.test, f.gpu, f.result, f.reason) for f in res.facts if f.kind == "dcgm_diag_result"]
    runs = [f for f in res.facts if f.kind == "dcgm_diag_run"]
    return rows, runs, res.errors


def test_diag_json_dcgm2_string_warnings_and_dcgm3_deployment_entries():
    # DCGM 2.x dcgmi/Diag.cpp: "gpu_ids" per GPU and "warnings" a string
    rows, _, _ = _diag_json('{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "GPU Memory", '
                            '"results": [{"gpu_ids": "1", "status": "Fail", "warnings": "GPU 1 had uncorrectable memory errors"}]}]}]}}')
    assert rows == [("GPU Memory", 1, "Fail", "GPU 1 had uncorrectable memory errors")]
    # DCGM 3.x: a Deployment entry's message under "warnings" (warningEntry[NVVS_WARNINGS]), versions at the top
    rows, runs, _ = _diag_json('{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Deployment", "tests": [{"name": "Persistence Mode", '
                               '"results": [{"gpu_id": 0, "status": "Fail", "warnings": [{"warnings": "Persistence mode for GPU 0 is disabled.", "error_id": 27}]}]}]}]}, '
                               '"version": "3.3.5", "Driver Version Detected": "535.104.05"}')
    assert rows == [("Persistence Mode", 0, "Fail", "Persistence mode for GPU 0 is disabled.")]
    assert (runs[0].dcgm_version, runs[0].driver_version) == ("3.3.5", "535.104.05")


def test_diag_json_dcgm4_entities_metadata_summary_and_iterations():
    one = ('{"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": ['
           '{"name": "memory", "results": [{"entity_group": "GPU", "entity_group_id": 1, "entity_id": 2, "status": "Fail", '
           '"warnings": [{"warning": "GPU 2 had uncorrectable memory errors", "error_id": 3}]}], "test_summary": {"status": "Fail"}}, '
           '{"name": "cpu_eud", "results": [{"entity_group": "CPU", "entity_group_id": 7, "entity_id": 0, "status": "Pass"}]}, '
           '{"name": "pcie", "test_summary": {"status": "Skip"}}]}]}, '
           '"metadata": {"version": "4.2.3", "Driver Version Detected": "570.86.15"}}')
    rows, runs, errors = _diag_json(one)
    assert rows == [("memory", 2, "Fail", "GPU 2 had uncorrectable memory errors"), ("cpu_eud", None, "Pass", None), ("pcie", None, "Skip", None)]
    assert (runs[0].dcgm_version, runs[0].driver_version, runs[0].failed) == ("4.2.3", "570.86.15", 1) and not errors
    rows, _, _ = _diag_json('{"iterations": [' + one + ", " + one + '], "Overall Result": "Fail"}')
    assert [r[:3] for r in rows if r[2] == "Fail"] == [("memory", 2, "Fail")] * 2


def test_diag_cpu_eud_results_are_the_cpus_not_all_gpus():
    # DCGM 4 dcgmi/Diag.cpp HelperDisplayEntityResults: fmt::format("{}{}: {}", group, entityId, result) and
    # fmt::format("{}: {}{}", "Warning", group, entityId); the rows CONSTRUCTED from that format (no pasted cpu_eud
    # failure in an even thread): a CPU's failure is CPU0's, on the host, never "all GPUs"
    text = ("+-----  Hardware  ----------+------------------------------------------------+\n"
            "| cpu_eud                   | Fail                                           |\n"
            "|                           | CPU0: Fail                                     |\n"
            "| Warning: CPU0             | CPU EUD test failed                            |\n"
            "|                           | CPU1: Pass                                     |\n"
            "| memory                    | Pass                                           |\n"
            "|                           | GPU0: Pass                                     |\n"
            "+---------------------------+------------------------------------------------+\n")
    res = dcgmi_diag.parse(Artefact(path="d.txt", text=text, node="n1"))
    rows = [(f.test, f.gpu, f.gpu_name, f.result, f.reason, f.component, f.cause) for f in res.facts if f.kind == "dcgm_diag_result"]
    assert rows == [("cpu_eud", None, "CPU0", "Fail", "CPU EUD test failed", "host", "host_hardware_error"),
                    ("cpu_eud", None, "CPU1", "Pass", None, "host", "host_hardware_error"),
                    ("memory", 0, "GPU0", "Pass", None, "gpu_memory", "gpu_hardware_fault")]
    (run,) = [f for f in res.facts if f.kind == "dcgm_diag_run"]
    assert (run.passed, run.failed) == (2, 1) and not res.errors
    # the same in -j (HelperJsonAddResult: entity_group "CPU", entity_id 0)
    res = dcgmi_diag.parse(Artefact(path="d.json", node="n1", text=(
        '{"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "cpu_eud", "results": '
        '[{"entity_group": "CPU", "entity_group_id": 7, "entity_id": 0, "status": "Fail", "warnings": '
        '[{"warning": "CPU EUD test failed", "error_id": 95, "error_category": 7, "error_severity": 2}]}]}]}]}}')))
    (f,) = [f for f in res.facts if f.kind == "dcgm_diag_result"]
    assert (f.gpu, f.gpu_name, f.result, f.component) == (None, "CPU0", "Fail", "host")
    # must not: a GPU's entity row and a bare Warning stay the GPU's
    text = ("| memory                    | Fail                                           |\n"
            "|                           | GPU1: Fail                                     |\n"
            "| Warning: GPU1             | GPU 1 had uncorrectable memory errors          |\n"
            "+---------------------------+------------------------------------------------+\n")
    (f,) = [f for f in dcgmi_diag.parse(Artefact(path="d.txt", text=text, node="n1")).facts if f.kind == "dcgm_diag_result"]
    assert (f.gpu, f.gpu_name, f.component, f.reason) == (1, "GPU1", "gpu_memory", "GPU 1 had uncorrectable memory errors")


def test_diag_json_error_id_is_read_through_dcgms_catalogue():
    # DCGM's own per-GPU nvvs JSON (testing/TestDiagManagerStrings.h PER_GPU_JSON, DCGM 4.6.0): each warning's
    # "error_id" is dcgm_errors.h's code: 55 DCGM_FR_ECC_DISABLED on memory, 48 DCGM_FR_TEST_DISABLED on memory_bandwidth
    res = run(dcgmi_diag, "dcgmi_diag/dcgm_repo_per_gpu_sm_stress_fail.json")
    got = {(f.test, f.gpu): (f.result, f.error_code, f.error_text) for f in res.facts if f.kind == "dcgm_diag_result"}
    assert got[("memory", 0)] == ("Skip", "DCGM_FR_ECC_DISABLED", "ECC memory is disabled right now")
    assert got[("memory_bandwidth", 3)] == ("Skip", "DCGM_FR_TEST_DISABLED", "This test is disabled for this GPU")
    assert got[("diagnostic", 1)][1] == "DCGM_FR_UNKNOWN"
    # a failure whose warning text knowledge does not match takes its part from the code (DCGM 4's shape,
    # CONSTRUCTED: error_id 14 DCGM_FR_NVLINK_DOWN -> NVLink, not the PCIe the test exercises)
    def one(warnings):
        text = ('{"DCGM Diagnostic": {"test_categories": [{"category": "Integration", "tests": [{"name": "pcie", "results": '
                '[{"entity_group": "GPU", "entity_id": 3, "status": "Fail", "warnings": ' + warnings + '}]}]}]}}')
        (f,) = [f for f in dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts if f.kind == "dcgm_diag_result"]
        return f.gpu, f.component, f.cause, f.error_code, f.error_text
    assert one('[{"warning": "link check failed", "error_id": 14, "error_category": 11, "error_severity": 4}]') == (
        3, "nvlink", "nvlink_down", "DCGM_FR_NVLINK_DOWN", "NVLink is down")
    # must not: a code this catalogue lacks is named as a number, the test's part stays; DCGM 2.x's strings have none
    assert one('[{"warning": "link check failed", "error_id": 140}]') == (3, "pcie", "pcie_link_degraded", "error_id 140", None)
    assert one('"GPU 3 bandwidth too low"') == (3, "pcie", "pcie_link_degraded", None, None)


def test_diag_json_value_of_another_type_is_one_problem():
    for text in ('{"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": "memory"}]}}',
                 '{"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "memory", "results": [7]}]}]}}',
                 '{"DCGM Diagnostic": []}', '{"iterations": [3, {"DCGM Diagnostic": {}}]}'):
        _, _, errors = _diag_json(text)
        assert len(errors) == 1, text


def test_diag_json_real_dcgmi_r3_pass_dcgm2():
    """A real `dcgmi diag -r 3 -j` (microsoft/VirtualClient's example, DCGM 2.x on one GPU): every
    test read, none failed; the level is 3 although a skipped 'EUD Test' (level 4) is listed."""
    res = run(dcgmi_diag, "dcgmi_diag/virtualclient_r3_pass_dcgm2.json")
    rows = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result"]
    assert len(rows) == 16 and {r["result"] for r in rows} == {"Pass", "Skip"} and not res.errors
    assert {r["test"]: r.get("gpu") for r in rows if r["category"] == "Stress"} == {"Targeted Stress": 0, "Targeted Power": 0, "Memory Bandwidth": 0}
    (run_,) = [f for f in res.facts if f.kind == "dcgm_diag_run"]
    assert (run_.level, run_.passed, run_.skipped, run_.failed) == (3, 15, 1, 0)


def test_diag_json_body_of_another_type_is_one_problem_on_a_real_file():
    res = run(dcgmi_diag, "dcgmi_diag/virtualclient_incorrect_shape.json")  # "DCGM GPU Diagnostic": [...]
    assert [f.kind for f in res.facts] == [] and len(res.errors) == 1


def _incomplete(text):
    assert dcgmi_diag.detect(text)
    res = dcgmi_diag.parse(Artefact(path="diag.txt", text=text, node="n1"))
    return [(f.evidence.line, f.message) for f in res.facts if f.kind == "dcgm_error"], res.facts


def test_diag_that_did_not_complete_is_a_dcgm_error_in_every_releases_words():
    # dcgmi/Diag.cpp's failure line without -j (the text -j puts in runtime_error), each release's format filled in with
    # DCGM_ST_NVVS_ERROR (-30, errorString "DCGM GPU Diagnostic returned an error"): no result says the GPUs are sound
    got, facts = _incomplete("$ dcgmi diag -r 3\n"
                             "Error: Unable to complete diagnostic for group 0. Return: (-30) : DCGM GPU Diagnostic returned an error\n")
    assert got == [(2, "Error: Unable to complete diagnostic for group 0. Return: (-30) : DCGM GPU Diagnostic returned an error")]
    assert [f.kind for f in facts] == ["dcgm_error"]  # no diagnostic run read from it
    # 2.x-4.0: "Return: (N) <errorString>."
    got, _ = _incomplete("Error: Unable to complete diagnostic for group 2. Return: (-30) DCGM GPU Diagnostic returned an error.\n")
    assert got == [(1, "Error: Unable to complete diagnostic for group 2. Return: (-30) DCGM GPU Diagnostic returned an error.")]
    # 4.1+: the response's system errors on the lines under it are its message; a table after a blank line is not
    got, _ = _incomplete("Error: Unable to complete diagnostic for entities gpu:0,gpu:1. Return: (-30) : DCGM GPU Diagnostic "
                         "returned an error\nUnable to create CUDA context\n\n| Diagnostic | Result |\n")
    assert got == [(1, "Error: Unable to complete diagnostic for entities gpu:0,gpu:1. Return: (-30) : DCGM GPU Diagnostic "
                       "returned an error Unable to create CUDA context")]
    # dcgmi/MnDiag.cpp's multi-node form, and the bare one (no group, no entities)
    got, _ = _incomplete("Error: Unable to complete multi-node diagnostic on host node-7. Return: (DCGM GPU Diagnostic returned "
                         "an error) -30\nError: Unable to complete diagnostic. Return: (-37) : Diagnostic timed out\n")
    assert [n for n, _ in got] == [1, 2]


def test_a_sentence_about_an_incomplete_diagnostic_is_not_dcgmis_line():
    assert not dcgmi_diag.detect("I ran dcgmi and it said Unable to complete diagnostic, any idea?\n")
    assert not dcgmi_diag.detect("Successfully ran diagnostic for group.\n")


def test_dcgm_log_api_version_mismatch_and_its_call_chain_dcgm314():
    """NVIDIA/DCGM#314: CheckVersion's 'Version mismatch' line and the ERROR lines the same thread logs in the
    same millisecond (the failed call's chain) are version mismatches; the INFO line is read past; dcgmi's
    'Return: API version mismatch' lines are read (and recognised by the one-pass signatures) too."""
    res = run(dcgm_log, "dcgm_log/dcgm314_health_api_version_mismatch.txt")
    assert [(f.kind, f.version_mismatch) for f in res.facts] == [("dcgm_error", True)] * 4 and not res.errors
    text = (A / "dcgm_log/dcgm314_health_api_version_mismatch.txt").read_text().splitlines()
    other = "\n".join([text[1], text[4].replace(".273 ERROR", ".274 ERROR"), text[3].replace("45271]", "45272]")]) + "\n"
    got = dcgm_log.parse(Artefact(path="x", text=other, node="n1")).facts
    assert [f.version_mismatch for f in got] == [True, False, False]
    text = (A / "dcgm_log/dcgm314_dcgmi_health_version_mismatch.txt").read_text()
    assert any(s.search(text) for s in dcgm_log.SIGNATURES)
    got = dcgm_log.parse(Artefact(path="x", text=text, node="n1")).facts
    assert [(f.message, f.version_mismatch) for f in got] == [
        ("Error: Unable to set health watches. Return: API version mismatch", True),
        ("Error: Unable to get health watches. Return: API version mismatch", True)]


def test_dcgm_log_getlatestsample_statuses_are_self_messages_gpu_monitoring_tools146():
    # DcgmCacheManager::GetMultipleLatestSamples logs each field's status written into a client's reply
    # ("GetLatestSample returned {} for entityId {} groupId {} fieldId {}", errorString()): NO_DATA (no sample
    # yet: fieldId 230, the Xid field) and NOT_SUPPORTED (the GPU lacks the field) are DCGM's noise
    res = run(dcgm_log, "dcgm_log/gpu_monitoring_tools146_getlatestsample_no_data_not_supported.log")
    assert [(f.kind, f.evidence.line) for f in res.facts] == [("dcgm_self_message", 1), ("dcgm_self_message", 2)]
    assert "fieldId 230" in res.facts[0].message and "Feature not supported" in res.facts[1].message
    # another status of the same call stays an error (constructed: the line's form with DCGM_ST_GPU_IS_LOST's text)
    text = ("2021-07-15 08:17:23.624 ERROR [1:24] GetLatestSample returned GPU is lost for entityId 0 groupId 1 "
            "fieldId 150 [/workspaces/dcgm-rel_dcgm_2_1-postmerge/dcgmlib/src/DcgmCacheManager.cpp:4395] "
            "[DcgmCacheManager::GetMultipleLatestSamples]\n")
    (f,) = dcgm_log.parse(Artefact(path="nv-hostengine.log", text=text, node="n1")).facts
    assert f.kind == "dcgm_error"


def test_profiling_library_error_names_no_cause_of_its_own():
    # DCGM_ST_PROFILING_LIBRARY_ERROR (NVIDIA/DCGM#56's line): not comparable, and no cause shown (another profiler, a GPU
    # the library cannot profile, a driver fault); nvbandwidth's MCUTIL check names what disturbed the test
    [e] = [f for f in run(dcgm_log, "dcgm_log/dcgm56_profiling_module_error.txt").facts if f.kind == "dcgm_error"]
    assert (e.not_comparable, e.cause_shown) == (True, False)
    errs = [f for f in run(dcgm_log, "dcgm_log/dcgm272_nvbandwidth_mcutil.txt").facts if f.kind == "dcgm_error"]
    assert errs and all(f.cause_shown for f in errs)

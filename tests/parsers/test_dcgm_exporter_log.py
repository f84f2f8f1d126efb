"""dcgm_exporter_log: dcgm-exporter's own log in logrus, logrus-on-a-terminal, slog and Go log forms."""
from __future__ import annotations

import pytest
from parse_helper import FIX, parse_fixture

from stethoscope.facts.parsers import dcgm_exporter_log
from stethoscope.facts.parsers.base import Artefact


def _errors(r):
    return [(f.evidence.line, f.level, f.message, f.exiting) for f in r.facts]


@pytest.mark.parametrize("rel, want, used", [
    # a start without errors: every line read, no fact (it checks no GPU)
    ("dcgm_exporter_log/started_logrus_dcgmexporter202.log", [], 9),
    ("dcgm_exporter_log/fatal_logrus_dcgmexporter34.log",
     [(4, "fatal", "Error starting nv-hostengine: DCGM initialization error", True)], 2),
    # the NVML line is nvml_init's; the unquoted last message stays this reader's
    ("dcgm_exporter_log/nvml_not_found_slog_dcgmexporter612_mixed.log", [(9, "error", "ERROR_LIBRARY_NOT_FOUND", False)], 9),
    ("dcgm_exporter_log/nvml_not_found_golog_dcgmexporter450_mixed.log", [], 10),
    # error lines only, no start-up message: DCGM's lost-connection errorString makes them the exporter's
    ("dcgm_exporter_log/gmt188_hostengine_disconnected.log",
     [(n, "error", "Failed to collect metrics with error: Failed to collect metrics with error: Error getting the latest value "
       "for fields: Host engine connection invalid/disconnected", False) for n in (1, 2)], 2),
    # the 1.x exporter script: nv-hostengine's own start failure is the exporter's end (it restarts after "Done")
    ("dcgm_exporter_log/gmt212_script_hostengine_sigusr1_timeout.log",
     [(3, "error", "nv-hostengine did not start (its daemon never reported that DCGM initialised): Got error 11 while waiting "
       "for SIGUSR1 from child process.", True)], 7),
    # the 1.x script's dcgmi dmon ended by itself (no "Caught signal" before its stop steps): the exporter exited
    # (NVIDIA/gpu-monitoring-tools#56; systemctl's fabricmanager line before it is not read)
    ("dcgm_exporter_log/gmt56_script_collection_ended_k80.log",
     [(4, "error", "the 1.x exporter's collection (dcgmi dmon) ended by itself and the exporter stopped; its nv-hostengine "
       "was not running by then (Unable to terminate host engine, it may not be running.)", True)], 6),
])
def test_real_logs(rel, want, used):
    r = parse_fixture(dcgm_exporter_log, rel)
    assert _errors(r) == want and r.lines_used == used and r.errors == []


def test_flag_value_refused_before_start():
    # NVIDIA/gpu-monitoring-tools#94: urfave/cli's refusal of the flag's environment value is the exporter's only line
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/gmt94_flag_env_value_not_int_pods_mixed.txt")
    assert _errors(r) == [(9, "fatal", 'could not parse ":9400" as int value for flag port: strconv.ParseInt: parsing ":9400": '
                              "invalid syntax", True)]
    # another Go tool's flag error without dcgm in sight is not this reader's
    assert not dcgm_exporter_log.detect('time="2024-01-01T00:00:00Z" level=fatal msg="could not parse \\"x\\" as int value for flag n: bad"\n')


def test_lost_hostengine_is_marked():
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/gmt188_hostengine_disconnected.log")
    assert [f.hostengine_lost for f in r.facts] == [True, True]
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/version_mismatch_errors_logrus_tty_gpumonitoringtools102.log")
    assert r.facts and not any(f.hostengine_lost for f in r.facts)


def test_terminal_form_and_a_pod_prefix():
    # CRAFTED: logrus's TTY form (TextFormatter "%s[%04d] %-44s") of pkg/cmd/app.go's "Starting dcgm-exporter" and its
    # recover()'s "Encountered a failure.", DCGM's CacheManager line between; then kubectl --prefix's pod name
    # (NVIDIA/dcgm-exporter#530's lines)
    text = ("INFO[0000] Starting dcgm-exporter                       \n"
            "CacheManager Init Failed. Error: -17\n"
            "ERRO[0000] Encountered a failure.\n")
    assert _errors(parse_fixture(dcgm_exporter_log, text=text)) == [(3, "error", "Encountered a failure.", True)]
    text = ('nvidia-dcgm-exporter-s9vsg time=2025-07-23T11:26:35.585Z level=INFO msg="Starting dcgm-exporter" Version=4.2.3-4.2.0\n'
            'nvidia-dcgm-exporter-s9vsg time=2025-07-23T11:26:35.781Z level=ERROR msg="Cannot init NVML library; err: Unknown Error"\n')
    r = parse_fixture(dcgm_exporter_log, text=text)
    assert r.facts == [] and r.lines_used == 2


@pytest.mark.parametrize("text", [
    # another Go tool's logrus lines (nvidia-container-toolkit) and a DCGM host-engine line: not this reader's
    'time="2024-05-01T10:00:00Z" level=error msg="failed to create CDI spec"\n',
    "2021-11-23 00:15:20.507 ERROR [76:76] DcgmHostEngineHandler::Init failed [/workspaces/x.cpp:1] [f]\n",
    # dcgmi's own answer to `dcgmi discovery -l` (quoted in a GPU Operator write-up, search index file 7217480835), no
    # logger's level: dcgmi's, not the exporter's
    "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n",
])
def test_near_misses_are_not_detected(text):
    assert not dcgm_exporter_log.detect(text)


def test_go_runtime_crash_ends_the_exporter():
    # NVIDIA/dcgm-exporter#318: the runtime's fatal signal during cgo execution after the exporter's start
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/cgo_sigsegv_logrus_dcgmexporter318.log")
    assert _errors(r) == [(12, "panic", "SIGSEGV: segmentation violation (signal arrived during cgo execution: in a C library "
                                        "the exporter called, DCGM's or the driver's)", True)]


def test_terminal_form_with_fields_after_the_message():
    # NVIDIA/dcgm-exporter#360: logrus's TTY form pads the message and prints the recover()'s stack as a field
    text = ("INFO[0000] Starting dcgm-exporter\n"
            'ERRO[0000] Encountered a failure.                        stacktrace="goroutine 1 [running]:\\nruntime/debug.Stack()\\n'
            '\\t/usr/local/go/src/runtime/debug/stack.go:24 +0x5e\\n"\n')
    assert _errors(parse_fixture(dcgm_exporter_log, text=text)) == [(2, "error", "Encountered a failure.", True)]


def test_pod_mapper_failure_is_the_exporters():
    # NVIDIA/dcgm-exporter#408 (3.3.8): no line says "dcgm" but Go's note after each failure; the transform's own
    # message makes the log the exporter's, the pod-resources failure is marked whether it sits in the message or in
    # logrus's error= field, and the net/http note is read with no fact
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/podmapper_pod_resources_exhausted_dcgmexporter408.log")
    assert [(f.evidence.line, f.level, f.pod_resources_failed, f.exiting) for f in r.facts] == [
        (1, "error", True, False), (3, "error", True, False), (4, "error", True, False)]
    assert r.facts[0].message.startswith("Failed to write response. error: failed to transform metrics for transform "
                                          "'podMapper'; err: failure getting pod resources; err: rpc error: code = ResourceExhausted")
    assert r.lines_used == 5
    # the collect error alone (the Go notes cut off) is still the exporter's
    line = (FIX / "dcgm_exporter_log/podmapper_pod_resources_exhausted_dcgmexporter408.log").read_text().splitlines()[2]
    (f,) = parse_fixture(dcgm_exporter_log, text=line + "\n").facts
    assert f.pod_resources_failed and "received message larger than max (4724552 vs. 4194304)" in f.message


def test_pod_mapper_near_misses():
    # another error of the exporter is not the pod mapper's; a transform failure word elsewhere is not the exporter's
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/gmt188_hostengine_disconnected.log")
    assert not any(f.pod_resources_failed for f in r.facts)
    assert not dcgm_exporter_log.detect('time="2024-01-01T00:00:00Z" level=error msg="failure getting pod resources rpc error"\n')


def test_error_then_fatal_of_the_same_failure_dcgm232():
    # NVIDIA/DCGM#232: the metrics file's read error logged by the function with its path, then by main (fatal)
    r = parse_fixture(dcgm_exporter_log, "dcgm_exporter_log/metrics_csv_invalid_dcgm232.log")
    assert [(f.evidence.line, f.level, f.exiting) for f in r.facts] == [(7, "fatal", True)]
    assert r.facts[0].message == "Could not read metrics file '/etc/dcp-metrics-included.csv': record on line 3: wrong number of fields"
    # two unrelated failures stay two
    text = ('time="2025-05-22T03:57:31Z" level=error msg="Could not read metrics file \'/etc/x.csv\': open /etc/x.csv: no such file"\n'
            'time="2025-05-22T03:57:31Z" level=fatal msg="Error starting nv-hostengine: DCGM initialization error"\n')
    assert [f.level for f in parse_fixture(dcgm_exporter_log, text=text).facts] == ["error", "fatal"]


def test_1x_script_stopped_by_a_signal_or_still_collecting_is_no_failure():
    # CONSTRUCTED from the script's own echoes (gpu-monitoring-tools exporters/prometheus-dcgm/dcgm-exporter): a
    # signal's trap before the stop steps is a stop asked for; a log that ends while collecting has not stopped
    head = "Starting NVIDIA host engine...\nCollecting metrics at /run/prometheus/dcgm.prom every 1000ms...\n"
    signalled = head + "Caught signal, terminating...\nStopping NVIDIA host engine...\nHost engine successfully terminated.\nDone\n"
    r = dcgm_exporter_log.parse(Artefact(path="log", text=signalled, node="n1"))
    assert _errors(r) == [] and r.lines_used == 6
    assert _errors(dcgm_exporter_log.parse(Artefact(path="log", text=head, node="n1"))) == []
    # NVIDIA/gpu-monitoring-tools#54's log (its host engine's first line is DCGM 1.x's, not read): the stop is read
    gmt54 = ("Starting NVIDIA host engine...\nFailed to start host engine server\n"
             "Collecting metrics at /run/prometheus/dcgm.prom every 1000ms...\nStopping NVIDIA host engine...\n"
             "Host engine successfully terminated.\nDone\n")
    assert [e[0] for e in _errors(dcgm_exporter_log.parse(Artefact(path="log", text=gmt54, node="n1")))] == [4]

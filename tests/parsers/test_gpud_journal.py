"""gpud_journal: gpud's own zap log lines and a checker's rows of gpud's states, as syslog carries them."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import gpud_journal


def test_gpud1238_vanished_process_and_relayed_state():
    r = parse_fixture(gpud_journal, "gpud_journal/gpud1238_processes_environ_gone_checker_drain.log")
    (err, state) = r.facts
    assert (err.kind, err.evidence.line, err.level, err.msg, err.process_exited) == (
        "gpud_log_error", 1, "warn", "error getting processes", True)
    assert (state.kind, state.evidence.line, state.component, state.health, state.reason, state.checks) == (
        "gpud_unhealthy_state", 2, "accelerator-nvidia-processes", "Unhealthy", "error getting processes", "gpu")
    assert r.lines_used == 2 and r.errors == []


def test_info_lines_and_other_errors():
    text = ('Apr 23 00:50:01 n1 gpud[3567]: {"level":"info","ts":"2026-04-23T00:50:01.1Z","caller":"log/log.go:175","msg":"checking"}\n'
            'Apr 23 00:50:02 n1 gpud[3567]: {"level":"error","ts":"2026-04-23T00:50:02.1Z","caller":"log/log.go:175",'
            '"msg":"failed to query","error":"nvml: Unknown Error"}\n')
    r = parse_fixture(gpud_journal, text=text)
    (f,) = r.facts  # the info line is read, no fact; an error that names no vanished process is gpud's error as it is
    assert (f.level, f.msg, f.error, f.process_exited) == ("error", "failed to query", "nvml: Unknown Error", False)
    assert r.lines_used == 2


def test_not_gpud():
    # a tab-separated row whose first column is no gpud component, and zap JSON of another program
    assert not gpud_journal.detect("disk0\tUnhealthy\tSMART failure\n")
    assert not gpud_journal.detect('{"level":"warn","ts":"2026-04-23T00:50:02.1Z","caller":"server/server.go:88","msg":"x"}\n')


def test_gpud944_component_reason_logged_as_message_is_the_component_state():
    # gpu-counts logs the reason it sets the component Unhealthy with as its error line: gpud reporting a GPU
    # missing, not gpud failing; the paste's comma before the closing brace (shortened by hand) is forgiven
    r = parse_fixture(gpud_journal, "gpud_journal/gpud944_gpu_count_mismatch.log")
    (f,) = r.facts
    assert (f.kind, f.evidence.line, f.component, f.health, f.reason, f.checks) == (
        "gpud_unhealthy_state", 1, "accelerator-nvidia-gpu-counts", "Unhealthy",
        "nvidia gpu count mismatch (lspci 8, expected 10)", "gpu")
    assert r.errors == []


def test_every_gpu_count_reason_form_and_a_matching_count():
    # component.go: "(lspci %d, expected %d)" and "(nvml %d, expected %d)" with Errorw; later "(found %d, expected %d)" with Warnw
    lines = [
        '{"level":"error","ts":"2025-06-20T19:55:30.809Z","caller":"log/log.go:102","msg":"nvidia gpu count mismatch (nvml 7, expected 8)"}',
        '{"level":"warn","ts":"2025-09-20T19:55:30.809Z","caller":"log/log.go:102","msg":"nvidia gpu count mismatch (found 1, expected 2)"}',
        '{"level":"info","ts":"2025-09-20T19:56:30.809Z","caller":"log/log.go:102","msg":"nvidia gpu count matching thresholds (8)"}',
        '{"level":"error","ts":"2025-09-20T19:57:30.809Z","caller":"log/log.go:102","msg":"error getting count of lspci","error":"exit status 1"}',
    ]
    r = parse_fixture(gpud_journal, text="\n".join(lines) + "\n")
    assert [(f.kind, f.evidence.line) for f in r.facts] == [
        ("gpud_unhealthy_state", 1), ("gpud_unhealthy_state", 2), ("gpud_log_error", 4)]
    assert r.lines_used == 4


def test_json_broken_elsewhere_stays_a_parse_error():
    text = '{"level":"error","ts":"2025-06-20T19:55:30.809Z","caller":"log/log.go:102","msg":"x",,}\n'
    r = parse_fixture(gpud_journal, text=text)
    assert r.facts == [] and len(r.errors) == 1

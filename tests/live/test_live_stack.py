"""The monitoring stack diagnoses itself, against a real Prometheus serving
fixtures/series/make_stack_series.py's recording: a dcgm-exporter target down (``up == 0``,
named by job and instance), GPU series gone stale on a target still scraped, a host without
dcgm-exporter, a fleet of mixed exporter versions (a target in the 1.x namespace among them), and a
Prometheus with no dcgm-exporter at all."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from promserver import ROOT, PromServer
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.observe import diagnose_prometheus, observe_server

sys.path.insert(0, str(ROOT / "fixtures" / "series"))
from make_stack_series import T2, T3, write  # noqa: E402

sys.path.pop(0)
AT, WINDOW = T2 + 3600, 3600


@pytest.fixture(scope="module")
def stack_url(tmp_path_factory):
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.skip("the prometheus and promtool binaries are absent (tests/setup_venv.sh installs Debian's prometheus)")
    folder = tmp_path_factory.mktemp("stack")
    data = folder / "data"
    for om in write(folder / "om"):
        subprocess.run([shutil.which("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(om), str(data)],
                       check=True, capture_output=True, timeout=120)
    server = PromServer(data, folder)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


def _by_rule(report) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in report.findings:
        out.setdefault(f.rule, []).append(f)
    return out


def test_target_down_stale_series_and_a_host_without_dcgm(stack_url):
    rep = diagnose_prometheus(stack_url, at=AT, window_s=WINDOW)
    got = _by_rule(rep)
    assert rep.verdict == "faulty"
    # s2's dcgm-exporter: up is 0 since T2+40m; named by job and instance, its stale GPUs not reported again
    (down,) = got["monitoring_scrape_target_down"]
    assert down.entity.node == "s2" and down.severity == "warning" and down.cause == "monitoring_target_down"
    assert "target s2:9400 (job dcgm)" in down.summary and "was 1 for 0.6" in down.summary
    assert "up" in down.evidence[0].path and 'instance="s2:9400"' in down.evidence[0].text
    # s3: scraped all hour, one of its two GPUs gone from the answer at T2+30m
    (stale,) = got["monitoring_series_stale"]
    assert stale.entity.node == "s3" and "1 of its 2 DCGM_FI_DEV_GPU_TEMP series have no sample now" in stale.summary
    # s5: node_exporter only, in a fleet with GPUs: information, not a fault
    (absent,) = got["monitoring_exporter_absent_on_node"]
    assert absent.entity.node == "s5" and absent.severity == "info"
    assert not any(f.entity.node in ("s1", "s4") for f in rep.findings)


def test_exporter_versions_are_reported(stack_url):
    obs = observe_server(stack_url, AT, WINDOW)
    variants = {(f.aspect, f.variant): f for f in obs.facts if f.kind == "exporter_variant"}
    old = variants[("metric_name", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS")]
    assert old.mixed and not old.newest and old.instances == 1 and old.example_instances == "s4:9400"
    assert variants[("metric_name", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS")].instances == 2  # s1, s3 (s2 is down)
    assert variants[("node_label", "Hostname")].mixed and variants[("node_label", "hostname")].newest
    ns = variants[("metric_namespace", "dcgm_gpu_temp")]
    assert ns.only_instances == 1 and ns.example_instances == "s6:9400" and ns.mixed


def test_mixed_and_legacy_exporter_names_are_findings_naming_the_targets(stack_url):
    got = _by_rule(diagnose_prometheus(stack_url, at=AT, window_s=WINDOW))
    mixed = {f.summary.split(" report ")[1].split(" while ")[0]: f for f in got["monitoring_exporter_versions_mixed"]}
    assert set(mixed) == {"the clock event reasons metric (DCGM field 112) as DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                          "the node label as Hostname"}
    assert all("(s4:9400)" in f.summary and f.severity == "info" and f.actions == ["ALIGN_EXPORTER_VERSIONS"]
               for f in mixed.values())
    (old,) = got["monitoring_exporter_old_namespace"]
    assert "(s6:9400) serve only the 1.x namespace" in old.summary and 'instance="s6:9400"' in old.evidence[0].text
    # s6 is a dcgm-exporter target (its anchor is dcgm_gpu_temp), not a host without one
    assert [f.entity.node for f in got["monitoring_exporter_absent_on_node"]] == ["s5"]
    assert "monitoring_exporter_old_metric_name" not in got  # mixed, not uniform: the other rule


def test_before_the_faults_nothing_is_down_or_stale(stack_url):
    # near miss: the window ends before s3's GPU drops out and s2's target goes down
    rep = diagnose_prometheus(stack_url, at=T2 + 25 * 60, window_s=1200)
    rules = {f.rule for f in rep.findings}
    assert "monitoring_scrape_target_down" not in rules and "monitoring_series_stale" not in rules
    assert rules <= {"monitoring_exporter_absent_on_node", "monitoring_exporter_versions_mixed", "monitoring_exporter_old_namespace"}


def test_prometheus_without_dcgm_exporter_is_faulty_and_says_so(stack_url):
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", stack_url, "--at", str(T3 + 1800), "--window", "30m", "-f", "json"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 1, res.output
    (f,) = [f for f in doc["findings"] if f["rule"] == "monitoring_exporter_absent"]
    assert "no dcgm-exporter target" in f["summary"] and f["actions"] == ["DEPLOY_EXPORTER"]


def test_a_selector_does_not_make_exporters_absent(stack_url):
    from stethoscope.facts.live.access import Access, parse_selector

    # --selector may be what hides dcgm-exporter: absence is not judged under one
    rep = diagnose_prometheus(stack_url, at=T3 + 1800, window_s=1800, access=Access(selector=parse_selector('{job="node"}')))
    assert not any(f.cause == "monitoring_exporter_absent" for f in rep.findings)

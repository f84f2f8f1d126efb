"""Trends toward the GPU's own limits, power cap with falling clocks, correctable ECC storm,
links that went down and up from state series (fixtures/series/make_series.py node8..node12,
each with a near miss), and the shape of the queries: range functions on the server."""
from __future__ import annotations

import pytest
from conftest import INCIDENT_AT, T1

from stethoscope.engine.live import diagnose_prometheus, observe
from stethoscope.facts.live.prom import Prom
from stethoscope.facts.live.signals import SIGNALS

NEW_RULES = {"gpu_temp_rising_to_limit", "gpu_power_pinned_clocks_falling", "ecc_correctable_storm",
             "ib_port_state_flapping", "nvlink_link_went_down"}


@pytest.fixture(scope="module")
def live(prom_url):
    return diagnose_prometheus(prom_url, at=T1 + 3600, window_s=3600)


def test_each_fault_fires_once_and_no_near_miss_does(live):
    got = sorted((f.rule, f.entity.node, f.entity.gpu or f.entity.hca) for f in live.findings if f.rule in NEW_RULES)
    assert got == [
        ("ecc_correctable_storm", "node10", "0000:18:00.0"),
        ("gpu_power_pinned_clocks_falling", "node9", "0000:18:00.0"),
        ("gpu_temp_rising_to_limit", "node8", "0000:18:00.0"),
        ("ib_port_state_flapping", "node12", "mlx5_0"),
        ("nvlink_link_went_down", "node11", "0000:18:00.0"),
    ]


def test_summaries_give_slope_limit_and_times(live):
    by = {f.rule: f for f in live.findings}
    hot = by["gpu_temp_rising_to_limit"]
    assert hot.cause == "gpu_overheating" and hot.severity == "warning"
    assert "rose 24.0 C/h to 84.0, 6.0 below its limit 90.0 (DCGM_FI_DEV_SLOWDOWN_TEMP)" in hot.summary
    cap = by["gpu_power_pinned_clocks_falling"]
    assert cap.cause == "gpu_power_cap_throttle" and "700.0 W limit" in cap.summary and "1980.0 -> 1600.0 MHz" in cap.summary
    assert "600.0 per hour" in by["ecc_correctable_storm"].summary
    # the recording: down 20:10-20:12 and 20:40-20:41, sampled by the 30 s subquery step
    flap = by["ib_port_state_flapping"]
    assert flap.cause == "ib_link_flapping" and "from 2024-04-06T20:10:00Z to 2024-04-06T20:40:30Z" in flap.summary
    nv = by["nvlink_link_went_down"]
    assert nv.cause == "nvlink_down" and "NVLink 3 inactive from 2024-04-06T20:20:00Z to 2024-04-06T20:24:30Z" in nv.summary
    # evidence quotes what the server computed, with the exporter's labels
    assert 'nvlink="3"' in nv.evidence[0].text and "down_from=" in nv.evidence[0].text


def test_a_flap_counted_by_link_downed_is_one_finding(live):
    node7 = [f for f in live.findings if f.entity.node == "node7" and f.cause == "ib_link_flapping"]
    assert [f.rule for f in node7] == ["ib_link_flapping"]


def test_a_port_still_down_is_down_not_flapping(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    assert [f.cause for f in live.findings if f.entity.hca] == ["ib_port_down"]


def test_one_query_per_family_raw_samples_only_for_utilisation(prom_url, monkeypatch):
    seen: list[tuple[str, int]] = []
    real = Prom._ask

    def counting(self, query, at):
        rows = real(self, query, at)
        seen.append((query, sum(len(r.get("values", [])) or 1 for r in rows)))
        return rows
    monkeypatch.setattr(Prom, "_ask", counting)
    obs = observe(Prom(prom_url, timeout=5), T1 + 3600, 3600)
    assert len(seen) == len(SIGNALS) and obs.facts
    raw = [q for q, _ in seen if q.endswith("[3600s]")]
    assert raw == ["DCGM_FI_DEV_GPU_UTIL[3600s]"]
    points = dict(seen)
    # a gauge comes back as six numbers per GPU, not 61 samples; Xid as each GPU's last point
    assert points[next(q for q in points if "DCGM_FI_DEV_GPU_TEMP[3600s]" in q)] == 18 * 6
    assert points[next(q for q in points if q.startswith("(DCGM_FI_DEV_XID_ERRORS > 0"))] == 18
    assert points["DCGM_FI_DEV_GPU_UTIL[3600s]"] == 18 * 61

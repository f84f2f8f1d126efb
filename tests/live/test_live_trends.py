"""Trends toward the GPU's own limits, power cap with falling clocks, correctable ECC storm,
links that went down and up from state series (fixtures/series/make_series.py node8..node12,
each with a near miss), and the shape of the queries: range functions on the server."""
from __future__ import annotations

import pytest
from conftest import INCIDENT_AT, T1

from stethoscope.engine.live.observe import DEFAULT_MAX_QUERIES, diagnose_prometheus, observe
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
    # node8's GPU and its HBM both climb: one finding, both series as evidence, the summary of one of them
    assert ("rose 24.0 C/h to 84.0, 6.0 below its limit 90.0 (DCGM_FI_DEV_SLOWDOWN_TEMP)" in hot.summary
            or "rose 24.04 C/h to 90.0, 5.0 below its limit 95.0 (DCGM_FI_DEV_MEM_MAX_OP_TEMP)" in hot.summary)
    assert {m for m in ("DCGM_FI_DEV_GPU_TEMP{", "DCGM_FI_DEV_MEMORY_TEMP{") if any(m in e.text for e in hot.evidence)} == {
        "DCGM_FI_DEV_GPU_TEMP{", "DCGM_FI_DEV_MEMORY_TEMP{"}
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


def test_the_server_screens_and_only_flagged_targets_come_back(prom_url, monkeypatch):
    seen: list[tuple[str, int]] = []
    real = Prom._ask

    def counting(self, query, at, fetch=None, **kw):
        rows = real(self, query, at, fetch, **kw)
        seen.append((query, sum(len(r.get("values", [])) or 1 for r in rows if isinstance(r, dict)) or len(rows)))
        return rows
    monkeypatch.setattr(Prom, "_ask", counting)
    obs = observe(Prom(prom_url, timeout=5), T1 + 3600, 3600)
    assert obs.facts and len(seen) <= DEFAULT_MAX_QUERIES
    # a few queries, not one a family: names, recorded screens, screens, counts, node means, details
    assert len(seen) < len(SIGNALS) / 2
    raw = [q for q, _ in seen if q.endswith("[3600s]")]
    # raw samples only of the flagged targets, never of the fleet
    assert len(raw) == 1 and 'instance=~"' in raw[0] and "DCGM_FI_DEV_GPU_UTIL" in raw[0]
    # node5's utilisation is the straggler: one row a node, reduced by the server
    means = next(n for q, n in seen if q.startswith("avg by ("))
    assert means == 9
    pops = [f for f in obs.facts if f.kind == "live_population"]
    temp = next(f for f in pops if f.metric == "DCGM_FI_DEV_GPU_TEMP")
    assert temp.series == 18 and temp.instances == 9 and temp.fewest_per_instance == 2 and temp.screened

"""Live diagnosis: Prometheus (DCGM exporter, node_exporter) -> facts -> the same rules and
the same :class:`Report` as a bundle, with ``source.kind == "prometheus"``.

One query per metric family for the whole fleet, evaluated at ``at``: range functions on the
server (facts/live/promql.py), raw samples only for GPU utilisation, whose facts need its shape. A server that
is stopped, slow or refuses a query makes the verdict ``inconclusive`` with the reason, after
at most one timeout (the first failing query ends the run).
"""
from __future__ import annotations

import time

from stethoscope.engine.loader import RuleSet
from stethoscope.engine.pipeline import Evaluator, Observation, diagnose
from stethoscope.engine.report import Coverage, FileCoverage, MissingSignal, Report, Source
from stethoscope.facts.live import dcgm, ib, promql, timeseries
from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.access import Access
from stethoscope.facts.live.prom import LiveError, Prom, Series
from stethoscope.facts.live.signals import SIGNALS, Signal, enable_hint

DEFAULT_WINDOW_S = 3600
DEFAULT_TIMEOUT_S = 10.0
#: all the queries of one run together (facts/live/deadline.py): a server slow on every query
#: ends the run here, not after one timeout per family
DEFAULT_RUN_TIMEOUT_S = 120.0


def parse_duration(text: str) -> int:
    """'90s', '15m', '1h', '7d', '3600' -> seconds. Raises ValueError."""
    text = text.strip()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    if text and text[-1] in units:
        n, mult = text[:-1], units[text[-1]]
    else:
        n, mult = text, 1
    value = float(n) * mult
    if value <= 0:
        raise ValueError(f"not a positive duration: {text!r}")
    return int(value)


def parse_time(text: str | None) -> float:
    """None -> now; unix seconds; or an RFC 3339 / ISO 8601 time ('2024-04-05T21:30:00Z')."""
    if text is None:
        return time.time()
    try:
        return float(text)
    except ValueError:
        pass
    from datetime import datetime, timezone

    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def query_family(prom: Prom, sig: Signal, at: float, window_s: int) -> tuple[str, list[Series]]:
    """One query for the whole fleet: raw samples only where a fact needs the series' shape,
    else the range functions of :mod:`stethoscope.facts.live.promql` evaluated by the server."""
    query = promql.build(sig.mode, sig.query_selector, window_s, at, down=sig.down,
                         masks=tuple(dcgm.CLOCK_REASON_BITS) if sig.mode == "bits" else ())
    if sig.mode in ("raw", "events"):
        return prom.samples(query, at)
    return prom.stats(query, at, sig.metrics[0])


#: the coverage kind of a family's series (knowledge/coverage.yaml): the same signals as a saved
#: scrape of the exporter, so they check the same components
COVERAGE_KIND = {"dcgm-exporter": "dcgm_exporter_scrape", "node_exporter": "node_exporter_ib"}


def observe(prom: Prom, at: float, window_s: int, signals: tuple[Signal, ...] = SIGNALS) -> Observation:
    """Query every family once and build facts. Raises LiveError when the server fails.

    Each family that returned series is one read "file" of the coverage (its path is the
    query); a family without series is a missing signal, never read as healthy."""
    obs = Observation(source=Source(kind="prometheus", path=prom.url),
                      empty=f"{prom.url} has no DCGM exporter or node_exporter InfiniBand series in the {window_s} s before {at:.0f}")
    out = LiveFacts()
    cov: dict[str, FileCoverage] = {}
    families: dict[str, list[Series]] = {}
    for sig in signals:
        query, series = query_family(prom, sig, at, window_s)
        families[sig.key] = series
        cov[sig.key] = FileCoverage(path=query, kind=f"prometheus:{sig.source}", node="*", facts=0, skipped_lines=0,
                                    read_by=[COVERAGE_KIND[sig.source]] if series else [])
        if series:
            obs.coverage.files.append(cov[sig.key])
        else:
            obs.missing.append(MissingSignal(metric=sig.metrics[0], source=sig.source, field_id=sig.field_id,
                                             shows=sig.shows, enable=enable_hint(sig)))
    fam = families
    before = 0

    def account(key: str) -> None:
        nonlocal before
        cov[key].facts += len(out.facts) - before
        before = len(out.facts)

    dcgm.xid_facts(fam["xid"], out); account("xid")
    dcgm.clock_reason_facts(fam["clock_reasons"], out); account("clock_reasons")
    dcgm.gpu_state_facts(fam, out); account("gpu_temp")
    dcgm.gpu_info_facts(fam, out); account("gpu_temp")
    timeseries.util_facts(fam["gpu_util"], out, window_s); account("gpu_util")
    timeseries.trend_facts(fam, out, window_s); account("gpu_temp")
    timeseries.nvlink_state_facts(fam["nvlink_state"], out, window_s); account("nvlink_state")
    for key in timeseries.GPU_COUNTERS:
        timeseries.growth_facts(key, fam[key], out, window_s); account(key)
    ib.port_facts(fam, out, window_s); account("ib_state")
    obs.facts = out.facts
    obs.nodes = sorted({f.node for f in obs.facts})
    if out.skipped:
        obs.coverage.unrecognised.append(f"{out.skipped} series without a pci_bus_id label (cannot be tied to a GPU)")
    return obs


def observe_server(url: str, at: float, window_s: int, timeout: float = DEFAULT_TIMEOUT_S,
                   run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S, access: Access | None = None) -> Observation:
    obs = observe(Prom(url, timeout=timeout, run_timeout=run_timeout, access=access), at, window_s)
    obs.source = Source(kind="prometheus", path=url)
    return obs


def diagnose_prometheus(url: str, at: float | None = None, window_s: int = DEFAULT_WINDOW_S,
                        timeout: float = DEFAULT_TIMEOUT_S, ruleset: RuleSet | None = None,
                        evaluator: Evaluator = "durable", run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S,
                        access: Access | None = None) -> Report:
    """Diagnose the fleet a Prometheus server watches, as of ``at`` (default now): the same
    pipeline as a bundle (engine/pipeline.py). A server that fails makes the verdict
    ``inconclusive`` with the reason."""
    at = time.time() if at is None else at
    try:
        obs = observe_server(url, at, window_s, timeout, run_timeout, access)
    except LiveError as exc:
        return Report(source=Source(kind="prometheus", path=url), verdict="inconclusive", findings=[],
                      coverage=Coverage(), reason=str(exc))
    return diagnose(obs, ruleset, evaluator)

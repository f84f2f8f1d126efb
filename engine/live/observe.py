"""Live diagnosis: Prometheus (DCGM exporter, node_exporter) -> facts -> the same rules and
the same :class:`Report` as a bundle, with ``source.kind == "prometheus"``.

One query per metric family for the whole fleet, evaluated at ``at``: range functions on the
server (facts/live/promql.py), raw samples only for GPU utilisation, whose facts need its shape. A server that
is stopped, slow or refuses a query makes the verdict ``inconclusive`` with the reason, after
at most one timeout (the first failing query ends the run).
"""
from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from stethoscope.engine.ruleengine.loader import RuleSet
from stethoscope.engine.pipeline import Evaluator, Observation, diagnose
from stethoscope.engine.report import (
    Coverage, FileCoverage, LimitHit, MissingSignal, ParseProblem, Report, SkippedFile, Source,
)
from stethoscope.facts.limits import DEFAULT as DEFAULT_BUDGET, Budget
from stethoscope.facts.live import dcgm, ib, promql, screens, stack, timeseries
from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.access import Access
from stethoscope.facts.live.prom import LiveError, Prom, Series
from stethoscope.facts.kinds.live import LivePopulation
from stethoscope.facts.live.signals import SIGNALS, Signal, enable_hint
from stethoscope.facts.model import Evidence

DEFAULT_WINDOW_S = 3600
DEFAULT_TIMEOUT_S = 10.0
#: all the queries of one run together (facts/live/deadline.py): a server slow on every query
#: ends the run here, not after one timeout per family
DEFAULT_RUN_TIMEOUT_S = 120.0


def _within_length_parts(sigs: list, targets: set[str], build, scope) -> list[tuple[list, str]]:
    """(signals, query) pairs covering ``sigs`` x ``targets``, each query (as sent) at most
    MAX_QUERY_CHARS long: all in one when it fits, else the signals apart, else a signal's
    targets in halves."""
    if not sigs:
        return []
    q = build(sigs, targets)
    if len(scope(q)) <= MAX_QUERY_CHARS:
        return [(sigs, q)]
    if len(sigs) > 1:
        half = len(sigs) // 2
        return (_within_length_parts(sigs[:half], targets, build, scope)
                + _within_length_parts(sigs[half:], targets, build, scope))
    if len(targets) > 1:
        order = sorted(targets)
        half = len(order) // 2
        return (_within_length_parts(sigs, set(order[:half]), build, scope)
                + _within_length_parts(sigs, set(order[half:]), build, scope))
    return [(sigs, q)]


def _within_length(group: list, scope) -> list[str]:
    """The tagged screen query of ``group``, split in halves until each (as sent, ``scope`` adding
    the selector) is at most MAX_QUERY_CHARS long; a single leg is sent as it is."""
    q = screens.tagged_screen_query(group)
    if len(group) == 1 or len(scope(q)) <= MAX_QUERY_CHARS:
        return [q]
    half = len(group) // 2
    return _within_length(group[:half], scope) + _within_length(group[half:], scope)


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


#: the coverage kind of a family's series (knowledge/coverage.yaml): the same signals as a saved
#: scrape of the exporter, so they check the same components
COVERAGE_KIND = {"dcgm-exporter": "dcgm_exporter_scrape", "node_exporter": "node_exporter_ib"}
#: queries in flight at once: a shared server is not made to run more of ours than this (with 4,
#: under load 15 on the 2-core bench server, a screen query ran past the 10 s per-query deadline)
DEFAULT_CONCURRENCY = 2
#: queries one run may send; the plan below needs about 20 for the shipped rules
DEFAULT_MAX_QUERIES = 40
#: the screens are spread over this many queries (each leg tagged with its signal)
SCREEN_QUERIES = 8
#: the longest query sent, --selector included: VictoriaMetrics refuses longer ones at its default
#: -search.maxQueryLen of 16,384 bytes (Prometheus takes longer ones; so do Thanos and Mimir)
MAX_QUERY_CHARS = 15000


def query_family(prom: Prom, sig: Signal, at: float, window_s: int, selector: str | None = None) -> tuple[str, list[Series]]:
    """The statistics (or raw samples) of one family: range functions of
    :mod:`stethoscope.facts.live.promql` evaluated by the server. ``selector`` narrows it (the
    flagged instances) instead of the whole fleet."""
    query = promql.build(sig.mode, selector or sig.query_selector, window_s, at, down=sig.down,
                         masks=tuple(dcgm.CLOCK_REASON_BITS) if sig.mode == "bits" else ())
    if sig.mode in ("raw", "events"):
        return prom.samples(query, at)
    return prom.stats(query, at, sig.metrics[0])


def rule_patterns(ruleset: RuleSet) -> list[tuple[str, list[tuple[str, dict]]]]:
    """Each rule's id and ``when.all`` patterns, for :func:`stethoscope.facts.live.screens.plan`."""
    return [(c.rule.id, [(cond.fact, dict(cond.match)) for cond in c.rule.when.all]) for c in ruleset.rules]


def ib_limits() -> dict[str, float]:
    from stethoscope.facts.knowledge import load

    return {c.field: float(c.limit_per_hour) for c in load("ib_counters.yaml").counters}


def screen_plan(ruleset: RuleSet, window_s: int) -> screens.Plan:
    return screens.plan(rule_patterns(ruleset), window_s, ib_limits())


class Runner:
    """The queries of one run: at most ``max_queries`` of them, ``concurrency`` at a time, under
    the Prom client's deadlines (per query and per run). The first failure ends the run: the
    queries still in flight are cut (their sockets shut, so the server stops working on them)."""

    def __init__(self, prom: Prom, concurrency: int = DEFAULT_CONCURRENCY, max_queries: int = DEFAULT_MAX_QUERIES):
        self.prom, self.max_queries = prom, max_queries
        self.concurrency = max(1, concurrency)
        self.pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="steth-query")
        self.sent = 0
        self._futures: list[Future] = []

    def map(self, calls: list[Callable[[], Any]]) -> list[Any]:
        return self.wait(self.submit(calls))

    def submit(self, calls: list[Callable[[], Any]]) -> list[Future]:
        if self.sent + len(calls) > self.max_queries:
            raise LiveError(f"the run needs more than its budget of {self.max_queries} queries "
                            f"({self.sent} sent, {len(calls)} more asked)")
        self.sent += len(calls)
        futures = [self.pool.submit(c) for c in calls]
        self._futures.extend(futures)
        return futures

    def wait(self, futures: list[Future]) -> list[Any]:
        """Every answer, in order; on a failure the others are cut and the error that says most
        is raised (a deadline that passed rather than the sockets it shut under its neighbours)."""
        errors: list[BaseException] = []
        for f in futures:
            try:
                f.result()
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                errors.append(exc)
                if len(errors) == 1:
                    for other in futures:
                        other.cancel()
                    adapter = getattr(getattr(self.prom, "deadlines", None), "adapter", None)
                    if adapter is not None:
                        adapter.cut()
        if errors:
            raise min(errors, key=lambda e: 0 if "did not answer" in str(e) else 1)
        return [f.result() for f in futures]

    def close(self) -> None:
        """End the run: nothing of it stays in flight (a query still running when the run ends,
        after a failure, has its socket shut, so the server stops working on it too)."""
        if any(not f.done() for f in self._futures):
            adapter = getattr(getattr(self.prom, "deadlines", None), "adapter", None)
            if adapter is not None:
                adapter.cut()
        self.pool.shutdown(wait=True, cancel_futures=True)


def _instances_selector(sig: Signal, instances: set[str]) -> str:
    alts = "|".join(sorted(re.escape(i).replace("\\", "\\\\") for i in instances))
    sel = sig.query_selector
    if sel.startswith("{"):
        return sel[:-1] + f',instance=~"{alts}"}}'
    return f'{sel}{{instance=~"{alts}"}}'


def _tagged(sig: Signal, query: str) -> str:
    """A family's statistics query with its metric name on every row (``steth_metric``), so
    that the families of a source travel in one query."""
    if sig.mode == "bits":  # the exporter's own name is kept there (facts/live/promql.py _named)
        return query
    return f'label_replace({query}, "steth_metric", "{sig.metrics[0]}", "", "")'


def observe(prom: Prom, at: float, window_s: int, signals: tuple[Signal, ...] = SIGNALS,
            ruleset: RuleSet | None = None, concurrency: int = DEFAULT_CONCURRENCY,
            max_queries: int = DEFAULT_MAX_QUERIES) -> Observation:
    """Screen the fleet on the server, read the flagged nodes in full, build facts. Raises
    LiveError when the server fails or the budget is spent.

    1. one query counts the series of every exporter metric (the population; a metric with
       none is a missing signal, never read as healthy), another looks for recorded screens
       (``steth rules export --format recording-rules``); the rules load meanwhile;
    2. the screens (facts/live/screens.py, from the rules' own patterns and
       knowledge/ib_counters.yaml), spread over a few queries, or the recorded ones in one;
    3. the statistics of every family for the flagged scrape targets only (a few queries a
       source), and of the families a rule needs whole;
    4. the same fact builders as a full read, on those series."""
    return observe_rules(prom, at, window_s, signals, ruleset, concurrency, max_queries)[0]


def observe_rules(prom: Prom, at: float, window_s: int, signals: tuple[Signal, ...] = SIGNALS,
                  ruleset: RuleSet | None = None, concurrency: int = DEFAULT_CONCURRENCY,
                  max_queries: int = DEFAULT_MAX_QUERIES) -> tuple[Observation, RuleSet]:
    """:func:`observe`, and the rule set it screened with (loaded while the first queries run)."""
    from stethoscope.engine.ruleengine.loader import load_rules

    obs = Observation(source=Source(kind="prometheus", path=prom.url),
                      empty=f"{prom.url} has no DCGM exporter or node_exporter InfiniBand series in the {window_s} s before {at:.0f}")
    runner = Runner(prom, concurrency, max_queries)
    try:
        names = "|".join(m for s in signals for m in s.metrics)
        rec_plan = screens.recorded_names(window_s)[2]
        first = runner.submit([lambda: prom.names(f'{{__name__=~"{names}"}}', at - window_s, at),
                               lambda: prom.rows(rec_plan, at)])
        ruleset = ruleset or load_rules()
        plan = screen_plan(ruleset, window_s)
        found, rec_rows = runner.wait(first)
        pid = plan_id(plan)
        rec_rows = [r for r in rec_rows if r.get("metric", {}).get("steth_plan") == pid]
        obs = _observe(prom, runner, plan, at, window_s, signals, obs, set(found), rec_rows)
        self_check(prom, runner, at, window_s, obs)
        answer_problems(prom, obs.coverage)
        return obs, ruleset
    finally:
        runner.close()


#: the InfiniBand fact kinds (engine/combine/fabric.py judges them) and the families they come from
IB_KINDS = {"ib_port": ("ib_state",), "ib_port_counters": ("ib_link_downed", "ib_link_error_recovery", "ib_rcv_errors"),
            "ib_port_traffic": ("ib_rx_bytes",)}
#: the family counted for each source's population (the first that exists): every GPU has a
#: temperature, every port a state
ANCHORS = {"dcgm-exporter": ("gpu_temp", "power", "gpu_util", "xid"), "node_exporter": ("ib_state",)}


def _observe(prom: Prom, runner: Runner, plan: screens.Plan, at: float, window_s: int,
             signals: tuple[Signal, ...], obs: Observation, found: set[str], rec_rows: list[dict]) -> Observation:
    by_key = {s.key: s for s in signals}
    rec_screen, rec_means, _ = screens.recorded_names(window_s)
    present = {k for k, s in by_key.items() if any(m in found for m in s.metrics)}
    anchors = [m for keys in ANCHORS.values() for m in
               [next((n for k in keys if k in present for n in by_key[k].metrics if n in found), None)] if m]
    pop_query = screens.population(anchors) if anchors else ""
    pop_shown = prom.scope(pop_query) if pop_query else ""
    pop_call = [lambda: prom.rows(pop_query, at, finite=True)] if pop_query else []

    # --- screens: which scrape targets have a series a rule could fire on ---
    flagged: dict[str, list[dict]] = defaultdict(list)  # signal -> labels of flagged series
    legs = {k: kept for k, v in plan.legs.items() if k in present
            for kept in [[lg for lg in v if screens.metrics_of(lg.expr) <= found]] if kept}
    screen_paths: dict[str, str] = {}
    if rec_rows:
        q = f"{rec_screen} or {rec_means}"
        rows, *pop = runner.map([lambda: prom.rows(q, at)] + pop_call)
        shown = prom.scope(q)
        for row in rows:
            lab = dict(row.get("metric", {}))
            key = lab.pop("steth_screen", None)
            if key in present:
                flagged[key].append(lab)
        screen_paths = {k: shown for k in legs}
        means_rows = [r for r in rows if r.get("metric", {}).get("steth_screen") == "node_means"]
    else:
        # spread over twice as many queries as may run at once (each stays short, well within
        # the per-query deadline of a loaded server), the heaviest legs first onto the lightest
        # query (a leg's cost: the range reads it makes)
        n_legs = sum(len(v) for v in legs.values())
        groups: list[list[screens.Leg]] = [[] for _ in range(max(1, min(2 * runner.concurrency, SCREEN_QUERIES, n_legs)))]
        cost = lambda legs: sum(lg.expr.count("[") for lg in legs)  # noqa: E731
        for leg in sorted((lg for k in sorted(legs) for lg in legs[k]), key=lambda lg: -lg.expr.count("[")):
            min(groups, key=cost).append(leg)
        queries = [q for g in groups if g for q in _within_length(g, prom.scope)]
        nm = [n for n in plan.node_means if n.signal in present]
        nm_queries = [screens.node_means_query(n, window_s, prom.access.node_labels) for n in nm[:1]]
        answers = runner.map([(lambda q=q: prom.rows(q, at)) for q in queries]
                             + [(lambda q=q: prom.rows(q, at, finite=True)) for q in nm_queries] + pop_call)
        pop = answers[len(queries) + len(nm_queries):]
        for q, rows in zip(queries, answers[:len(queries)]):
            shown = prom.scope(q)
            for row in rows:
                lab = dict(row.get("metric", {}))
                key = lab.pop("steth_screen", None)
                if key in present:
                    flagged[key].append(lab)
                    screen_paths.setdefault(key, shown)
            for leg in (lg for g in groups for lg in g):
                if leg.expr in q:
                    screen_paths.setdefault(leg.signal, shown)
        means_rows = [dict(r, metric={**r.get("metric", {}), "steth_screen": "node_means"}) for r in (answers[len(queries)] if nm_queries else [])]
        if nm_queries:
            screen_paths.setdefault("gpu_util", prom.scope(nm_queries[0]))

    # --- details: the flagged targets in full, the families a rule needs whole ---
    inst: dict[str, set[str]] = defaultdict(set)  # source -> flagged instances
    whole_unnarrowed: set[str] = set()
    for key, rows in flagged.items():
        for lab in rows:
            if lab.get("instance"):
                inst[by_key[key].source].add(lab["instance"])
            else:  # no scrape target to narrow by (federated, remote-written): read the family whole
                whole_unnarrowed.add(key)
    fam: dict[str, list[Series]] = {k: [] for k in by_key}
    detail_paths: dict[str, str] = {}
    calls: list[Callable[[], tuple[list[Signal], tuple[str, list[Series]]]]] = []
    whole = {k for k in plan.whole if k in present} | whole_unnarrowed
    for source in ("dcgm-exporter", "node_exporter"):
        targets = inst.get(source)
        if not targets:
            continue
        stat_sigs = [s for s in signals if s.source == source and s.key in present and s.key not in whole and s.mode not in ("raw", "events")]
        raw_sigs = [s for s in signals if s.source == source and s.key in present and s.key not in whole and s.mode in ("raw", "events")]
        def stat_query(sigs: list[Signal], tg: set[str]) -> str:
            return " or ".join(_tagged(s, promql.build(s.mode, _instances_selector(s, tg), window_s, at, down=s.down,
                                                       masks=tuple(dcgm.CLOCK_REASON_BITS) if s.mode == "bits" else ()))
                               for s in sigs)

        def raw_query(sigs: list[Signal], tg: set[str]) -> str:
            names = "|".join(m for s in sigs for m in s.metrics)
            alts = _instances_selector(Signal("raw", ("x", "y"), source, None, True, ""), tg).split(",", 1)[1]
            return f'{{__name__=~"{names}",{alts}[{int(window_s)}s]'

        # each query within MAX_QUERY_CHARS as sent: the families apart, then the targets in parts
        for ss, q in _within_length_parts(stat_sigs, targets, stat_query, prom.scope):
            calls.append(lambda q=q, ss=ss: (ss, prom.stats(q, at, ss[0].metrics[0])))
        for ss, q in _within_length_parts(raw_sigs, targets, raw_query, prom.scope):
            calls.append(lambda q=q, ss=ss: (ss, prom.samples(q, at)))
    for key in sorted(whole):
        sig = by_key[key]
        calls.append(lambda sig=sig: ([sig], query_family(prom, sig, at, window_s)))
    for sigs, (shown, series) in runner.map(calls):
        names = {m: s.key for s in sigs for m in s.metrics}
        for s in series:
            key = names.get(s.metric)
            if key is not None:
                fam[key].append(s)
        for s in sigs:
            detail_paths[s.key] = shown

    # --- facts ---
    out = LiveFacts()
    cov: dict[str, FileCoverage] = {}
    for sig in signals:
        if sig.key in present:
            cov[sig.key] = FileCoverage(path=screen_paths.get(sig.key) or detail_paths.get(sig.key) or pop_shown,
                                        kind=f"prometheus:{sig.source}", node="*", facts=0, skipped_lines=0,
                                        read_by=[COVERAGE_KIND[sig.source]])
            obs.coverage.files.append(cov[sig.key])
        else:
            obs.missing.append(MissingSignal(metric=sig.metrics[0], source=sig.source, field_id=sig.field_id,
                                             shows=sig.shows, enable=enable_hint(sig)))
    counts: dict[str, list[int]] = defaultdict(list)  # anchor metric -> series of each target
    for r in pop[0] if pop else []:
        counts[r.get("metric", {}).get("steth_metric", "")].append(int(float(r["value"][1])))
    names_path = f"/api/v1/label/__name__/values?match[]={{__name__=~...}}&start={at - window_s:.0f}&end={at:.0f}"
    row = 0
    for sig in signals:
        for m in sig.metrics:
            if m not in found:
                continue
            row += 1
            screened = sig.key in legs or any(n.signal == sig.key for n in plan.node_means)
            n_flagged = len(flagged.get(sig.key, []))
            how = (f"screened on the server, {n_flagged} flagged" if screened else
                   "read whole" if sig.key in whole else "no rule judges it alone: read for the flagged targets")
            per = counts.get(m) if m in anchors else None
            if per and m in anchors:
                ev = Evidence(path=pop_shown, line=anchors.index(m) + 1,
                              text=f"count by (instance) ({m}): {sum(per)} series from {len(per)} targets "
                                   f"(fewest a target: {min(per)}) @{at:.0f}; {how}")
            else:
                ev = Evidence(path=names_path, line=row, text=f"{m} has series in the window; {how}")
            out.add(LivePopulation, "*", ev, m, metric=m, signal=sig.key, series=sum(per) if per else None,
                    instances=len(per) if per else None, fewest_per_instance=min(per) if per else None,
                    screened=screened, flagged=n_flagged, window_s=window_s)
    before = len(out.facts)

    def account(key: str) -> None:
        nonlocal before
        if key in cov:
            cov[key].facts += len(out.facts) - before
        before = len(out.facts)

    dcgm.xid_facts(fam["xid"], out); account("xid")
    dcgm.clock_reason_facts(fam["clock_reasons"], out); account("clock_reasons")
    dcgm.gpu_state_facts(fam, out); account("gpu_temp")
    dcgm.gpu_info_facts(fam, out); account("gpu_temp")
    if "gpu_util" in whole:
        timeseries.util_facts(fam["gpu_util"], out, window_s)
    else:
        timeseries.stall_facts(fam["gpu_util"], out, window_s)
        _below_peers(plan, means_rows, prom, out, window_s)
    account("gpu_util")
    timeseries.trend_facts(fam, out, window_s); account("gpu_temp")
    timeseries.nvlink_state_facts(fam["nvlink_state"], out, window_s); account("nvlink_state")
    for key in timeseries.GPU_COUNTERS:
        timeseries.growth_facts(key, fam[key], out, window_s); account(key)
    ib.port_facts(fam, out, window_s); account("ib_state")
    obs.facts = out.facts
    # every series of these families was screened: their kinds were checked, facts or not
    obs.kinds_checked = {kind for kind, keys in {**screens.KIND_SIGNALS, **IB_KINDS}.items() if any(k in present for k in keys)}
    obs.nodes = sorted({f.node for f in obs.facts if f.node != "*"})
    if out.skipped:
        obs.coverage.unrecognised.append(f"{out.skipped} series without a pci_bus_id label (cannot be tied to a GPU)")
    return obs


#: the coverage kind whose parse problems a row of a metric's answer counts as
_PARSER_OF = {m: COVERAGE_KIND[s.source] for s in SIGNALS for m in s.metrics}


def answer_problems(prom: Prom, coverage: Coverage) -> None:
    """The rows of answers that could not be used, as parse problems of their query, and the
    caps of the memory budget that stopped an answer (facts/live/prom.py)."""
    coverage.errors.extend(ParseProblem(path=p.path, line=p.line, message=p.message, parser=_PARSER_OF.get(p.metric))
                           for p in prom.problems)
    coverage.limits.extend(LimitHit(limit=h.limit, path=h.path, line=h.line, detail=h.detail) for h in prom.limits)
    prom.problems, prom.limits = [], []


def self_check(prom: Prom, runner: Runner, at: float, window_s: int, obs: Observation) -> None:
    """The monitoring stack's own state (facts/live/stack.py): exporter targets down, exporters
    absent, stale series, exporter versions. Only beside exporter series: a server without any
    keeps its verdict (inconclusive, nothing to read). A server that refuses this one query
    leaves the rest of the diagnosis as it is, the query listed as not read."""
    if not obs.coverage.files:
        return
    q = stack.query(window_s)
    shown = prom.scope(q)
    try:
        (rows,) = runner.map([lambda: prom.rows(q, at, finite=True)])
    except LiveError as exc:
        obs.coverage.skipped.append(SkippedFile(path=shown, reason=f"the monitoring self-check query failed: {exc}"))
        return
    out = LiveFacts()
    stack.stack_facts(rows, shown, at, window_s, out, judge_absence=not prom.access.selector)
    obs.facts.extend(out.facts)
    obs.coverage.files.append(FileCoverage(path=shown, kind="prometheus:stack", node="*", facts=len(out.facts),
                                           skipped_lines=0))
    obs.nodes = sorted(set(obs.nodes) | {f.node for f in out.facts if f.node != "*"})


def _below_peers(plan: screens.Plan, rows: list[dict], prom: Prom, out: LiveFacts, window_s: int) -> None:
    """``node_below_peers`` from the server's one row a node: the median over every node, a
    fact for the nodes past the rule's ratio bound only."""
    if not rows or not plan.node_means:
        return
    nm = plan.node_means[0]
    metric = by_key_metric(nm.signal)
    query = screens.node_means_query(nm, window_s, prom.access.node_labels)
    means: dict[str, tuple[float, Series]] = {}
    for i, r in enumerate(sorted(rows, key=lambda r: sorted(r.get("metric", {}).items())), start=1):
        lab = {k: v for k, v in r.get("metric", {}).items() if k not in ("steth_screen", "__name__")}
        value = float(r["value"][1])
        if not math.isfinite(value):  # a recorded mean (the screens' own answer may hold any number)
            prom.problem(prom.scope(query), i, f"Prometheus answer, row {i}: mean {r['value'][1]} is not a finite number: "
                                               "the row is not used", metric)
            continue
        s = Series(prom.scope(query), i, {"__name__": metric, **lab}, [(float(r["value"][0]), value)],
                   node_labels=prom.access.node_labels)
        means[s.node] = (value, s)
    bound = {"lt": float.__lt__, "lte": float.__le__}[nm.op]
    timeseries.below_peers_facts(means, out, window_s, keep=lambda ratio: bound(float(ratio), nm.ratio))


def by_key_metric(key: str) -> str:
    return next(s.metrics[0] for s in SIGNALS if s.key == key)


def plan_id(plan: screens.Plan) -> str:
    """A short hash of the screens: recorded series of another rule set are not used."""
    import hashlib

    text = "\n".join(f"{k}:{leg.expr}" for k in sorted(plan.legs) for leg in plan.legs[k])
    text += "\n" + "\n".join(f"{n.signal}:{n.op}:{n.ratio}" for n in plan.node_means)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def observe_server(url: str, at: float, window_s: int, timeout: float = DEFAULT_TIMEOUT_S,
                   run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S, access: Access | None = None,
                   ruleset: RuleSet | None = None, concurrency: int = DEFAULT_CONCURRENCY,
                   max_queries: int = DEFAULT_MAX_QUERIES) -> Observation:
    return observe_server_rules(url, at, window_s, timeout, run_timeout, access, ruleset, concurrency, max_queries)[0]


def observe_server_rules(url: str, at: float, window_s: int, timeout: float = DEFAULT_TIMEOUT_S,
                         run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S, access: Access | None = None,
                         ruleset: RuleSet | None = None, concurrency: int = DEFAULT_CONCURRENCY,
                         max_queries: int = DEFAULT_MAX_QUERIES) -> tuple[Observation, RuleSet]:
    obs, ruleset = observe_rules(Prom(url, timeout=timeout, run_timeout=run_timeout, access=access), at, window_s,
                                 ruleset=ruleset, concurrency=concurrency, max_queries=max_queries)
    obs.source = Source(kind="prometheus", path=url)
    return obs, ruleset


def diagnose_prometheus(url: str, at: float | None = None, window_s: int = DEFAULT_WINDOW_S,
                        timeout: float = DEFAULT_TIMEOUT_S, ruleset: RuleSet | None = None,
                        evaluator: Evaluator = "durable", run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S,
                        access: Access | None = None, concurrency: int = DEFAULT_CONCURRENCY,
                        max_queries: int = DEFAULT_MAX_QUERIES, budget: Budget = DEFAULT_BUDGET) -> Report:
    """Diagnose the fleet a Prometheus server watches, as of ``at`` (default now): the same
    pipeline as a bundle (engine/pipeline.py). A server that fails, or a run that would need
    more than ``max_queries`` or an answer beyond ``budget``, makes the verdict ``inconclusive``
    with the reason."""
    return diagnose_server(url, at, window_s, timeout, ruleset, evaluator, run_timeout, access, concurrency, max_queries,
                           budget)[0]


def diagnose_server(url: str, at: float | None = None, window_s: int = DEFAULT_WINDOW_S,
                    timeout: float = DEFAULT_TIMEOUT_S, ruleset: RuleSet | None = None,
                    evaluator: Evaluator = "durable", run_timeout: float | None = DEFAULT_RUN_TIMEOUT_S,
                    access: Access | None = None, concurrency: int = DEFAULT_CONCURRENCY,
                    max_queries: int = DEFAULT_MAX_QUERIES, budget: Budget = DEFAULT_BUDGET) -> tuple[Report, int]:
    """:func:`diagnose_prometheus` and the number of requests it sent (``steth watch`` counts them)."""
    at = time.time() if at is None else at
    prom: Prom | None = None
    try:
        prom = Prom(url, timeout=timeout, run_timeout=run_timeout, access=access, budget=budget)
        obs, ruleset = observe_rules(prom, at, window_s, ruleset=ruleset, concurrency=concurrency, max_queries=max_queries)
        obs.source = Source(kind="prometheus", path=url)
    except LiveError as exc:
        coverage = Coverage()
        if prom is not None:
            answer_problems(prom, coverage)
        return (Report(source=Source(kind="prometheus", path=url), verdict="inconclusive", findings=[],
                       coverage=coverage, reason=str(exc)), prom.queries if prom else 0)
    return diagnose(obs, ruleset, evaluator), prom.queries

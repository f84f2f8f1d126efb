"""Screens: PromQL that returns the series a rule could fire on, not the fleet.

A live run first asks the server, per signal, for the series that deviate (threshold,
``increase``, ``changes``, a bit of a mask set, a node below its peers), then reads the full
statistics (facts/live/promql.py) of the few nodes flagged, so the fact builders and the rules
see the same facts as before for every GPU or port that matters, and the healthy population
comes back as counts (:func:`population`).

Nothing here holds a threshold. The engine hands over each rule's fact patterns
(``when.all``: kind and ``match``, with the rule's own values) and the InfiniBand counter
limits of knowledge/ib_counters.yaml; this module knows only how a fact field is computed
from a family over the window (``slope_per_h`` is ``deriv(M[w]) * 3600``, a clock reason is a
bit of the reasons mask, ...). A screen is a superset of what the rule can match: conditions
that cannot be stated in PromQL (joins, fields made by comparing series) are left out, which
flags more series, never fewer. A pattern on a field the live builders never fill can never
match a live fact (``NEVER``); a pattern with no condition left flags the whole family
(``EVERYTHING``), which is correct and costs a full read.

Sample leg (rule clocks_hw_thermal_slowdown, ``{reason: hw_thermal_slowdown, active: true}``,
1 h window; 0x40 set at some sample means the value reached 64 at that sample)::

    max_over_time(DCGM_FI_DEV_CLOCKS_EVENT_REASONS[3600s]) >= 64
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stethoscope.facts.live.dcgm import CLOCK_REASON_BITS, ECC
from stethoscope.facts.live.signals import BY_KEY, SIGNALS

NEVER = "never"  # the pattern cannot match a live fact
EVERYTHING = "everything"  # no condition can be stated: every series of the family

#: fact kinds the live builders make, and the signals whose series they come from
KIND_SIGNALS: dict[str, tuple[str, ...]] = {
    "xid_event": ("xid",),
    "gpu_clock_reason": ("clock_reasons",),
    "gpu_ecc_count": tuple(ECC),
    "gpu_row_remap": ("remap_pending", "remap_failure", "remap_unc", "remap_corr"),
    "counter_growth": ("ecc_sbe_vol", "ecc_dbe_vol", "pcie_replay", "nvlink_crc_flit", "nvlink_crc_data",
                       "nvlink_replay", "nvlink_recovery"),
    "link_state_change": ("nvlink_state", "ib_state"),
    "gpu_util_stall": ("gpu_util",),
    "node_below_peers": ("gpu_util",),
    "gpu_metric_trend": ("gpu_temp", "memory_temp", "power", "sm_clock"),
    "gpu_temperature": ("gpu_temp", "memory_temp"),
    "gpu_power": ("power",),
    "gpu_pcie_link": ("pcie_replay",),
    "gpu_info": ("gpu_temp",),
}
#: error-polarity kinds: every fact made is reported (an unexplained one too), so the screen is
#: the builder's own condition for making one, whatever the rules say
EMITTED = {"xid_event": "max_over_time({m}[{w}]) > 0"}
#: fields of each kind the live builders fill (others stay None: a comparison on them never matches)
FILLED = {
    "gpu_row_remap": {"pending", "failure", "uncorrectable_rows", "correctable_rows", "node", "pci_bus_id"},
    "gpu_info": {"index", "name", "uuid", "driver_version", "node", "pci_bus_id"},
}
TREND_SIGNAL = {"gpu_temp_c": "gpu_temp", "memory_temp_c": "memory_temp", "power_w": "power", "sm_clock_mhz": "sm_clock"}
TREND_LIMIT = {"gpu_temp": "slowdown_temp", "memory_temp": "mem_max_op_temp", "power": "power_limit"}
ROW_REMAP = {"pending": "remap_pending", "failure": "remap_failure", "uncorrectable_rows": "remap_unc",
             "correctable_rows": "remap_corr"}
UP = {"nvlink_state": 1, "ib_state": 4}
PROMQL_OPS = {"eq": "==", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


@dataclass(frozen=True)
class Leg:
    """One screen: ``expr`` returns the flagged series of ``signal`` (each with its labels)."""

    signal: str
    expr: str
    why: str  # the rule (or knowledge file) that asked for it


@dataclass(frozen=True)
class NodeMeans:
    """``node_below_peers``: the nodes' mean of a gauge, reduced by the server to one row a node;
    the rule's ratio bound picks the nodes kept."""

    signal: str
    op: str  # PROMQL_OPS key, from the rule
    ratio: float
    why: str


@dataclass
class Plan:
    """What a run asks: the legs per signal, the families it must read whole (EVERYTHING), the
    node-means reductions, and the rules that cannot fire on live facts."""

    legs: dict[str, list[Leg]] = field(default_factory=dict)
    whole: dict[str, str] = field(default_factory=dict)  # signal -> the rule that needs it whole
    node_means: list[NodeMeans] = field(default_factory=list)
    never: list[str] = field(default_factory=list)

    def add(self, leg: Leg) -> None:
        """Add a leg unless one already there flags all it flags; drop those it covers."""
        legs = self.legs.setdefault(leg.signal, [])
        if any(_covers(other.expr, leg.expr) for other in legs):
            return
        legs[:] = [other for other in legs if not _covers(leg.expr, other.expr)] + [leg]


_BOUND = re.compile(r"^(.*) (>=|>) (-?[0-9.e+]+)$")


def _conjuncts(expr: str) -> frozenset[str]:
    out = set()
    for part in expr.split(" and "):
        part = part.strip()
        while part.startswith("(") and part.endswith(")") and _balanced(part[1:-1]):
            part = part[1:-1].strip()
        out.add(part)
    return frozenset(out)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _covers(a: str, b: str) -> bool:
    """Whether every series ``b`` flags, ``a`` flags too: ``a``'s conditions are among ``b``'s,
    or both bound one expression from below and ``a``'s bound is the lower
    (``max_over_time(M[w]) >= 32`` covers ``... >= 64``). Legs with ``or`` are compared whole."""
    if a == b:
        return True
    if " or " in a or " or " in b:
        return False
    ca, cb = _conjuncts(a), _conjuncts(b)
    if ca <= cb:
        return True
    if len(ca) == 1 and len(cb) == 1:
        ma, mb = _BOUND.match(next(iter(ca))), _BOUND.match(next(iter(cb)))
        if ma and mb and ma.group(1) == mb.group(1):
            va, vb = float(ma.group(3)), float(mb.group(3))
            return va < vb or (va == vb and (ma.group(2) == ">=" or mb.group(2) == ">"))
    return False


_METRIC = re.compile(r"\b(DCGM_[A-Z0-9_]+|node_[a-z0-9_]+)\b")


def metrics_of(expr: str) -> set[str]:
    """The exporter metric names a leg reads: it can flag nothing unless all of them exist (its
    conditions are joined with ``and`` and arithmetic), so a leg with one missing is not sent."""
    return set(_METRIC.findall(expr))


def _num(v: Any) -> str:
    return repr(float(v)) if not isinstance(v, bool) else str(int(v))


def _conditions(match: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(field, op, value) of a match dict; joins (``$alias.field``) left out."""
    out = []
    for name, spec in match.items():
        if isinstance(spec, str) and spec.startswith("$"):
            continue
        if isinstance(spec, dict):
            out.extend((name, op, v) for op, v in spec.items() if not (isinstance(v, str) and v.startswith("$")))
        else:
            out.append((name, "eq", spec))
    return out


def _legs(sig_key: str, template: str, w: str, **extra: str) -> list[str]:
    """One expression per exporter name of the signal (older names OR'd: one GPU has one)."""
    return [template.format(m=m, w=w, **extra) for m in BY_KEY[sig_key].metrics]


def _cmp(expr: str, op: str, v: Any) -> str | None:
    if op in PROMQL_OPS and isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"({expr}) {PROMQL_OPS[op]} {_num(v)}"
    return None


def _values(op: str, v: Any) -> list[Any] | None:
    if op == "eq":
        return [v]
    if op == "in" and isinstance(v, list):
        return v
    return None


def compile_pattern(kind: str, match: dict[str, Any], window_s: int, why: str) -> list[Leg] | NodeMeans | str | None:
    """The legs that flag every series a fact of ``kind`` matching ``match`` could come from.
    None: ``kind`` is not made from series; NEVER / EVERYTHING as above."""
    if kind not in KIND_SIGNALS:
        return None
    w = f"{int(window_s)}s"
    conds = _conditions(match)
    filled = FILLED.get(kind)
    # a field the live builders leave None: a comparison, or 'exists: true', never matches it
    if filled is not None and any(f not in filled and (op != "exists" or v is True) for f, op, v in conds):
        return NEVER
    if kind in EMITTED:
        return [Leg(s, e, why) for s in KIND_SIGNALS[kind] for e in _legs(s, EMITTED[kind], w)]
    by = {f: (op, v) for f, op, v in conds}
    if kind == "gpu_clock_reason":
        op, v = by.get("reason", ("in", list(CLOCK_REASON_BITS.values())))
        names = _values(op, v)
        if names is None or by.get("active", ("eq", None))[1] is not True:
            return EVERYTHING
        bits = [b for b, name in CLOCK_REASON_BITS.items() if name in names]
        if not bits:
            return NEVER
        # a bit set at some sample: that sample's value is at least the bit
        return [Leg("clock_reasons", e, why) for e in _legs("clock_reasons", "max_over_time({m}[{w}]) >= {b}", w, b=str(min(bits)))]
    if kind == "gpu_ecc_count":
        keys = [k for k, (scope, etype) in ECC.items()
                if scope in (_values(*by.get("scope", ("in", [scope]))) or []) and etype in (_values(*by.get("error_type", ("in", [etype]))) or [])]
        legs = [Leg(k, c, why) for k in keys for e in _legs(k, "last_over_time({m}[{w}])", w)
                for c in [_cmp(e, *by["count"]) if "count" in by else None] if c]
        return legs or (NEVER if not keys else EVERYTHING)
    if kind == "gpu_row_remap":
        legs = []
        for fname, key in ROW_REMAP.items():
            if fname not in by:
                continue
            op, v = by[fname]
            v = int(v) if isinstance(v, bool) else v
            legs += [Leg(key, c, why) for e in _legs(key, "last_over_time({m}[{w}])", w) for c in [_cmp(e, op, v)] if c]
        return legs or EVERYTHING
    if kind == "counter_growth":
        keys = [k for k in KIND_SIGNALS[kind] if k in (_values(*by.get("counter", ("in", [k]))) or [])]
        if not keys:
            return NEVER
        legs = []
        for k in keys:
            for m in BY_KEY[k].metrics:
                # increase() of a counter is at least max - min when it never reset (the builder's
                # growth) and is the growth when it did: a superset either way
                growth = f"increase({m}[{w}])"
                # lower bounds on the growth (rate_per_h is growth per hour of the window): the
                # tightest of them, so that the family is read once
                bounds = [(float(v), op) for f, scale in (("increase", 1.0), ("rate_per_h", window_s / 3600))
                          if f in by and by[f][0] in ("gt", "gte") for op, v in [(by[f][0], by[f][1] * scale)]]
                v, op = max(bounds, default=(0.0, "gt"), key=lambda b: (b[0], b[1] == "gt"))
                legs.append(Leg(k, f"{growth} {PROMQL_OPS[op]} {_num(v)}", why))
        return legs
    if kind == "link_state_change":
        types = _values(*by.get("link_type", ("in", ["nvlink", "ib_port"])))
        keys = [k for k, t in (("nvlink_state", "nvlink"), ("ib_state", "ib_port")) if t in (types or [])]
        legs = []
        for k in keys:
            down = BY_KEY[k].down or "== 0"
            for m in BY_KEY[k].metrics:
                parts = [f"min_over_time({m}[{w}]) {down}"]  # the fact is made only for a link seen down
                if "changes" in by:
                    parts.append(_cmp(f"changes({m}[{w}])", *by["changes"]) or "")
                if by.get("up_now") == ("eq", True):
                    parts.append(f"last_over_time({m}[{w}]) == {UP[k]}")
                legs.append(Leg(k, " and ".join(f"({p})" for p in parts if p), why))
        return legs or NEVER
    if kind == "gpu_util_stall":
        m_legs = []
        for m in BY_KEY["gpu_util"].metrics:
            parts = [f"min_over_time({m}[{w}]) <= 0"]  # dips are runs of zero samples
            if "busy_mean_pct" in by and by["busy_mean_pct"][0] in ("gt", "gte"):
                parts.append(f"max_over_time({m}[{w}]) {PROMQL_OPS[by['busy_mean_pct'][0]]} {_num(by['busy_mean_pct'][1])}")
            m_legs.append(Leg("gpu_util", " and ".join(f"({p})" for p in parts), why))
        return m_legs
    if kind == "node_below_peers":
        if "ratio" in by and by["ratio"][0] in ("lt", "lte"):
            return NodeMeans("gpu_util", by["ratio"][0], float(by["ratio"][1]), why)
        return EVERYTHING
    if kind == "gpu_metric_trend":
        metrics = _values(*by.get("metric", ("in", list(TREND_SIGNAL))))
        keys = [TREND_SIGNAL[x] for x in metrics or [] if x in TREND_SIGNAL]
        legs = []
        for k in keys:
            lim = BY_KEY[TREND_LIMIT[k]].metrics[0] if k in TREND_LIMIT else None
            for m in BY_KEY[k].metrics:
                stat = {"slope_per_h": f"deriv({m}[{w}]) * 3600", "last": f"last_over_time({m}[{w}])",
                        "min": f"min_over_time({m}[{w}])", "max": f"max_over_time({m}[{w}])",
                        "p25": f"quantile_over_time(0.25, {m}[{w}])",
                        "drop_from_max_pct": f"(max_over_time({m}[{w}]) - last_over_time({m}[{w}])) / max_over_time({m}[{w}]) * 100"}
                if lim:
                    stat["headroom"] = f"last_over_time({lim}[{w}]) - last_over_time({m}[{w}])"
                    stat["p25_of_limit"] = f"quantile_over_time(0.25, {m}[{w}]) / last_over_time({lim}[{w}])"
                parts = [c for f, (op, v) in by.items() if f in stat for c in [_cmp(stat[f], op, v)] if c]
                if parts:
                    legs.append(Leg(k, " and ".join(parts), why))
        return legs or (NEVER if not keys else EVERYTHING)
    return EVERYTHING


def plan(patterns: list[tuple[str, list[tuple[str, dict[str, Any]]]]], window_s: int,
         ib_limits: dict[str, float]) -> Plan:
    """The screens of a run. ``patterns``: per rule, its id and its ``when.all`` patterns
    (kind, match); a rule is flagged by its first pattern that a screen can state (all of its
    patterns must match, so any one of them is a superset). ``ib_limits``: knowledge/ib_counters.yaml
    limit per hour by ib_port_counters field."""
    p = Plan()
    for rule_id, pats in patterns:
        compiled = [(kind, compile_pattern(kind, match, window_s, rule_id)) for kind, match in pats]
        compiled = [(k, c) for k, c in compiled if c is not None]
        if not compiled:
            continue
        if any(c == NEVER for _, c in compiled):
            p.never.append(rule_id)
            continue
        narrow = next((c for _, c in compiled if c != EVERYTHING), None)
        if narrow is None:
            for kind, _ in compiled[:1]:
                for s in KIND_SIGNALS[kind]:
                    p.whole.setdefault(s, rule_id)
        elif isinstance(narrow, NodeMeans):
            p.node_means.append(narrow)
        else:
            for leg in narrow:
                p.add(leg)
    for leg in ib_screens(window_s, ib_limits):
        p.add(leg)
    return p


#: node_exporter counters the fabric summary judges (facts/live/ib.py COUNTERS), by ib_port_counters field
IB_COUNTER_SIGNAL = {"link_downed": "ib_link_downed", "link_error_recovery": "ib_link_error_recovery",
                     "rcv_errors": "ib_rcv_errors"}


def ib_screens(window_s: int, limits: dict[str, float]) -> list[Leg]:
    """The ports engine/combine/fabric.py could report: not Active or not LinkUp at some time in the
    window, a rate below the best port's, an error counter growing faster than its limit in
    knowledge/ib_counters.yaml."""
    w = f"{int(window_s)}s"
    why = "engine/combine/fabric.py, knowledge/ib_counters.yaml"
    state, phys, rate = (BY_KEY[k].metrics[0] for k in ("ib_state", "ib_phys_state", "ib_rate"))
    legs = [Leg("ib_state", f"min_over_time({state}[{w}]) < 4", why),
            # not LinkUp now, or a change within the window
            Leg("ib_phys_state", f"{phys} != 5 or changes({phys}[{w}]) > 0", why),
            Leg("ib_rate", f"{rate} < scalar(max({rate}))", why)]
    for fname, key in IB_COUNTER_SIGNAL.items():
        if fname in limits:
            m = BY_KEY[key].metrics[0]
            legs.append(Leg(key, f"increase({m}[{w}]) > {_num(limits[fname] * window_s / 3600)}", why))
    return legs


#: recorded series (``steth rules export --format recording-rules``): the screens' flagged series
#: as ``steth:screen:<window>{steth_screen="<signal>",...}``, the node means as
#: ``steth:node_mean:<window>``, and ``steth:plan:<window>{steth_plan="<hash of the screens>"}``,
#: always present, which says the recording runs and is of these very screens
RECORDED_PREFIX = "steth:"


def recorded_names(window_s: int) -> tuple[str, str, str]:
    w = f"{int(window_s)}s"
    return f"{RECORDED_PREFIX}screen:{w}", f"{RECORDED_PREFIX}node_mean:{w}", f"{RECORDED_PREFIX}plan:{w}"


def tag(expr: str, signal: str) -> str:
    return f'label_replace({expr}, "steth_screen", "{signal}", "", "")'


def tagged_screen_query(legs: list[Leg]) -> str:
    """Legs of several signals in one query, each row tagged with its signal (``steth_screen``)."""
    return " or ".join(tag(leg.expr, leg.signal) for leg in legs)


def node_means_query(nm: NodeMeans, window_s: int, node_labels: tuple[str, ...]) -> str:
    """One row per node (grouped by the labels that may name it) with its mean over the window."""
    m = BY_KEY[nm.signal].metrics[0]
    return f"avg by ({', '.join(node_labels)}) (avg_over_time({m}[{int(window_s)}s]))"


def population(anchors: list[str]) -> str:
    """The healthy population, counted: for each anchor metric (one a source), the series of
    each scrape target at the evaluation time, one row a target (``steth_metric`` names it)."""
    return " or ".join(f'label_replace(count by (instance) ({m}), "steth_metric", "{m}", "", "")' for m in anchors)

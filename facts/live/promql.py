"""The PromQL of each signal: range functions evaluated by the server, one query per metric
family for the whole fleet, so that a run's answer grows with the number of series and not
with the number of samples in the window.

Each statistic is tagged with a ``steth_stat`` label (``label_replace``) and the statistics
of one family are joined with ``or`` (different label sets: nothing is dropped), e.g. for a
gauge over a 1 h window::

    label_replace(last_over_time(DCGM_FI_DEV_GPU_TEMP[3600s]), "steth_stat", "last", "", "")
    or label_replace(deriv(DCGM_FI_DEV_GPU_TEMP[3600s]), "steth_stat", "slope", "", "") or ...

Modes (``Signal.mode``):

- ``raw``: every sample (``METRIC[3600s]``), only for facts that need the shape of the
  series (GPU utilisation falling to zero again and again);
- ``gauge``: last, min, max, least-squares slope (``deriv``), lower quartile, sample count;
- ``counter``: last, min, max, resets, increase, sample count (growth is max - min when the
  counter never reset, else PromQL's increase);
- ``state``: last, min, max, changes, and the first and last time the series was in its
  "down" state (``timestamp`` inside a subquery);
- ``events``: only the non-zero points (``(METRIC > 0 or ...)[3600s:30s]``), and each series'
  last point: Xid codes;
- ``bits``: the last value and, per bit of a bit mask, the last time it was set (clock
  event reasons; PromQL has no bit operators, ``floor(v / bit) % 2 == 1`` is the bit).
"""
from __future__ import annotations

STEP_MIN_S = 15
STEPS_PER_WINDOW = 120  # subquery resolution: at most this many points per series


def step_s(window_s: int) -> int:
    return max(STEP_MIN_S, int(window_s) // STEPS_PER_WINDOW)


def _tag(expr: str, name: str) -> str:
    return f'label_replace({expr}, "steth_stat", "{name}", "", "")'


def _named(selector: str) -> str:
    """Keep the exporter's metric name through functions that drop ``__name__``."""
    return f'label_replace({selector}, "steth_metric", "$1", "__name__", "(.+)")'


def gauge(sel: str, w: str) -> str:
    return " or ".join([
        _tag(f"last_over_time({sel}[{w}])", "last"), _tag(f"min_over_time({sel}[{w}])", "min"),
        _tag(f"max_over_time({sel}[{w}])", "max"), _tag(f"deriv({sel}[{w}])", "slope"),
        _tag(f"quantile_over_time(0.25, {sel}[{w}])", "p25"), _tag(f"count_over_time({sel}[{w}])", "count"),
    ])


def counter(sel: str, w: str) -> str:
    return " or ".join([
        _tag(f"last_over_time({sel}[{w}])", "last"), _tag(f"min_over_time({sel}[{w}])", "min"),
        _tag(f"max_over_time({sel}[{w}])", "max"), _tag(f"resets({sel}[{w}])", "resets"),
        _tag(f"increase({sel}[{w}])", "increase"), _tag(f"count_over_time({sel}[{w}])", "count"),
    ])


def state(sel: str, w: str, down: str, step: int) -> str:
    """``down``: the comparison that is true in the down state (``< 4`` for an IB port)."""
    return " or ".join([
        _tag(f"last_over_time({sel}[{w}])", "last"), _tag(f"min_over_time({sel}[{w}])", "min"),
        _tag(f"max_over_time({sel}[{w}])", "max"), _tag(f"changes({sel}[{w}])", "changes"),
        _tag(f"min_over_time(timestamp({sel} {down})[{w}:{step}s])", "down_from"),
        _tag(f"max_over_time(timestamp({sel} {down})[{w}:{step}s])", "down_until"),
    ])


def events(sel: str, w: str, step: int, at: float) -> str:
    # the non-zero points, plus every series at the last step (value 0 included): a family
    # that is all zeros is present and healthy, not missing
    return f"({sel} > 0 or ({sel} and on() vector(time()) > {int(at) - step}))[{w}:{step}s]"


def bits(sel: str, w: str, step: int, masks: tuple[int, ...]) -> str:
    named = _named(sel)
    parts = [_tag(f"last_over_time({named}[{w}:{step}s])", "last")]
    for b in masks:
        parts.append(_tag(f"max_over_time((timestamp({named}) and floor({named} / {b}) % 2 == 1)[{w}:{step}s])", f"bit:{b}"))
    return " or ".join(parts)


def raw(sel: str, w: str) -> str:
    return f"{sel}[{w}]"


def build(mode: str, selector: str, window_s: int, at: float, down: str | None = None, masks: tuple[int, ...] = ()) -> str:
    w, step = f"{int(window_s)}s", step_s(window_s)
    if mode == "gauge":
        return gauge(selector, w)
    if mode == "counter":
        return counter(selector, w)
    if mode == "state":
        return state(selector, w, down or "== 0", step)
    if mode == "events":
        return events(selector, w, step, at)
    if mode == "bits":
        return bits(selector, w, step, masks)
    return raw(selector, w)

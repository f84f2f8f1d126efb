"""Every live query stays within VictoriaMetrics' default -search.maxQueryLen (engine/live/observe.py
MAX_QUERY_CHARS, --selector included): the families apart, then the targets in parts, nothing lost.
(tests/live/test_live_access.py runs a VictoriaMetrics at its default limits end to end.)"""
from __future__ import annotations

from stethoscope.engine.live import observe as live


def test_long_queries_are_split_and_cover_every_signal_and_target():
    sigs = [f"SIG_{i}" for i in range(6)]
    targets = {f"node{i:04d}:9400" for i in range(400)}

    def build(ss, tg):
        return " or ".join(f'{s}{{instance=~"{"|".join(sorted(tg))}"}}' for s in ss)

    scope = lambda q: q.replace("}", ',cluster="a"}')  # noqa: E731 - what --selector adds
    parts = live._within_length_parts(sigs, targets, build, scope)
    assert len(parts) > 1
    assert all(len(scope(q)) <= live.MAX_QUERY_CHARS for _, q in parts)
    covered = {(s, t) for ss, q in parts for s in ss for t in targets if f"{t}" in q}
    assert covered == {(s, t) for s in sigs for t in targets}


def test_a_short_query_is_sent_whole():
    parts = live._within_length_parts(["A", "B"], {"n1:9400"}, lambda ss, tg: " or ".join(ss), lambda q: q)
    assert parts == [(["A", "B"], "A or B")]

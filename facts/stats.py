"""Small statistics on samples, shared by the bundle parsers and the live facts, so that a
stall read from `nvidia-smi dmon` and one read from DCGM are judged alike."""
from __future__ import annotations


def zero_runs(values: list[float]) -> int:
    """How many separate runs of zero (or negative) samples the series holds."""
    runs, prev = 0, False
    for v in values:
        z = v <= 0
        runs += z and not prev
        prev = z
    return runs

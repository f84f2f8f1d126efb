"""``steth calibrate``: propose alert thresholds per GPU model from the fleet's own history.

The seed warns against thresholds copied from the internet: what is normal for one model,
cooling design and data centre is a fault for another. Over the window, each GPU's 99th
percentile is taken (``quantile_over_time``, one query per metric for the whole fleet);
per model, the proposal is the highest of those plus a margin, with the spread shown so that
an operator can judge it.
"""
from __future__ import annotations

import statistics
from collections import defaultdict

from stethoscope.facts.live.prom import Prom

#: metric -> (our name, margin added to the fleet's p99, unit)
METRICS = {
    "DCGM_FI_DEV_GPU_TEMP": ("gpu_temp_c", 5.0, "C"),
    "DCGM_FI_DEV_MEMORY_TEMP": ("memory_temp_c", 5.0, "C"),
    "DCGM_FI_DEV_POWER_USAGE": ("power_w", 0.0, "W"),
}


def calibrate(url: str, at: float, window_s: int, timeout: float = 30.0) -> dict:
    prom = Prom(url, timeout=timeout)
    models: dict[str, dict] = defaultdict(dict)
    for metric, (name, margin, unit) in METRICS.items():
        rows = prom.instant(f"quantile_over_time(0.99, {metric}[{window_s}s])", at)
        per_model: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            per_model[row["metric"].get("modelName", "unknown")].append(float(row["value"][1]))
        for model, values in per_model.items():
            models[model][name] = {
                "gpus": len(values), "p99_median": round(statistics.median(values), 1),
                "p99_max": round(max(values), 1), "proposed_threshold": round(max(values) + margin, 1), "unit": unit,
            }
    return {"window_s": window_s, "at": at, "source": url,
            "method": "per GPU p99 over the window (quantile_over_time); threshold = max over the model's GPUs + margin",
            "models": dict(models)}

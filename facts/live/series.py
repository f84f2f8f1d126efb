"""One series of a Prometheus answer (facts/live/prom.py reads them): apart from the HTTP client,
so that what reads saved series (facts/live/dcgm.py, a saved dcgm-exporter scrape:
facts/parsers/dcgm_exporter_scrape.py) never loads requests and its TLS stack at start-up."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.live.access import DEFAULT_NODE_LABELS, node_of
from stethoscope.facts.model import Evidence


@dataclass
class Series:
    """One series of a family: its labels, samples (ts, value) oldest first, its row in the answer."""

    query: str
    row: int  # 1-based position in the query's answer: the evidence "line"
    labels: dict[str, str]
    samples: list[tuple[float, float]]
    at: float | None = None  # summarised series: the evaluation time of the query
    stats: dict[str, float] = field(default_factory=dict)  # steth_stat -> value (promql.py)
    node_labels: tuple[str, ...] = DEFAULT_NODE_LABELS  # --node-label (facts/live/access.py)

    @property
    def metric(self) -> str:
        return self.labels.get("__name__", "")

    @property
    def node(self) -> str:
        return node_of(self.labels, self.node_labels)

    @property
    def gpu(self) -> str | None:
        return try_pci_bus_id(self.labels.get("pci_bus_id"))

    @property
    def last(self) -> tuple[float, float]:
        return self.samples[-1]

    def sample_text(self, ts: float, value: float) -> str:
        keep = {k: v for k, v in sorted(self.labels.items()) if k != "__name__"}
        lab = ",".join(f'{k}="{v}"' for k, v in keep.items())
        val = int(value) if value == int(value) else value
        return f"{self.metric}{{{lab}}} {val} @{ts:.0f} ({time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(ts))})"

    def evidence(self, ts: float | None = None, value: float | None = None) -> Evidence:
        if ts is None:
            ts, value = self.last
        return Evidence(path=self.query, line=self.row, text=self.sample_text(ts, value))

    def stat_evidence(self, *names: str) -> Evidence:
        """The statistics the server computed over the window, as the query returned them:
        ``DCGM_FI_DEV_GPU_TEMP{...} last=84 max=84 slope=0.0067/s over the window @1712350800 (...)``."""
        keep = {k: v for k, v in sorted(self.labels.items()) if k != "__name__"}
        lab = ",".join(f'{k}="{v}"' for k, v in keep.items())
        vals = " ".join(f"{n}={_num(self.stats[n])}" + ("/s" if n == "slope" else "") for n in names if n in self.stats)
        at = self.at if self.at is not None else self.last[0]
        return Evidence(path=self.query, line=self.row,
                        text=f"{self.metric}{{{lab}}} {vals} over the window @{at:.0f} ({time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(at))})")


def _num(v: float) -> str:
    return str(int(v)) if v == int(v) else f"{v:.6g}"

"""A saved dcgm-exporter ``/metrics`` scrape (Prometheus text format): the same facts as the
live Prometheus path (:mod:`stethoscope.facts.live.dcgm`), from one reading per series.

Sample content (dcgm-exporter 3.3+, ``curl localhost:9400/metrics``)::

    # HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
    # TYPE DCGM_FI_DEV_GPU_TEMP gauge
    DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-b6c3...",pci_bus_id="00000000:91:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 84
    DCGM_FI_DEV_XID_ERRORS{gpu="0",pci_bus_id="00000000:91:00.0",Hostname="node1",err_code="79",err_msg="GPU has fallen off the bus"} 79

Each sample line is read with prometheus-client's parser
(``prometheus_client.parser.text_string_to_metric_families``) and becomes a one-point series;
the series of the families :mod:`stethoscope.facts.live.signals` names then go through the
live path's fact builders (Xid, temperatures, power, ECC, row remapping, PCIe replays, clock
event reasons, identity). Facts cite the sample's line. A series without ``pci_bus_id`` (the
exporters before 2.x's label, whose samples name only ``gpu`` and ``UUID``) cannot be tied to a
GPU: its line is not read (a scrape of only such lines is recognised, not read: never healthy),
and a non-zero Xid among them is a parse problem that names it (never dropped in silence); a line
the parser refuses is a parse error, unless it is the text's last line (a paste cut inside its last
sample: ``cut_short``, never healthy). Only the samples facts are made from count as read (a scrape
of families no fact reads checks nothing), HELP/TYPE lines only with them. A node is named by the
``Hostname``/``hostname`` label, else by the bundle.
"""
from __future__ import annotations

import math
import re

from prometheus_client.parser import text_string_to_metric_families

from stethoscope.facts.live import dcgm
from stethoscope.facts.live.series import Series
from stethoscope.facts.live.signals import SIGNALS
from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dcgm_exporter_scrape"

# DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-...",pci_bus_id="00000000:91:00.0",Hostname="node1"} 84
_SAMPLE = re.compile(r"^DCGM_FI_\w+(?:\{[^\n]*\})?\s+\S+(?:\s+\d+)?\s*$", re.M)
#: exporter metric name -> our signal key (newest and older names alike)
_NO_TIME = "1970-01-01T00:00:01Z"  # how a sample without timestamp (read as 1 s) is stamped
_KEY = {name: s.key for s in SIGNALS if s.source == "dcgm-exporter" for name in s.metrics}


def detect(head: str) -> bool:
    return "DCGM_FI_" in head and bool(_SAMPLE.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    fam: dict[str, list[Series]] = {}
    comments = 0
    for n, line in enumerate(artefact.lines, 1):
        if line.startswith("#") and ("DCGM_FI_" in line):
            comments += 1  # HELP / TYPE
            continue
        if not line.startswith("DCGM_FI_"):
            continue
        try:
            samples = [s for f in text_string_to_metric_families(line + "\n") for s in f.samples]
        except (ValueError, IndexError) as exc:  # prometheus_client: IndexError on an empty label name
            # DCGM_FI_DEV_FB_FREE{gpu="0",UUI      (a scrape pasted into a thread, cut where the stored excerpt ends:
            #   NVIDIA/dcgm-exporter#736) the exporter writes one whole sample a line: an unreadable last line was cut
            #   (cut_short), an unreadable line inside the scrape is a problem
            fb.error_unless_last(n, f"dcgm-exporter scrape: unreadable sample: {exc}", "a dcgm-exporter sample")
            continue
        for s in samples:
            key = _KEY.get(s.name)
            if key is None:
                continue
            if not math.isfinite(s.value):  # NaN, +Inf: no Xid code, count or reading
                fb.error(n, f"dcgm-exporter scrape: value {s.value} of {s.name} is not a finite number")
                continue
            labels = {**s.labels, "__name__": s.name}
            if try_pci_bus_id(labels.get("pci_bus_id")) is None:
                # DCGM_FI_DEV_XID_ERRORS{gpu="0", UUID="GPU-604ac76c-..."} 79   (no pci_bus_id label)
                if key == "xid" and s.value > 0:
                    fb.error(n, f"dcgm-exporter scrape: Xid {int(s.value)} on GPU {labels.get('gpu', '?')} "
                                f"({labels.get('UUID', 'no UUID')}) without a pci_bus_id label: not tied to a GPU")
                break
            result.lines_used += 1  # a sample of a family the facts are made from, tied to a GPU
            if not (labels.get("Hostname") or labels.get("hostname")):
                labels["Hostname"] = artefact.node
            ts = float(s.timestamp) if s.timestamp else 1.0
            series = Series(query=artefact.path, row=n, labels=labels, samples=[(ts, float(s.value))])
            if key == "clock_reasons":  # the live query's per-bit "last set" statistics, from one value
                series.stats = {f"bit:{bit}": ts for bit in dcgm.CLOCK_REASON_BITS if int(s.value) & bit}
            fam.setdefault(key, []).append(series)
    if result.lines_used:
        result.lines_used += comments
    if not fam:
        return result
    out = dcgm.LiveFacts()
    dcgm.xid_facts(fam.get("xid", []), out)
    dcgm.clock_reason_facts(fam.get("clock_reasons", []), out)
    dcgm.gpu_state_facts(fam, out)
    dcgm.gpu_info_facts(fam, out)
    for fact in out.facts:  # cite the scrape's own line, with ids of the bundle's form
        line = fact.evidence.line
        kind = fact.kind
        base = f"{artefact.path}:{line}:{kind}"
        n = sum(1 for f in result.facts if f.id.split("#")[0] == base)
        update = {"id": base if n == 0 else f"{base}#{n}",
                  "evidence": Evidence(path=artefact.path, line=line, text=artefact.lines[line - 1])}
        if getattr(fact, "timestamp", None) == _NO_TIME:  # the sample had no timestamp of its own
            update["timestamp"] = None
        result.facts.append(fact.model_copy(update=update))
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_SAMPLE,)

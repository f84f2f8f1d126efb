"""``dcgmi dmon -e <field ids>`` (DCGM): field values sampled per entity, one row per sample.

Sample content (DCGM 3.1.8 on H800, liguodongiot/llm-action docs/llm-base/dcgmi.md; the header
and row layout of dcgmi/DeviceMonitor.cpp: ``#Entity`` and the fields' short names, then ``ID``
and their units, then ``<entity group> <id>`` and one value per field, ``N/A`` when there is
none, ``N/W`` when the field is not watched)::

    #Entity   NVLTX                       NVLRX                       PCITX                       PCIRX
    ID
    GPU 0     N/A                         N/A                         N/A                         N/A
    GPU 0     0                           0                           498948                      1555

Facts: ``dcgm_dmon_series`` per entity and field: how many samples, how many had no value,
the minimum, maximum and last value (numbers as printed: bytes/s for the PCIe and NVLink
profiling fields, ratios for the activity fields). A table printed twice (two runs pasted
together) starts again at its ``#Entity`` line. DCGM 4.5+ prints ``N/A`` where 4.4 printed ``0`` for a
field with no value (NVIDIA/dcgm-exporter#700: XIDER, GNVERR, the clock-event counters): a missing
sample, never a zero. A row with fewer values than fields is a parse problem, unless it is the
text's last line: a paste cut inside its last row (``cut_short``). Telemetry, not a health check: rules compare
it. No ``#Entity`` header: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import DcgmDmonSeries  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dcgmi_dmon"

# #Entity   NVLTX                       NVLRX                       PCITX                       PCIRX
_HEADER = re.compile(r"^\s*#Entity\s+(?P<fields>\S(?:.*\S)?)\s*$")
# ID          (then each field's unit, when it has one: "W", "C", "%")
_UNITS = re.compile(r"^\s*ID(?:\s+\S.*)?\s*$")
# GPU 0     0                           0                           498948                      1555
# GPU 0 LINK 3     12    /    SW 1 LINK 2  ...    /    GPU-I 1  ...
_ROW = re.compile(r"^\s*(?P<group>GPU-CI|GPU-I|GPU|VGPU|SW|Switch|CPU_CORE|CPU|CX|LINK)\s+(?P<id>\d+)(?:\s+LINK\s+(?P<link>\d+))?\s+(?P<vals>\S(?:.*\S)?)\s*$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_DETECT = re.compile(r"^\s*#Entity\s+\S", re.M)


def detect(head: str) -> bool:
    return "#Entity" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    fields: list[str] = []
    series: dict[tuple[str, str], dict] = {}
    for n, line in enumerate(artefact.lines, 1):
        if (h := _HEADER.match(line)) is not None:
            fields = h["fields"].split()
            result.lines_used += 1
        elif fields and _UNITS.match(line):
            result.lines_used += 1
        elif fields and (r := _ROW.match(line)) is not None:
            vals = r["vals"].split()
            if len(vals) != len(fields):
                msg = f"dcgmi dmon: {len(vals)} values for {len(fields)} fields"
                if len(vals) < len(fields):
                    # GPU 0           N/A          N/A          N/A      (9 fields: NVIDIA/dcgm-exporter#700's DCGM 4.5.3
                    #   table as the stored excerpt ends) dmon prints every field of a row on one line: a last row
                    #   short of values was cut where the paste ended (cut_short), one inside the table is a problem
                    b.error_unless_last(n, msg, "a dcgmi dmon row")
                else:
                    b.error(n, msg)
                continue
            entity = f"{r['group']} {r['id']}" + (f" LINK {r['link']}" if r["link"] else "")
            for field, raw in zip(fields, vals):
                s = series.setdefault((entity, field), {"line": n, "group": r["group"], "id": int(r["id"]), "values": [], "missing": 0})
                num = re.sub(r"\(.*\)$", "", raw)  # a poster's "38735656050(36.07GB/s)" annotation
                if _NUMBER.match(num):
                    s["values"].append(float(num))
                else:
                    s["missing"] += 1
            result.lines_used += 1
    for (entity, field), s in series.items():
        v = s["values"]
        b.add(DcgmDmonSeries, s["line"], entity=entity, entity_group=s["group"],
              gpu=s["id"] if s["group"] == "GPU" else None, field=field, samples=len(v) + s["missing"],
              missing=s["missing"], minimum=min(v) if v else None, maximum=max(v) if v else None, last=v[-1] if v else None)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

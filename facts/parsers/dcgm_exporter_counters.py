"""dcgm-exporter's collectors file: the metrics it is told to watch (``-f/--collectors``, default
``/etc/dcgm-exporter/default-counters.csv`` or ``dcp-metrics-included.csv``; the same rows in a
ConfigMap's ``dcgm-metrics.csv: |`` block).

One row a metric, three comma-separated columns (the file's own header, dcgm-exporter's
etc/default-counters.csv and README; the type one of its ``promMetricType`` keys: gauge, counter,
histogram, summary, label, internal/pkg/counters); ``#`` starts a comment, and a commented-out
metric is a row too. Sample content (NVIDIA/dcgm-exporter#338, its collectors file)::

    # DCGM FIELD, Prometheus metric type, help message
    DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for uncorrectable errors
    DCGM_FI_DEV_ROW_REMAP_FAILURE,           gauge,   Whether remapping of rows has failed
    # DCGM_FI_DEV_PCIE_TX_THROUGHPUT,  counter, Total number of bytes transmitted through PCIe TX (in KB) via NVML.

Facts: none. The file is configuration: it says which fields the exporter serves, nothing of a
GPU's state; its help strings ("uncorrectable errors", "has failed") describe what a metric
counts. Read, its rows are no error lines of an unknown file (before: three of them read as
unexplained errors, NVIDIA/dcgm-exporter#338), and it checks nothing (knowledge/coverage.yaml).
What the exporter then served is :mod:`dcgm_exporter_scrape`'s. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, ParseResult

KIND = "dcgm_exporter_counters"

# DCGM_FI_DEV_ROW_REMAP_FAILURE,           gauge,   Whether remapping of rows has failed
# # DCGM_FI_PROF_PCIE_TX_BYTES,  counter, The number of bytes of active PCIe tx (transmit) data including both header and payload.
# DCGM_EXP_XID_ERRORS_COUNT, gauge, Count of XID errors within user-specified time window (see xid-count-window-size param).
_ROW = re.compile(r"^[ \t]*(?:#[ \t]*)?DCGM_(?:FI|EXP)_[A-Z0-9_]+[ \t]*,[ \t]*(?:gauge|counter|histogram|summary|label)[ \t]*,",
                  re.M)
# # DCGM FIELD, Prometheus metric type, help message        # Format        # If line starts with a '#' it is considered a comment
_HEADER = re.compile(r"^[ \t]*# ?(?:DCGM FIELD, Prometheus metric type, help message|Format,*|If line starts with a '#'[^\n]*)[ \t]*$",
                     re.M)
_DETECT = _ROW


def detect(head: str) -> bool:
    if "DCGM_" not in head:
        return False
    return _ROW.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    text = artefact.text
    # one match a line: each pattern is anchored at a line's start and stops inside it
    result.lines_used = sum(1 for _ in _ROW.finditer(text)) + sum(1 for _ in _HEADER.finditer(text))
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

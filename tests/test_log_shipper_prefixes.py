"""Cloud log viewers' line prefixes (fixtures/artefacts/log_shipper_prefix, each from the thread its README names).

Each form's reference pattern is below: what facts/lines.py should take off a line so that its reader sees the
program's own line (and the viewer's severity word, ERROR on every stderr line, is not read as the program's). The
Cloud Logging's and Vertex AI's columns are stripped (facts/lines.py _CLOUD_VIEWER), the CloudWatch console's
over a text whose every row after the first carries it (_cloudwatch_column).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from stethoscope.facts.lines import normalise

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "artefacts" / "log_shipper_prefix"

#: Cloud Logging's LogSeverity names (google.logging.type.LogSeverity)
_SEVERITY = r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY)"
#: Logs Explorer's copy (GKE, Cloud Run): severity, one blank, the entry's RFC 3339 UTC time with nanoseconds, one blank
#:   ERROR 2025-04-05T00:01:19.509514570Z ./entrypoint.sh: line 48: 28 Killed python3 -m sglang.launch_server ...
CLOUD_LOGGING = re.compile(_SEVERITY + r" \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z ")
#: Vertex AI's job log view: severity padded, local time and offset, the replica, each column tab- or blank-separated
#:   ERROR   2022-01-26 14:19:41 +1100       workerpool0-0   Configuration saved in /tmp/xlm-roberta-large/...
VERTEX = re.compile(_SEVERITY + r"[ \t]+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}[ \t]+workerpool\d+-\d+[ \t]+")
#: the CloudWatch console's event table: the column separator before every row after the first
#:   (only over a file whose other rows all carry it: a markdown table's rows end with "|" too)
#:   | 2020-09-21 11:24:15,359 [INFO ] pool-1-thread-3 ACCESS_LOG - /127.0.0.1:32868 "GET /ping HTTP/1.1" 200 0
CLOUDWATCH_CONSOLE = re.compile(r"[ \t]{1,4}\|[ \t]")

CASES = [("sglang5096_cloud_logging_paste.log", CLOUD_LOGGING), ("vertex242_console_workerpool_paste.log", VERTEX),
         ("sagemaker70_cloudwatch_console_paste.log", CLOUDWATCH_CONSOLE)]


@pytest.mark.parametrize("name, prefix", CASES, ids=[c[0] for c in CASES])
def test_reference_patterns_match_every_line(name, prefix):
    """The patterns themselves: each takes its viewer's columns off every line of the real paste (bar the
    CloudWatch table's first row) and nothing of the program's line."""
    lines = (FIX / name).read_text().splitlines()
    hit = [bool(prefix.match(ln)) for ln in lines]
    assert all(hit[1:] if prefix is CLOUDWATCH_CONSOLE else hit), name


@pytest.mark.parametrize("name, prefix", CASES, ids=[c[0] for c in CASES])
def test_normalise_strips_the_viewer_columns(name, prefix):
    """The paste reads as the program's own lines would: the viewer's columns off, then whatever the
    program's lines carry themselves (SGLang's ``[2025-04-05 00:01:19] `` logger stamp) as without them."""
    text = (FIX / name).read_text()
    bare = "\n".join(prefix.sub("", ln, count=1) if prefix.match(ln) else ln for ln in text.splitlines())
    assert str(normalise(text)).splitlines() == str(normalise(bare)).splitlines()
    assert not any(prefix.match(ln) for ln in str(normalise(text)).splitlines())


@pytest.mark.parametrize("text", [
    "| GPU | Name |\n  | --- | --- |\n  | 0 | H200 |\n",  # a markdown table's rows: every one ends in "|"
    "Summary\n  | 2020-09-21 11:24:15,359 [INFO ] ok\nplain line\n",  # a row without the column: not the console's copy
    "Summary\n  | one row\n",  # one row says too little
])
def test_no_cloudwatch_column_where_rows_do_not_all_carry_it(text):
    assert not str(normalise(text)).startswith("Summary\none row") and "  | " in str(normalise(text))

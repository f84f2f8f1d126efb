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


# --- issue 11, session 24: journald's monotonic clock, RFC 5424 syslog, a launcher's label on every line ---------

def test_journald_short_monotonic_label_goes_from_a_program_s_line():
    """journalctl -o short-monotonic (systemd logs-show.c "[%5llu.%06llu]", then host and tag) on a program's
    line: the stamp, host and tag[pid] go (systemd/systemd#30054's line); the kernel's lines keep theirs
    (systemd/systemd#34250's), and a dmesg line whose device looks like "host tag:" (no [pid]) is kept."""
    assert normalise("[   20.888224] localhost systemd[1]: Hostname set to <localhost>.\n") == \
        "Hostname set to <localhost>.\n"
    for kept in ("[    7.636966] LibreELEC kernel: Booting Linux on physical CPU 0x0\n",
                 # fixtures/artefacts/kernel_log/propolis578_nvme_io_timeout_aborting.log, ogkm116_open_module_missing_nvdec0_gsp_rm.log
                 "[  265.311275] nvme nvme1: I/O 775 QID 2 timeout, aborting\n",
                 "[    3.786773] ucsi_ccg 1-0008: i2c_transfer failed -110\n"):
        assert normalise(kept) is kept, kept


def test_rfc5424_header_goes():
    """RFC 5424 (rsyslog's RSYSLOG_SyslogProtocol23Format: "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME%
    %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%"): the header goes, structured data too (RFC 5424
    section 6.5's examples 1 and 3, their BOM left out); dmesg -r's "<4>[...]" is no RFC 5424 header."""
    assert normalise("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed for "
                     "lonvick on /dev/pts/8\n") == "'su root' failed for lonvick on /dev/pts/8\n"
    assert normalise('<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 '
                     'iut="3" eventSource="Application" eventID="1011"] An application event log entry...\n') == \
        "An application event log entry...\n"
    kept = "<4>[  12.345678] NVRM: GPU 0000:00:03.0: RmInitAdapter failed!\n"
    assert normalise(kept) is kept


LABELS = [
    "webui-docker-auto-1  | ",  # docker compose v2 (AbdBarho/stable-diffusion-webui-docker#388)
    "bug_1  | ",  # docker compose v1 (pytorch/pytorch#73790)
    "scalellm          | ",  # docker compose, a fixed container_name: no index (vectorch-ai/ScaleLLM#38)
    "node17: ",  # pdsh src/pdsh/dsh.c rsh(): out("%S: %s", a->host, buf)
]
CASES_DIR = FIX.parent.parent / "harvest" / "cases"


def _read(text: str):
    from stethoscope.engine.parse_pool import parse_one
    from stethoscope.facts.parsers.base import Artefact

    res = parse_one(Artefact(path="app.log", text=text, node="n1"))
    return sorted((f.kind, f.evidence.line) for f in res.facts), res


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("case, name", [("155-", "nccl-line-quoted-in-thread.log"), ("162-", "dcgmi-diag.txt"),
                                        ("116-", "nccl-tests.txt")])
def test_a_launcher_label_on_every_line_is_read_through(label, case, name):
    """A launcher's label on every line of a log, a table or a fragment (not only an indented report) is
    taken off where more readers then read the text: the facts of the plain file, on the same lines, each
    quoting the line as posted (the label kept). Harvest files, each line under a real label form."""
    text = next(CASES_DIR.glob(case + "*/" + name)).read_text()
    wrapped = "".join(label + ln + "\n" for ln in text.split("\n")[:-1])
    plain, _ = _read(text)
    got, res = _read(wrapped)
    assert plain and got == plain
    first = next(f for f in res.facts if f.evidence.text)
    assert first.evidence.text.startswith(label)


@pytest.mark.parametrize("label", LABELS)
def test_a_traceback_its_reader_reads_nothing_of_is_read_bare_under_a_label(label):
    """A launcher's label on a fragment whose reader reads nothing of it either way (harvest 3005: a hand-typed
    torch elastic SignalException line, torch_log's signature, no form of its own) comes off too: the failure
    line no reader read is then found in its words (unread_failures) as it is without the label. Before: the
    label kept, the line's words not found, INCONCLUSIVE "recognised but not read"."""
    text = next(CASES_DIR.glob("3005-*/app-quoted-in-text.txt")).read_text()
    wrapped = "".join(label + ln + "\n" for ln in text.split("\n")[:-1])
    plain, _ = _read(text)
    got, res = _read(wrapped)
    assert ("text_error_line", 2) in plain and got == plain
    assert next(f for f in res.facts if f.kind == "text_error_line").evidence.text.startswith(label)


def test_a_compose_label_without_an_index_and_compose_exit_line_are_read_through():
    """A container with a fixed container_name has no "-N" in its label (vectorch-ai/ScaleLLM#38, the stored
    excerpt: "scalellm          | ./entrypoint.sh: line 28:     7 Killed ...", then compose's own unlabelled
    "scalellm exited with code 137"): the label comes off, compose's line stays, and the shell's Killed report is
    read on the line as posted. Before: the label kept, only compose's exit line read."""
    from stethoscope.facts.lines import without_line_labels

    text = (FIX.parent / "subprocess_error" / "scalellm38_compose_exit_137.txt").read_text()
    assert without_line_labels(text) == text.replace("scalellm          | ", "")
    got, res = _read(text)
    assert [ln for _, ln in got] == [1, 2]
    assert next(f for f in res.facts if f.evidence.line == 1).evidence.text.startswith("scalellm          | ./entrypoint.sh")


@pytest.mark.parametrize("text", [
    # bars in different columns: no compose output (compose pads every name to one width)
    "scalellm          | ./entrypoint.sh: line 28:     7 Killed\nscalellm   | ./entrypoint.sh: line 28:     7 Killed\n",
    # one blank before the bar: compose writes two at least ("%-*s | ", the longest name + 1)
    "scalellm | ./entrypoint.sh: line 28:     7 Killed\n",
    # an exit line of a container no label names
    "scalellm          | ./entrypoint.sh: line 28:     7 Killed\nother exited with code 137\n",
])
def test_not_a_compose_label_without_an_index(text):
    from stethoscope.facts.lines import without_line_labels

    assert without_line_labels(text) is None


def test_a_kernel_device_label_on_every_line_is_kept():
    """Must not: a kernel device's label on every line ("nvidia-nvswitch0: SXid ...", dmesg -t of
    fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log's line) is its reader's: the same facts, the device read."""
    line = "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up\n"
    got, res = _read(line * 2)
    assert got and all(f.evidence.text == line.rstrip("\n") for f in res.facts if f.evidence.text)
    assert {getattr(f, "switch_name", None) for f in res.facts if f.kind == "nvswitch_sxid"} == {"nvidia-nvswitch0"}
    from stethoscope.facts.lines import without_line_labels
    assert without_line_labels(line * 2) is not None  # (offered: the readers decide)


def test_label_patterns_read_a_long_run_without_its_colon_once():
    """A long run of letters and digits with no colon (a hex dump, a base64 blob) costs the label
    patterns one pass, not one a digit (_LABEL's host part is bounded: 48 s before, on 100,000 characters)."""
    import time

    from stethoscope.facts import lines

    text = "\n" + "node1" * 20_000 + "\nnode1: x\n"
    started = time.perf_counter()
    for pat in (lines._REPORT_LABEL, lines._ANY, lines._LINE_LABEL, lines._LINE_UNLABELLED, lines._JOURNAL, lines._RFC5424,
                lines._BLOCK_LABEL):
        pat.search(text)
    assert time.perf_counter() - started < 1.0


def test_the_node_is_read_behind_a_launcher_label(tmp_path):
    """The NCCL host of lines under pdsh's or compose's label names the file's node (the label itself is
    not taken for a host: a kernel device's looks the same). Harvest 116's nccl-tests lines."""
    from stethoscope.facts.bundle import artefacts, read_bundle

    text = next(CASES_DIR.glob("116-*/nccl-tests.txt")).read_text()
    for i, label in enumerate(LABELS):
        (tmp_path / f"f{i}.log").write_text("".join(label + ln + "\n" for ln in text.split("\n")[:-1]))
    arts, _ = artefacts(read_bundle(tmp_path))
    assert {a.node for a in arts} == {"swat1-04"}


TABLE = FIX.parent.parent / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi.txt"  # a healthy 2xH200 table


@pytest.mark.parametrize("label", [lb for lb in LABELS if "|" in lb])
def test_a_compose_labelled_run_below_a_table_is_read_through(label):
    """Round rF5's probe: `docker compose logs` of an nccl-tests run pasted under the host's nvidia-smi table (harvest
    2501's real results, 5.45 GB/s on its largest size): only the run carries compose's label, so the label stayed on
    (without_line_labels wants every line), the nccl-tests lines went unread and the table's GPUs read HEALTHY. The
    run's label now comes off (without_block_labels): the results are read as they are bare, evidence quoting the
    labelled line."""
    results = next(CASES_DIR.glob("2501-*/nccl-tests-with-mpirun.txt")).read_text().split("\n")
    run = [ln for ln in results if ln.strip()]
    table = TABLE.read_text().rstrip("\n")
    bare_got, _ = _read(table + "\n\n" + "\n".join(run) + "\n")
    got, res = _read(table + "\n\n" + "".join(label + ln + "\n" for ln in run))
    assert got == bare_got and any(k.startswith("nccl_test") for k, _ in got), got
    rows = [f for f in res.facts if f.kind.startswith("nccl_test") and f.evidence.text]
    assert rows and all(f.evidence.text.startswith(label) for f in rows)


@pytest.mark.parametrize("text", [
    # a table whose first cells repeat, a bar after each: ipmitool sdr elist's rows (real)
    (FIX.parent / "ipmitool_sdr" / "dell36_sdr_elist_all.txt").read_text(),
    # every label a different name: distributed NHC's per-node results (real)
    (FIX.parent / "nhc" / "azurehpc_distributed_nhc_results.txt").read_text(),
    # bars in different columns, and one labelled line alone (constructed): no compose run
    "GPU 0 ok\ntrainer-1  | step 1\ntrainer-1   | step 2\n",
    "GPU 0 ok\ntrainer-1  | step 1\nGPU 1 ok\n",
])
def test_not_a_compose_labelled_run(text):
    from stethoscope.facts.lines import without_block_labels

    assert without_block_labels(text) is None

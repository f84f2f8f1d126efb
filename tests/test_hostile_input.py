"""Hostile input within a memory budget (issue 13): encodings, long lines, windows of large
files, capped fact tables, hardened XML, deep folders, lazy archives, safe output.

Small inputs only; the issue's sizes are measured by bench/hostile.py."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.cli.render import render_markdown, render_text, safe
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.report import Coverage, Report, SkippedFile, Source
from stethoscope.facts import bundle as B
from stethoscope.facts.bundle import LazyFile, artefacts, read_bundle
from stethoscope.facts.decode import Decoder, sniff
from stethoscope.facts.limits import KEPT_PER_BYTE, PROCESS_COST, WORKER_COST, Budget, parse_size
from stethoscope.facts.parsers import base

ROOT = Path(__file__).resolve().parent.parent
XID79 = ROOT / "fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log"
XID_LINE = "[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
SMI_XML = ROOT / "fixtures/artefacts/nvidia_smi_xml/v100_r470_q_i1.xml"


def _causes(report, node=None):
    return {f.cause for f in report.findings if node is None or node in (f.nodes or [f.entity.node])}


def _good(folder: Path) -> None:
    (folder / "node1").mkdir(parents=True, exist_ok=True)
    (folder / "node1" / "dmesg.log").write_bytes(XID79.read_bytes())


# --- encodings --------------------------------------------------------------------------------

TEXT = "NVRM: Xid 79 caf\u00e9\nline two\n"


@pytest.mark.parametrize("enc,bom", [
    ("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
    ("utf-16-le", b""), ("utf-16-be", b""), ("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff"),
    ("utf-32-le", b""), ("utf-32-be", b""),
])
def test_unicode_encodings_with_or_without_mark_read_alike(enc, bom):
    data = bom + TEXT.replace("\n", "\r\n").encode(enc)
    codec, skip, errors = sniff(data)
    stream = io.BytesIO(data[skip:])
    assert "".join(t for _, t in Decoder(codec, errors).windows(stream)) == TEXT


def test_latin1_without_utf8_sequences_and_mostly_utf8_with_a_bad_byte():
    assert sniff(b"temp\xe9rature 84 C\n")[0] == "latin-1"
    assert sniff("caf\u00e9 \u2603\n".encode() + b"\xff\n")[0] == "utf-8"
    assert sniff(b"\x7fELF\x02\x01\x01\x00\x00\x00") is None  # binary stays binary


def test_utf16_and_crlf_logs_give_their_findings(tmp_path):
    _good(tmp_path)
    for node, enc in (("node2", "utf-16"), ("node3", "utf-16-le"), ("node4", "utf-32")):
        (tmp_path / node).mkdir()
        (tmp_path / node / "dmesg.log").write_bytes(XID79.read_text().replace("\n", "\r\n").encode(enc))
    report = diagnose_bundle(tmp_path)
    for node in ("node1", "node2", "node3", "node4"):
        assert "gpu_fell_off_bus" in _causes(report, node), node
    ev = next(e for f in report.findings for e in f.evidence if e.path == "node2/dmesg.log")
    assert ev.line == 3 and ev.text.startswith("[6781741.548779] NVRM: Xid") and "\r" not in ev.text


# --- long lines, windows, capped tables -------------------------------------------------------

def test_a_huge_line_is_cut_and_reported_and_the_good_file_found(tmp_path):
    _good(tmp_path)
    (tmp_path / "node2").mkdir()
    long = "[6781741.548779] NVRM: Xid (PCI:0000:91:00): " + "A" * (3 << 20)
    (tmp_path / "node2" / "dmesg.log").write_text(long + "\n" + XID_LINE + "\n")
    budget = Budget(64 << 20)  # window 1 MiB, lines cut at 256 KiB
    report = diagnose_bundle(tmp_path, budget=budget)
    assert "gpu_fell_off_bus" in _causes(report, "node1")
    # the line after the cut one is read, with its own line number
    assert any(e.path == "node2/dmesg.log" and e.line == 2 for f in report.findings for e in f.evidence)
    (hit,) = [h for h in report.coverage.limits if h.limit == "max_line_chars"]
    assert hit.path == "node2/dmesg.log" and hit.line == 1 and f"{len(long):,}" in hit.detail
    assert len(report.model_dump_json()) < 64 << 10  # no quote of the whole line anywhere
    assert report.verdict == "faulty"


def test_evidence_text_is_cut_with_its_length_noted():
    from stethoscope.facts.parsers import kernel_log

    line = XID_LINE + " " + "x" * 20_000
    res = kernel_log.parse(base.Artefact("dmesg.log", line + "\n"))
    (xid,) = [f for f in res.facts if f.kind == "xid_event"]
    assert len(xid.evidence.text) < 4200 and "[line cut: 20,1" in xid.evidence.text


def test_a_file_larger_than_a_window_keeps_its_line_numbers_and_one_coverage_row(tmp_path):
    (tmp_path / "node1").mkdir()
    noise = "".join(f"[    4.{i:06d}] mlx5_core 0000:0c:00.0: E-Switch: Total vports 10\n" for i in range(60_000))
    (tmp_path / "node1" / "dmesg.log").write_text(noise + XID_LINE + "\n" + noise + XID_LINE + "\n")
    budget = Budget(64 << 20)
    assert len(noise) > budget.window_chars
    report = diagnose_bundle(tmp_path, budget=budget, jobs=1)
    lines = sorted({e.line for f in report.findings for e in f.evidence if "Xid" in e.text})
    assert lines == [60_001, 120_002]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log"]
    assert report.coverage.files[0].skipped_lines >= 120_000 - 10


def test_distinct_messages_past_the_cap_are_counted_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "FACTS_PER_KIND", 50)
    _good(tmp_path)
    (tmp_path / "node2").mkdir()
    (tmp_path / "node2" / "train.log").write_text("".join(
        f"node2:1552:1564 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.0.{i // 256}.{i % 256}<{30000 + i}>\n"
        for i in range(300)))
    report = diagnose_bundle(tmp_path, jobs=1)
    capped = [h for h in report.coverage.limits if h.limit == "facts_per_kind"]
    assert capped and capped[0].path == "node2/train.log" and "counted, not kept" in capped[0].detail
    assert re.search(r"\b250 more\b", capped[0].detail) or sum(int(re.search(r"([\d,]+) more", h.detail)[1].replace(",", ""))
                                                               for h in capped) >= 250
    assert "gpu_fell_off_bus" in _causes(report, "node1")
    assert report.verdict == "faulty"


# --- XML ---------------------------------------------------------------------------------------

def test_deeply_nested_nvidia_smi_xml_stops_at_the_depth_limit(tmp_path):
    _good(tmp_path)
    (tmp_path / "node2").mkdir()
    n = 20_000
    xml = SMI_XML.read_text().replace("</nvidia_smi_log>", "<gpu id=\"00000000:aa:00.0\">" + "<a>" * n + "</a>" * n
                                      + "</gpu>\n</nvidia_smi_log>")
    (tmp_path / "node2" / "nvidia-smi-q.xml").write_text(xml)
    report = diagnose_bundle(tmp_path, jobs=1)
    (hit,) = [h for h in report.coverage.limits if h.limit == "xml_depth"]
    assert hit.path == "node2/nvidia-smi-q.xml" and hit.line > 1
    # the GPU before the hostile part is read
    assert any(c.path == "node2/nvidia-smi-q.xml" and c.facts > 0 for c in report.coverage.files)
    assert "gpu_fell_off_bus" in _causes(report, "node1")


# --- folders and archives ----------------------------------------------------------------------

@pytest.fixture
def deep_tree(tmp_path):
    """A folder 1,500 deep, removed with rm -rf: shutil.rmtree (pytest's clean-up) recurses."""
    deep = str(tmp_path / "node2")
    os.mkdir(deep)
    for _ in range(1500):
        deep += "/d"
        os.mkdir(deep)
    (Path(deep) / "dmesg.log").write_bytes(XID79.read_bytes())
    yield tmp_path
    subprocess.run(["rm", "-rf", str(tmp_path / "node2")], check=True)


def test_a_folder_1500_deep_is_walked_without_recursion_to_its_depth_limit(deep_tree):
    tmp_path = deep_tree
    _good(tmp_path)
    shallow = tmp_path / "node3" / "a" / "b"
    shallow.mkdir(parents=True)
    (shallow / "dmesg.log").write_bytes(XID79.read_bytes())
    report = diagnose_bundle(tmp_path, jobs=1)
    assert {"node1", "node3"} <= {n for f in report.findings for n in f.nodes}
    (skip,) = [s for s in report.coverage.skipped if "deeper than" in s.reason]
    assert skip.path.count("/") == B.MAX_DEPTH
    assert any(h.limit == "folder_depth" for h in report.coverage.limits)


def test_folder_files_keep_walk_order(tmp_path):
    for rel in ("b/z.log", "a/y.log", "a.log", "a/c/x.log", "a/b.log"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    assert [n for n, _ in read_bundle(tmp_path).files] == ["a.log", "a/b.log", "a/y.log", "a/c/x.log", "b/z.log"]


def test_archive_members_are_listed_not_held(tmp_path):
    tgz = tmp_path / "b.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(XID79, arcname="bundle/node1/dmesg.log")
        data = XID79.read_bytes()
        for i in range(3):
            info = tarfile.TarInfo(f"bundle/node{i + 2}/dmesg.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    raw = read_bundle(tgz)
    assert all(isinstance(d, LazyFile) for _, d in raw.files)
    arts, skipped = artefacts(raw)
    assert [a.path for a in arts] == ["node1/dmesg.log", "node2/dmesg.log", "node3/dmesg.log", "node4/dmesg.log"]
    assert all("Xid" in a.text for a in arts) and not skipped
    assert {"node1", "node2", "node3", "node4"} <= {n for f in diagnose_bundle(tgz).findings for n in f.nodes}


# --- output safety -------------------------------------------------------------------------------

def test_ansi_escapes_never_reach_the_terminal(tmp_path):
    (tmp_path / "node1").mkdir()
    (tmp_path / "node1" / "dmesg.log").write_text(
        XID_LINE.replace("GPU has", "\x1b[2J\x1b]0;owned\x07\x1b[31mGPU\x1b[0m has\x08") + "\n")
    report = diagnose_bundle(tmp_path)
    buf = io.StringIO()
    render_text(report, Console(file=buf, highlight=False, emoji=False, soft_wrap=True, force_terminal=False))
    out = buf.getvalue()
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", out)
    assert "\\x1b[2J" in out and "fallen off" in out or "fell off" in out
    md = render_markdown(report)
    assert "\x1b" not in md and "\x07" not in md


def test_markdown_fence_is_longer_than_any_backtick_run_and_a_lone_cr_breaks_no_line(tmp_path):
    (tmp_path / "node1").mkdir()
    (tmp_path / "node1" / "dmesg.log").write_text(
        XID_LINE.replace("name=<unknown>", "name=\r```\r# injected\r`````") + "\n")
    md = render_markdown(diagnose_bundle(tmp_path))
    lines = re.split(r"\r\n|\r|\n", md)
    assert not any(line.startswith("# injected") for line in lines)
    fence = next(line for line in lines if line.startswith("```"))
    assert len(fence) == 6  # longer than the ````` in the log line
    assert "\\x0d```\\x0d# injected" in md


def test_safe_shows_every_control_character():
    assert safe("a\x1b[31mb\x07\x9b\u2028") == "a\\x1b[31mb\\x07\\x9b\\u2028"
    assert safe("tab\tkept") == "tab\tkept"


def test_huge_file_lists_are_summarised_in_text_and_whole_in_json():
    skipped = [SkippedFile(path=f"node{i}/core.{i}", reason="binary file") for i in range(5000)]
    skipped += [SkippedFile(path=f"node{i}/big.log", reason="larger than 256 MiB") for i in range(3)]
    report = Report(source=Source(kind="bundle", path="x"), verdict="inconclusive", findings=[],
                    coverage=Coverage(skipped=skipped, unrecognised=[s.path for s in skipped[:5000]]), reason="r")
    buf = io.StringIO()
    render_text(report, Console(file=buf, width=200))
    out = buf.getvalue()
    assert len(out.splitlines()) < 30
    assert "5,000 x binary file: node0/core.0, node1/core.1" in out and "4,995 more" in out
    assert "3 x larger than 256 MiB" in out
    assert len(json.loads(report.model_dump_json())["coverage"]["skipped"]) == 5003


# --- the budget ----------------------------------------------------------------------------------

def test_budget_sizes_and_jobs():
    b = Budget(1_000_000_000)
    assert 16 << 20 <= b.window_chars <= 32 << 20
    assert 1 <= b.jobs(64) <= 6  # a 1 GB budget holds a few workers, never 64
    # what the main process will hold of the bundle's text and the workers' windows, sized by the
    # largest file: 1,024 bench nodes (1,340 MB, files of at most 214 kB) hold 10 workers, measured
    # at 923-927 MB for the whole tree's Pss on a 16-core host (facts/limits.WORKER_COST, KEPT_PER_BYTE)
    bench = b.jobs(16, 1_340_100_000, 214_000)
    assert bench == 10
    assert b.jobs(16, 167_500_000, 214_000) == 16  # 128 bench nodes: every CPU
    assert 1 <= b.jobs(16, 2_680_000_000, 214_000) < bench  # a larger bundle leaves less room
    assert 1 <= b.jobs(16, 1_340_100_000, 500_000_000) < bench  # a worker in a large file's window holds more
    for total, largest in ((1_340_100_000, 214_000), (1_340_100_000, 500_000_000), (167_500_000, 10**6)):
        n = b.jobs(64, total, largest)
        held = PROCESS_COST + KEPT_PER_BYTE * total + b.inflight_chars + n * (WORKER_COST + 4 * min(b.window_chars, largest))
        assert n == 1 or held <= b.max_memory
    assert 1 <= Budget(300 << 20).jobs(8) <= 2  # a small budget holds a worker or two (WORKER_COST 32 MiB: two)
    assert parse_size("1G") == 10**9 and parse_size("1.5GiB") == 3 << 29 and parse_size("800M") == 8 * 10**8


@pytest.mark.parametrize("value,ok", [("1G", True), ("10M", False), ("lots", False)])
def test_max_memory_option(tmp_path, value, ok):
    _good(tmp_path)
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(tmp_path), "--max-memory", value, "--format", "json"])
    if ok:
        assert res.exit_code == 1 and "gpu_fell_off_bus" in res.stdout
    else:
        assert res.exit_code == 3 and "--max-memory" in res.output and "Traceback" not in res.output

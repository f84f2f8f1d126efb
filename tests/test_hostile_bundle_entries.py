"""What a hostile bundle folder or archive may hold besides logs: loops of links, names that are
not UTF-8, names with control characters. Each is a report (or a line of the coverage), never
an internal error, and the evidence of the good file beside them is still found."""
from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
XID79 = (ROOT / "fixtures" / "artefacts" / "kernel_log" / "dmesg_xid79_sxid.log").read_bytes()
CONTROL = "\x1b[31mred\x07\nline.log"  # an escape, a bell, a newline in a file name


def _run(bundle: Path, fmt: str):
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(bundle), "-f", fmt])
    assert res.exit_code == 1, res.output  # faulty: the Xid 79 of the good file
    assert "internal error" not in res.output and "Traceback" not in res.output
    return res.output


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    b = tmp_path / "bundle"
    b.mkdir()
    (b / "good.log").write_bytes(XID79)
    os.symlink("b_link", b / "a_link")  # a loop of two links
    os.symlink("a_link", b / "b_link")
    os.symlink("nowhere", b / "dangling")
    os.symlink(".", b / "loop_self")  # a folder linked to itself
    (b / "sub").mkdir()
    os.symlink("..", b / "sub" / "up")
    (b / os.fsdecode(b"latin1_\xe9t\xe9.log")).write_bytes(XID79.replace(b"0000:91:00", b"0000:a1:00"))
    (b / f"ctl{CONTROL}").write_bytes(b"hello\n")
    return b


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_link_loops_bad_and_control_names_are_listed_and_the_good_file_read(hostile_folder, fmt):
    out = _run(hostile_folder, fmt)
    assert "\x1b" not in out and "\x07" not in out  # never raw to a terminal or a page
    assert "a_link" in out and "b_link" in out and "dangling" in out
    if fmt == "json":
        doc = json.loads(out)
        skipped = {s["path"]: s["reason"] for s in doc["coverage"]["skipped"]}
        assert "loop of links" in skipped["a_link"] and "loop of links" in skipped["dangling"]
        assert skipped["loop_self"] == skipped["sub/up"] == "linked folder not followed"
        read = {f["path"] for f in doc["coverage"]["files"]}
        # the name that is not UTF-8 is written with its byte, and its file is read
        assert {"good.log", "latin1_\\xe9t\\xe9.log"} <= read
        gpus = {f["entity"].get("gpu") for f in doc["findings"] if f["cause"] == "gpu_fell_off_bus"}
        assert gpus == {"0000:91:00.0", "0000:a1:00.0"}


def test_markdown_coverage_lists_skipped_files_with_their_names_quoted(hostile_folder):
    out = _run(hostile_folder, "markdown")
    cov = out.split("## Coverage", 1)[1]
    assert "- skipped: `a_link`: link that leads nowhere" in cov
    assert "- `latin1_\\xe9t\\xe9.log`: kernel_log" in cov
    # the control characters of a name are shown, and its newline does not end the list item
    assert "`ctl\\x1b[31mred\\x07\\x0aline.log`" in cov


def test_tar_member_named_in_latin1_is_read_and_the_report_serialises(tmp_path):
    path = tmp_path / "b.tar"
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT, encoding="latin-1") as tar:  # the name's bytes as they are
        info = tarfile.TarInfo("node1/dmesg_\xe9.log")
        info.size = len(XID79)
        tar.addfile(info, io.BytesIO(XID79))
    doc = json.loads(_run(path, "json"))
    (row,) = doc["coverage"]["files"]
    assert row["path"].endswith("dmesg_\\xe9.log")

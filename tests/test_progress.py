"""Progress on standard error (issue 12 item 5): only on a terminal, only for long runs, --quiet."""
import io
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.cli.progress import TerminalProgress, for_terminal
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.progress import SILENT

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle"


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def _terminal():
    buf = io.StringIO()
    return buf, Console(file=buf, force_terminal=True, width=100)


def test_nothing_is_drawn_before_two_seconds():
    buf, console = _terminal()
    clock = Clock()
    p = TerminalProgress(console, clock=clock)
    p.phase("reading", files=3, nbytes=300)
    p.file_done("a", 100, 5)
    p.done()
    assert buf.getvalue() == ""


def test_a_long_run_shows_phase_files_bytes_and_facts():
    buf, console = _terminal()
    clock = Clock()
    p = TerminalProgress(console, clock=clock)
    p.phase("reading", files=3, nbytes=3000)
    clock.t = 2.5
    p.file_done("a", 1000, 7)
    assert p.bar is not None
    p.bar.refresh()
    shown = buf.getvalue()
    p.done()
    assert "reading: 1/3 files, 7 facts" in shown
    assert "1.0/3.0 kB" in shown


def test_the_pipeline_reports_every_file_and_phase(ruleset):
    seen = []

    class Record:
        def phase(self, name, files=None, nbytes=None):
            seen.append(("phase", name, files))

        def file_done(self, path, nbytes, facts):
            seen.append(("file", path, nbytes > 0))

        def done(self):
            seen.append(("done",))

    diagnose_bundle(BUNDLE, ruleset, jobs=1, progress=Record())
    files = [s for s in seen if s[0] == "file"]
    assert seen[0][:2] == ("phase", "reading") and seen[0][2] == len(files) > 5
    assert all(ok for _, _, ok in files)
    assert [s[1] for s in seen if s[0] == "phase"] == ["reading", "combining", "rules", "localising"]
    assert seen[-1] == ("done",)


def test_not_a_terminal_or_quiet_means_no_progress():
    assert for_terminal(quiet=True) is SILENT
    assert for_terminal(quiet=False) is SILENT  # pytest's standard error is not a terminal
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(BUNDLE), "--quiet", "--format", "json"])
    assert res.exit_code == 0, res.output

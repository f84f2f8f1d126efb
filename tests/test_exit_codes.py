"""The README's table of exit codes, checked through the CLI for every command.

CliRunner for the codes, a real ``.venv/bin/steth`` subprocess where it matters that the
process itself (not the runner) reports them: a closed standard output and an internal error.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from stethoscope.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = ROOT / "fixtures" / "bundles"
HEALTHY = BUNDLES / "h200-healthy" / "bundle"
FAULTY = BUNDLES / "h200-xid31-app" / "bundle"
NCCL_TESTS = ROOT / "fixtures/observations/h200-x2/nccl-tests/allreduce_healthy_g2.txt"
STETH = Path(sys.executable).parent / "steth"
if not STETH.exists():
    STETH = Path(shutil.which("steth") or ROOT / ".venv" / "bin" / "steth")
runner = CliRunner()


def readme_table() -> dict[int, str]:
    """The rows ``| code | meaning |`` in README's "Exit codes" paragraph."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("**Exit codes.**", 1)[1].split("\n#", 1)[0]
    return {int(m[1]): m[2].split(":")[0].strip() for m in re.finditer(r"^\|\s*(\d)\s*\|\s*([^|]+)\|", section, re.M)}


def leaf_commands() -> set[str]:
    """Every command path the app offers, e.g. 'rules lint', 'baseline compare'."""
    def walk(cmd, prefix):
        subs = getattr(cmd, "commands", None)
        if not subs:
            return {prefix.strip()}
        return set().union(*(walk(c, f"{prefix} {name}") for name, c in subs.items()))
    return walk(get_command(app), "")


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("STETH_BASELINE_DB", str(tmp_path / "baselines.sqlite"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("STETH_DEBUG", raising=False)


def steth(*args) -> "object":
    res = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res


def _one_plain_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("steth: ") and not any(c in lines[0] for c in "╭│╰"), lines[0]
    return lines[0]


def test_readme_table_is_the_one_the_cli_keeps():
    from stethoscope.cli import exits

    table = readme_table()
    assert table == {0: "healthy", 1: "faulty", 2: "inconclusive", 3: "bad usage or unreadable input", 4: "internal error (a bug in steth, or a shipped rule that does not load)"}
    assert (exits.HEALTHY, exits.FAULTY, exits.INCONCLUSIVE, exits.BAD_USAGE, exits.INTERNAL) == (0, 1, 2, 3, 4)
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("**Exit codes.**", 1)[1].split("\n|", 1)[0]
    for top in {c.split()[0] for c in leaf_commands()}:
        assert f"`{top}" in readme, f"README's exit-code paragraph does not list {top}"


# --- 0, 1, 2: what each command does when it works -----------------------------------------------


def _collect_spec(tmp: Path) -> Path:
    spec = tmp / "cmds.yaml"
    spec.write_text("source: test\ncommands:\n  - {name: uname, argv: [uname, -a], file: uname.txt, timeout: 10}\n")
    return spec


def _bad_rule(tmp: Path) -> Path:
    bad = tmp / "bad_rule.yaml"
    bad.write_text("id: bad_rule\ntitle: x\ncause: no_such_cause\ncomponent: gpu\nseverity: fatal\nwhen: {all: []}\n")
    return bad


def _record(tmp: Path) -> None:
    assert steth("baseline", "record", NCCL_TESTS, "--name", "pair").exit_code == 0


def _patrol_suite(tmp: Path) -> Path:
    """A one-step patrol suite of a real command (uname: identity only, so the run is inconclusive)."""
    spec = tmp / "patrol.yaml"
    spec.write_text("source: test\nversion: 1\nsteps:\n  - {name: uname, title: uname -a, argv: [uname, -a], file: uname.txt,"
                    " timeout: 10, reads: host_info, requires: [uname], skip_reason: no uname}\n")
    return spec


def _patrol(tmp: Path) -> None:
    res = steth("patrol", "run", "--suite", _patrol_suite(tmp), "--out", tmp / "p", "--db", tmp / "h.sqlite", "--node", "n1")
    assert res.exit_code == 2, res.output


# (command path, expected code, argv builder taking tmp_path)
WORKING = [
    ("diagnose", 0, lambda t: ["diagnose", "--from-logs", HEALTHY]),
    ("diagnose", 1, lambda t: ["diagnose", "--from-logs", FAULTY]),
    ("diagnose", 2, lambda t: ["diagnose", "--from-logs", (t / "empty").mkdir() or t / "empty"]),
    ("schema report", 0, lambda t: ["schema", "report"]),
    ("rules list", 0, lambda t: ["rules", "list"]),
    ("rules lint", 0, lambda t: ["rules", "lint", ROOT / "rules" / "gpu" / "xid79_gpu_fell_off_bus.yaml"]),
    ("rules lint", 1, lambda t: ["rules", "lint", _bad_rule(t)]),
    ("rules test", 0, lambda t: ["rules", "test", ROOT / "tests/rules/gpu/gsp_firmware_error.test.yaml"]),
    ("rules export", 0, lambda t: ["rules", "export", "-o", t / "r.yml"]),
    ("docs", 0, lambda t: ["docs", "--out", t / "docs"]),
    ("docs", 1, lambda t: ["docs", "--check", "--out", t / "stale"]),
    ("kb search", 0, lambda t: ["kb", "search", "xid", "79"]),
    ("kb search", 1, lambda t: ["kb", "search", "zzzqqq"]),
    ("kb show", 0, lambda t: ["kb", "show", "fabric-manager-not-running"]),
    ("kb check", 0, lambda t: ["kb", "check", ROOT / "knowledge/cases/fabric-manager-not-running.yaml"]),
    ("baseline record", 0, lambda t: ["baseline", "record", NCCL_TESTS, "--name", "pair"]),
    ("baseline list", 0, lambda t: ["baseline", "list"]),
    ("baseline show", 0, lambda t: _record(t) or ["baseline", "show", "pair"]),
    ("baseline compare", 0, lambda t: _record(t) or ["baseline", "compare", NCCL_TESTS, "--name", "pair"]),
    ("topology show", 0, lambda t: ["topology", "show", HEALTHY]),
    ("collect", 0, lambda t: ["collect", "--out", t / "b", "--node", "n1", "--commands", _collect_spec(t)]),
    ("plan", 0, lambda t: ["plan", "--gpus", "1000", "--metrics", "50", "--interval", "15s", "--days", "30"]),
    ("dashboards export", 0, lambda t: ["dashboards", "export", "--out", t / "dash"]),
    ("patrol run", 2, lambda t: ["patrol", "run", "--suite", _patrol_suite(t), "--out", t / "p", "--db", t / "h.sqlite", "--node", "n1"]),
    ("patrol history", 0, lambda t: _patrol(t) or ["patrol", "history", "--db", t / "h.sqlite"]),
    ("patrol baseline record", 0, lambda t: _patrol(t) or ["patrol", "baseline", "record", "--db", t / "h.sqlite"]),
    ("patrol baseline show", 0, lambda t: _patrol(t) or steth("patrol", "baseline", "record", "--db", t / "h.sqlite").exit_code
     or ["patrol", "baseline", "show", "--db", t / "h.sqlite"]),
]


@pytest.mark.parametrize("path,code,argv", WORKING, ids=[f"{p}-{c}" for p, c, _ in WORKING])
def test_working_commands(tmp_path, path, code, argv):
    res = steth(*argv(tmp_path))
    assert res.exit_code == code, res.output


def test_kb_add_validates_or_keeps_the_draft(tmp_path):
    report = tmp_path / "r.json"
    report.write_text(steth("diagnose", "--from-logs", FAULTY, "-f", "json").stdout)
    res = steth("kb", "add", "--from-report", report, "--out", tmp_path / "draft.yaml")
    assert res.exit_code == 1, res.output  # TODO fields left: a problem found, not bad usage


# --- 3: bad usage, one plain line ----------------------------------------------------------------

BAD_USAGE = [
    ("diagnose", lambda t: ["diagnose", "--no-such-option"]),
    ("diagnose", lambda t: ["diagnose", "--from-logs", HEALTHY, "--jobs", "0"]),
    ("diagnose", lambda t: ["diagnose", "--from-logs", t / "missing"]),
    ("diagnose", lambda t: ["diagnose", "--from-logs"]),
    ("diagnose", lambda t: ["diagnose", "--from-logs", HEALTHY, "--format", "yaml"]),
    ("diagnose", lambda t: ["diagnose", "--from-logs", HEALTHY, "--baseline", "never-recorded"]),
    ("schema report", lambda t: ["schema", "report", "--no-such-option"]),
    ("schema report", lambda t: ["schema", "no-such-schema"]),
    ("rules list", lambda t: ["rules", "list", "--no-such-option"]),
    ("rules lint", lambda t: ["rules", "lint", t / "missing.yaml"]),
    ("rules test", lambda t: ["rules", "test", t / "missing.test.yaml"]),
    ("rules export", lambda t: ["rules", "export", "--format", "yaml"]),
    ("rules export", lambda t: ["rules", "export", "-o", t / "no" / "such" / "dir.yml"]),
    ("docs", lambda t: ["docs", "--out"]),
    ("kb search", lambda t: ["kb", "search"]),
    ("kb search", lambda t: ["kb", "search", "xid", "--limit", "many"]),
    ("kb show", lambda t: ["kb", "show"]),
    ("kb check", lambda t: ["kb", "check", t / "missing.yaml"]),
    ("kb add", lambda t: ["kb", "add", "--from-report", t / "missing.json"]),
    ("baseline record", lambda t: ["baseline", "record", t / "missing.txt", "--name", "x"]),
    ("baseline record", lambda t: ["baseline", "record", NCCL_TESTS]),
    ("baseline compare", lambda t: ["baseline", "compare", NCCL_TESTS, "--name", "never-recorded"]),
    ("baseline list", lambda t: ["baseline", "list", "--format", "yaml"]),
    ("baseline show", lambda t: ["baseline", "show"]),
    ("topology show", lambda t: ["topology", "show", t / "missing"]),
    ("collect", lambda t: ["collect"]),
    ("collect", lambda t: ["collect", "--out", t / "b", "--commands", t / "missing.yaml"]),
    ("watch", lambda t: ["watch", "--prometheus", "http://127.0.0.1:9", "--every", "soon"]),
    ("watch", lambda t: ["watch", "--prometheus", "http://127.0.0.1:9", "--listen", "nowhere"]),
    ("calibrate", lambda t: ["calibrate"]),
    ("calibrate", lambda t: ["calibrate", "--prometheus", "http://127.0.0.1:9", "--window", "zz"]),
    ("plan", lambda t: ["plan", "--metrics", "50"]),
    ("dashboards export", lambda t: ["dashboards", "export"]),
    ("dashboards export", lambda t: ["dashboards", "export", "--out", t / "d", "--node-label", ",,"]),
    ("plan", lambda t: ["plan", "--gpus", "8", "--interval", "often"]),
    ("patrol run", lambda t: ["patrol", "run", "--only", "no_such_step"]),
    ("patrol run", lambda t: ["patrol", "run", "--launcher", "ssh"]),
    ("patrol history", lambda t: ["patrol", "history", "--db", t / "missing.sqlite"]),
    ("patrol baseline record", lambda t: ["patrol", "baseline", "record", "--db", t / "missing.sqlite"]),
    ("patrol baseline show", lambda t: ["patrol", "baseline", "show", "--db", t / "missing.sqlite"]),
]


def test_every_command_has_a_usage_case_and_an_internal_error_case():
    assert {p for p, _ in BAD_USAGE} == leaf_commands()
    assert set(INTERNAL) == leaf_commands()


@pytest.mark.parametrize("path,argv", BAD_USAGE, ids=[f"{p}-{i}" for i, (p, _) in enumerate(BAD_USAGE)])
def test_bad_usage_is_3_with_one_plain_line(tmp_path, path, argv):
    res = steth(*argv(tmp_path))
    assert res.exit_code == 3, res.output
    _one_plain_line(res.stderr)
    assert res.stdout == "", "nothing but the command's output goes to stdout"


def test_missing_command_shows_help_and_is_3():
    for args in ([], ["rules"], ["kb"], ["baseline"]):
        res = steth(*args)
        assert res.exit_code == 3
        assert "missing command" in _one_plain_line(res.stderr)


def test_version():
    res = steth("--version")
    assert res.exit_code == 0 and res.stdout == f"steth {version('gpu-stethoscope')}\n"


# --- 4: an internal error names its traceback file -----------------------------------------------


def _boom(*_a, **_k):
    raise ValueError("boom from the test")


# command path -> (what to break, argv)
INTERNAL = {
    "diagnose": ("stethoscope.engine.ruleengine.loader.load_rules", ["diagnose", "--from-logs", HEALTHY]),
    "schema report": ("stethoscope.engine.report.Report.model_json_schema", ["schema", "report"]),
    "rules list": ("stethoscope.engine.ruleengine.loader.load_rules", ["rules", "list"]),
    "rules lint": ("stethoscope.engine.ruleengine.loader.load_rules", ["rules", "lint"]),
    "rules test": ("stethoscope.engine.ruletests.run_file", ["rules", "test", ROOT / "tests/rules/gpu/gsp_firmware_error.test.yaml"]),
    "rules export": ("stethoscope.engine.live.alert_rules.export", ["rules", "export"]),
    "docs": ("stethoscope.engine.docs.generate", ["docs", "--check"]),
    "kb search": ("stethoscope.engine.catalogues.kb.search", ["kb", "search", "xid"]),
    "kb show": ("stethoscope.engine.catalogues.kb.get", ["kb", "show", "x"]),
    "kb check": ("stethoscope.engine.catalogues.kb.validate_case", ["kb", "check", ROOT / "knowledge/cases/fabric-manager-not-running.yaml"]),
    "kb add": ("stethoscope.engine.catalogues.kb.draft_from_report", ["kb", "add", "--from-report", ROOT / "README.md"]),
    "baseline record": ("stethoscope.engine.baselines.run.record", ["baseline", "record", NCCL_TESTS, "--name", "x"]),
    "baseline compare": ("stethoscope.engine.baselines.run.compare", ["baseline", "compare", NCCL_TESTS, "--name", "x"]),
    "baseline list": ("stethoscope.engine.baselines.store.list_all", ["baseline", "list"]),
    "baseline show": ("stethoscope.engine.baselines.store.load", ["baseline", "show", "x"]),
    "topology show": ("stethoscope.engine.pipeline.diagnose_bundle", ["topology", "show", HEALTHY]),
    "collect": ("stethoscope.facts.collect.collect", ["collect", "--out", ROOT / "no-such-out"]),
    "watch": ("stethoscope.engine.live.watch.Watcher", ["watch", "--prometheus", "http://127.0.0.1:9"]),
    "calibrate": ("stethoscope.engine.live.calibrate.calibrate", ["calibrate", "--prometheus", "http://127.0.0.1:9"]),
    "plan": ("stethoscope.engine.live.plan.plan", ["plan", "--gpus", "8"]),
    "dashboards export": ("stethoscope.engine.live.dashboards.write", ["dashboards", "export", "--out", ROOT / "no-such-out"]),
    "patrol run": ("stethoscope.engine.patrol.run.run_node", ["patrol", "run", "--out", ROOT / "no-such-out"]),
    "patrol history": ("stethoscope.engine.patrol.store.trend", ["patrol", "history"]),
    "patrol baseline record": ("stethoscope.engine.patrol.store.record_baseline", ["patrol", "baseline", "record"]),
    "patrol baseline show": ("stethoscope.engine.patrol.store.load_baseline", ["patrol", "baseline", "show"]),
}


@pytest.mark.parametrize("path", sorted(INTERNAL))
def test_internal_error_is_4_and_names_the_traceback(tmp_path, monkeypatch, path):
    target, argv = INTERNAL[path]
    if path == "kb add":  # the report must parse before the draft is made
        (tmp_path / "r.json").write_text("{}")
        argv = ["kb", "add", "--from-report", tmp_path / "r.json", "--out", tmp_path / "d.yaml"]
    monkeypatch.setattr(target, _boom)
    res = steth(*argv)
    assert res.exit_code == 4, res.output
    line = _one_plain_line(res.stderr)
    m = re.fullmatch(r"steth: internal error: ValueError: boom from the test \(traceback in (.+)\)", line)
    assert m, line
    saved = Path(m[1])
    assert saved.parent == tmp_path / "state" / "gpu-stethoscope"
    assert "Traceback" in saved.read_text() and "boom from the test" in saved.read_text()


# --- a real process: closed standard output, internal error -------------------------------------


@pytest.mark.parametrize("argv,code", [
    (["diagnose", "--from-logs", HEALTHY], 0),
    (["diagnose", "--from-logs", FAULTY], 1),
    (["diagnose", "--from-logs", FAULTY, "-f", "json"], 1),
    (["rules", "list"], 0),
])
def test_closed_stdout_keeps_the_exit_code(argv, code, tmp_path):
    env = os.environ | {"XDG_STATE_HOME": str(tmp_path)}
    p = subprocess.Popen([str(STETH), *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.close()  # the reader is gone before the first write: every write meets EPIPE
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == code, err
    assert err == ""


def test_head_1_keeps_the_exit_code():
    shell = f"set -o pipefail; '{STETH}' diagnose --from-logs '{HEALTHY}' | head -1"
    res = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("HEALTHY") and len(res.stdout.splitlines()) == 1


def test_internal_error_in_a_real_process(tmp_path):
    code = ("import sys, stethoscope.engine.report as r\n"
            "def boom(*a, **k): raise KeyError('no such field')\n"
            "r.Report.model_json_schema = boom\n"
            "from stethoscope.cli.main import main\n"
            "sys.argv = ['steth', 'schema', 'report']\n"
            "main()\n")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "STETH_DEBUG")} | {"TMPDIR": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 4, res.stderr
    line = _one_plain_line(res.stderr)
    saved = Path(re.search(r"\(traceback in (.+)\)$", line)[1])
    assert saved.parent == tmp_path and saved.name.startswith("steth-traceback-")
    assert "KeyError" in saved.read_text() and res.stdout == ""
    assert json.loads(subprocess.run([str(STETH), "schema", "report"], capture_output=True, text=True).stdout)


def test_shipped_rules_that_do_not_load_are_internal(monkeypatch):
    from stethoscope.engine.ruleengine import loader

    monkeypatch.setattr(loader, "load_rules", lambda *a, **k: loader.RuleSet([], ["gpu/x.yaml:1: broken"]))
    for argv in (["diagnose", "--from-logs", HEALTHY], ["rules", "export"], ["baseline", "compare", NCCL_TESTS, "--name", "x"]):
        res = steth(*argv)
        assert res.exit_code == 4, (argv, res.output)
        assert "internal error: shipped rules do not load" in _one_plain_line(res.stderr)


def test_the_console_entry_ends_after_the_atexit_handlers_with_the_code(tmp_path):
    """cli/main.main ends the process by exits.leave (no teardown of the interpreter after the atexit
    handlers): the exit code is the verdict's, the whole report is written, an atexit handler of the
    process ran, and the folder standard input was spooled to (removed by an atexit handler) is gone;
    an object held to the end is not freed one by one (the teardown skipped)."""
    marker = tmp_path / "atexit-ran"
    freed = tmp_path / "freed-at-teardown"
    code = ("import atexit, sys, pathlib\n"
            f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')\n"
            "class Held:\n"
            f"    def __del__(self): pathlib.Path({str(freed)!r}).write_text('freed')\n"
            "held = Held()\n"
            "from stethoscope.cli.main import main\n"
            "sys.argv = ['steth', 'diagnose', '--from-logs', '-', '--format', 'json']\n"
            "main()\n")
    paste = NCCL_TESTS.read_bytes()
    env = {k: v for k, v in os.environ.items() if k != "STETH_DEBUG"} | {"TMPDIR": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", code], input=paste, capture_output=True, env=env, timeout=120)
    report = json.loads(res.stdout)
    assert res.returncode == {"healthy": 0, "faulty": 1, "inconclusive": 2}[report["verdict"]], res.stderr
    assert marker.read_text() == "yes"
    assert not list(tmp_path.glob("steth-stdin-*"))
    assert not freed.exists()  # the interpreter's teardown, which would free it, did not run


def test_leave_takes_the_ordinary_exit_where_it_cannot_end_the_process_itself():
    """A code that is no exit status (a message, None), or a thread other than daemons alive: exits.leave
    raises the SystemExit it was given (the interpreter then exits as it would have)."""
    import threading

    from stethoscope.cli.exits import leave

    for exc in (SystemExit("a message"), SystemExit(None), SystemExit(True), SystemExit(256)):
        with pytest.raises(SystemExit) as got:
            leave(exc)
        assert got.value is exc
    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=False)
    t.start()
    try:
        with pytest.raises(SystemExit) as got:
            leave(SystemExit(0))
        assert got.value.code == 0
    finally:
        stop.set()
        t.join()


def test_only_the_console_entry_keeps_the_collector_off_and_holds_the_diagnosis():
    """Through CliRunner (a test, a caller of the app) a diagnosis leaves the collector as it found it
    and holds nothing (cli/exits.hold): only the process that is the command (cli/main.main) does."""
    import gc

    from stethoscope.cli import exits

    assert gc.isenabled() and not exits.one_shot()
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(NCCL_TESTS), "-f", "json"])
    assert res.exit_code in (0, 1, 2), res.output
    assert gc.isenabled() and exits._held == []

"""Drive ``steth`` with typer's CliRunner over the real fixture bundles and rule files."""
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.report import Report

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = ROOT / "fixtures" / "bundles"
CASES = sorted(p.parent.name for p in BUNDLES.glob("*/expected.yaml"))
XID79_RULE = ROOT / "rules" / "gpu" / "xid79_gpu_fell_off_bus.yaml"

runner = CliRunner()


def steth(*args: str):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def _bundle(case: str) -> Path:
    return BUNDLES / case / "bundle"


def _expected(case: str) -> dict:
    return yaml.safe_load((BUNDLES / case / "expected.yaml").read_text())


def test_help():
    result = steth("--help")
    assert result.exit_code == 0
    for cmd in ("diagnose", "rules", "schema"):
        assert cmd in result.stdout
    result = steth("diagnose", "--help")
    assert result.exit_code == 0 and "--from-logs" in result.stdout and "--format" in result.stdout


def test_no_arguments_shows_help_not_a_traceback():
    result = steth()
    assert "diagnose" in result.output


# --- diagnose -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_diagnose_text_starts_with_the_verdict_and_quotes_evidence(case):
    want = _expected(case)["verdict"]
    result = steth("diagnose", "--from-logs", _bundle(case))
    assert result.exit_code == {"healthy": 0, "faulty": 1, "inconclusive": 2}[want], result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith(want.upper() + ":"), first
    report = Report.model_validate_json(steth("diagnose", "--from-logs", _bundle(case), "--format", "json").stdout)
    out_lines = result.stdout.splitlines()
    for f in report.findings:
        assert f.summary in result.stdout
        for e in f.evidence:
            # verbatim: the whole evidence line, on one output line, after path:line:
            assert any(ln.endswith(f"{e.path}:{e.line}: {e.text.strip()}") for ln in out_lines), e.text
    if want == "faulty":
        assert first.endswith("]") and report.findings[0].summary in first  # one line, not wrapped


def test_text_output_is_not_mangled_by_rich(tmp_path):
    # pid 100 makes ":100:" (rich's emoji code for 💯); brackets must not be taken as markup
    src = (_bundle("h200-bad-ifname") / "nccl-debug.txt").read_text()
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "nccl-debug.txt").write_text(src.replace("vm:1633:1633", "vm:100:100"))
    result = steth("diagnose", "--from-logs", bundle)
    assert result.exit_code == 1
    assert "vm:100:100 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found" in result.stdout
    assert "\U0001f4af" not in result.stdout


REPORT_FIELDS = {"version", "source", "verdict", "findings", "coverage"}
FINDING_FIELDS = {"rank", "rule", "cause", "component", "severity", "confidence", "role", "entity", "summary", "actions", "action_text", "evidence", "explains", "kb"}


@pytest.mark.parametrize("case", CASES)
def test_diagnose_json_is_one_object_that_validates(case):
    result = steth("diagnose", "--from-logs", _bundle(case), "--format", "json")
    assert result.exit_code == {"healthy": 0, "faulty": 1, "inconclusive": 2}[_expected(case)["verdict"]]
    data = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert isinstance(data, dict)
    Report.model_validate(data)
    assert REPORT_FIELDS <= data.keys()
    assert data["version"] == 1
    assert data["source"] == {"kind": "bundle", "path": str(_bundle(case))}
    assert data["verdict"] == _expected(case)["verdict"]
    assert {"files", "unrecognised", "errors"} <= data["coverage"].keys()
    for c in data["coverage"]["files"]:
        assert {"path", "kind", "facts", "skipped_lines"} <= c.keys()
    for i, f in enumerate(data["findings"], 1):
        assert FINDING_FIELDS <= f.keys()
        assert f["rank"] == i
        assert f["role"] in {"root_cause", "cascade", "independent"}
        assert f["severity"] in {"info", "warning", "critical", "fatal"}
        assert 0 <= f["confidence"] <= 1
        assert f["entity"]["label"]
        assert f["evidence"] and all({"path", "line", "text"} <= e.keys() for e in f["evidence"])
        for e in f["evidence"]:
            lines = (_bundle(case) / e["path"]).read_text(errors="replace").splitlines()
            assert lines[e["line"] - 1] == e["text"]
    if _expected(case)["verdict"] == "faulty":
        assert data["findings"][0]["role"] in {"root_cause", "independent"}
        assert data["findings"][0]["severity"] != "info"


def test_json_findings_agree_across_evaluators():
    for case in CASES:
        a = json.loads(steth("diagnose", "--from-logs", _bundle(case), "-f", "json").stdout)
        b = json.loads(steth("diagnose", "--from-logs", _bundle(case), "-f", "json", "--evaluator", "reference").stdout)
        assert a["findings"] == b["findings"], case
        assert a["verdict"] == b["verdict"]


def test_diagnose_markdown():
    result = steth("diagnose", "--from-logs", _bundle("h200-xid31-app"), "--format", "markdown")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "# steth diagnosis: faulty"
    assert "**FAULTY:" in result.stdout and "## Coverage" in result.stdout
    assert "Xid (PCI:0000:00:06): 31" in result.stdout
    healthy = steth("diagnose", "--from-logs", _bundle("h200-healthy"), "-f", "markdown")
    assert healthy.exit_code == 0 and healthy.stdout.startswith("# steth diagnosis: healthy")


def test_exit_codes(tmp_path):
    assert steth("diagnose", "--from-logs", _bundle("h200-healthy")).exit_code == 0
    assert steth("diagnose", "--from-logs", _bundle("h200-socket-only")).exit_code == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    inconclusive = steth("diagnose", "--from-logs", empty)
    assert inconclusive.exit_code == 2 and inconclusive.stdout.startswith("INCONCLUSIVE")
    j = steth("diagnose", "--from-logs", empty, "-f", "json")
    assert j.exit_code == 2 and json.loads(j.stdout)["verdict"] == "inconclusive"
    for args in (["diagnose", "--from-logs", tmp_path / "missing"], ["diagnose"], ["diagnose", "-f", "json"]):
        r = steth(*args)
        assert r.exit_code == 3, (args, r.output)
        assert r.stdout == "", "nothing but the report goes to stdout"
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("steth: "), r.stderr


def test_bad_option_value_is_usage_error():
    r = steth("diagnose", "--from-logs", _bundle("h200-healthy"), "--format", "yaml")
    assert r.exit_code == 3  # click's usage error, mapped to the table (tests/test_exit_codes.py)
    assert "yaml" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_schema_report():
    result = steth("schema", "report")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema == Report.model_json_schema()
    assert {"version", "source", "verdict", "findings", "coverage"} <= schema["properties"].keys()


# --- rules lint -----------------------------------------------------------------------------


def test_rules_lint_shipped_rules():
    result = steth("rules", "lint")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("0 problem(s)")
    assert steth("rules", "lint", ROOT / "rules").exit_code == 0


def _bad_rule(tmp_path: Path, stem: str, text: str) -> Path:
    d = tmp_path / "bad"
    d.mkdir(exist_ok=True)
    p = d / f"{stem}.yaml"
    p.write_text(text)
    return p


GOOD = XID79_RULE.read_text().replace("id: xid79_gpu_fell_off_bus", "id: my_rule")


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("unknown_kind", GOOD.replace("fact: xid_event", "fact: xid_evnt"), "unknown fact kind 'xid_evnt'"),
        ("unknown_field", GOOD.replace("match: {xid: 79}", "match: {xidd: 79}"), "has no field 'xidd'"),
        # a summary's column (one value a row) is no field a rule can test: the engine does not see it
        ("table_column", GOOD.replace("fact: xid_event", "fact: nccl_test_table").replace("match: {xid: 79}", "match: {wrong: {gt: 0}}"),
         "'nccl_test_table.wrong' is a column of a table"),
        ("unknown_cause", GOOD.replace("cause: gpu_fell_off_bus", "cause: gremlins"), "unknown cause 'gremlins'"),
        ("unknown_action", GOOD.replace("actions: [DRAIN_NODE,", "actions: [PRAY,"), "unknown action 'PRAY'"),
        ("yaml_syntax", GOOD.replace("match: {xid: 79}", "match: {xid: 79"), "invalid YAML"),
        ("stem_mismatch", GOOD.replace("id: my_rule", "id: other_rule"), "must equal the file stem"),
    ],
)
def test_rules_lint_bad_rule(tmp_path, name, text, message):
    path = _bad_rule(tmp_path, "my_rule", text)
    result = steth("rules", "lint", path)
    assert result.exit_code == 1, result.output
    errors = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert errors, result.output
    assert any(message in ln for ln in errors), errors
    for ln in errors:
        where, _, msg = ln.partition(": ")
        file, _, line = where.rpartition(":")
        assert file == str(path) and line.isdigit() and int(line) >= 1 and msg, ln
    assert result.stdout.strip().endswith("1 problem(s)") or "problem(s)" in result.stdout


def test_rules_lint_names_the_line(tmp_path):
    text = GOOD.replace("fact: xid_event", "fact: xid_evnt")
    line = text.splitlines().index("    - fact: xid_evnt") + 1
    path = _bad_rule(tmp_path, "my_rule", text)
    result = steth("rules", "lint", path)
    assert f"{path}:{line}: " in result.stderr


@pytest.mark.parametrize(
    "payload",
    [
        "!!python/object/apply:os.system ['touch {marker}']",
        "!!python/object/new:subprocess.check_output [['touch', '{marker}']]",
        "!!python/name:os.system",
    ],
)
def test_rules_lint_rejects_python_tags_without_running_them(tmp_path, payload):
    marker = tmp_path / "pwned"
    text = GOOD.replace("title: GPU has fallen off the PCIe bus", "title: " + payload.format(marker=marker))
    path = _bad_rule(tmp_path, "my_rule", text)
    result = steth("rules", "lint", path)
    assert result.exit_code == 1, result.output
    assert not marker.exists(), "a YAML tag ran code"
    assert f"{path}:" in result.stderr and "invalid YAML" in result.stderr


def test_rules_lint_error_with_markup_characters_is_quoted(tmp_path):
    path = _bad_rule(tmp_path, "my_rule", GOOD.replace("cause: gpu_fell_off_bus", "cause: '[bold]x[/bold]'"))
    result = steth("rules", "lint", path)
    assert result.exit_code == 1
    assert "unknown cause '[bold]x[/bold]'" in result.stderr


def test_rules_lint_missing_path():
    result = steth("rules", "lint", "/nonexistent/rules")
    assert result.exit_code == 3 and "no such file or folder" in result.stderr


def test_rules_list():
    result = steth("rules", "list")
    assert result.exit_code == 0 and "xid79_gpu_fell_off_bus" in result.stdout


# --- rules test -----------------------------------------------------------------------------


def test_rules_test_shipped(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = steth("rules", "test")
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    passed, failed = int(last.split()[0]), last.split(", ")[1]
    assert passed > 0 and failed == "0 failed", last
    assert steth("rules", "test", ROOT / "tests" / "rules").stdout.strip().splitlines()[-1] == last


def test_rules_test_failing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    bad = tmp_path / "xid79_gpu_fell_off_bus.test.yaml"
    bad.write_text(
        """rule: xid79_gpu_fell_off_bus
cases:
  - name: wrong_node_expected
    artefacts: {node1: {dmesg: fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log}}
    expect: [{cause: gpu_fell_off_bus, entity: {node: node2}}]
  - name: xid13_does_not_fire
    facts: [{kind: xid_event, node: node1, pci_bus_id: "0000:a1:00.0", xid: 13, message: "Graphics SM Warp Exception"}]
    expect: []
"""
    )
    result = steth("rules", "test", bad)
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.stdout and "wrong_node_expected" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"


def test_rules_test_malformed_file_is_reported_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    bad = tmp_path / "x.test.yaml"
    bad.write_text("rule: xid79_gpu_fell_off_bus\ncases: [{name: a, expect: [}\n")
    result = steth("rules", "test", bad)
    assert result.exit_code == 1, result.output
    assert f"{bad}:2: invalid YAML" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_rules_test_no_files(tmp_path):
    result = steth("rules", "test", tmp_path)
    assert result.exit_code == 3 and "no *.test.yaml files found" in result.stderr


def _tar_gz(folder: Path) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(folder, arcname="bundle")
    return buf.getvalue()


def test_from_logs_stdin_reads_a_paste_piped_in():
    """``--from-logs -``: a fragment piped in (``xclip -o | steth diagnose --from-logs -``) is
    read as one file named stdin, evidence and coverage included."""
    dmesg = (_bundle("h200-xid31-app") / "vm" / "dmesg.txt").read_bytes()
    result = runner.invoke(app, ["diagnose", "--from-logs", "-", "--format", "json"], input=dmesg)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    top = report["findings"][0]
    assert top["cause"] == "app_gpu_fault"
    assert {e["path"] for e in top["evidence"]} == {"stdin"}
    assert [f["path"] for f in report["coverage"]["files"]] == ["stdin"]


def test_from_logs_stdin_reads_an_archive_piped_in():
    """A bundle piped in as a tar.gz (``ssh node tar cz ... | steth diagnose --from-logs -``)
    gives the same findings as the folder."""
    case = "h200-xid31-app"
    piped = runner.invoke(app, ["diagnose", "--from-logs", "-", "--format", "json"], input=_tar_gz(_bundle(case)))
    folder = steth("diagnose", "--from-logs", _bundle(case), "--format", "json")
    assert piped.exit_code == folder.exit_code == 1, piped.output
    key = lambda r: [(f["cause"], f["component"], json.dumps(f.get("entity"), sort_keys=True)) for f in json.loads(r)["findings"]]
    assert key(piped.stdout) == key(folder.stdout)


def test_from_logs_stdin_empty_is_inconclusive_never_healthy():
    result = runner.invoke(app, ["diagnose", "--from-logs", "-"], input=b"")
    assert result.exit_code == 2, result.output
    assert "stdin" in result.output


def test_from_logs_stdin_from_a_terminal_is_a_one_line_error(monkeypatch):
    import sys

    class Tty:
        buffer = None

        def isatty(self):
            return True

    from stethoscope.facts import bundle

    monkeypatch.setattr(sys, "stdin", Tty())
    with pytest.raises(bundle.BundleError, match="standard input is a terminal"):
        bundle.read_bundle("-")

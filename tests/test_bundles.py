"""Replay every recorded incident bundle and compare with its expected.yaml."""
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.ruletests import _check

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p.parent for p in (ROOT / "fixtures" / "bundles").glob("*/expected.yaml"))


def _expected(case: Path) -> dict:
    return yaml.safe_load((case / "expected.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bundle_replay(case, ruleset):
    want = _expected(case)
    report = diagnose_bundle(case / "bundle", ruleset)
    assert report.verdict == want["verdict"], [f.summary for f in report.findings]
    if want["verdict"] == "healthy":
        assert not [f for f in report.findings if f.severity != "info"]
    # every expected finding is there; extra findings are listed only if the case says so
    got = report.findings
    if want.get("exact", True):
        msg = _check(want["findings"], got)
    else:
        msg = _check(want["findings"], got[: len(want["findings"])])
    assert not msg, msg
    if "not_checked" in want:  # decision-tree branches the bundle had no evidence for
        assert sorted(n.branch for n in report.not_checked) == sorted(want["not_checked"])
    assert not report.coverage.errors, report.coverage.errors
    seen = {c.path for c in report.coverage.files} | set(report.coverage.unrecognised)
    files = {p.relative_to(case / "bundle").as_posix() for p in (case / "bundle").rglob("*") if p.is_file()}
    assert seen == files, "every file is listed in coverage"


def _normalise(report):
    data = report.model_dump()
    data["source"] = None
    return data


def test_folder_targz_zip_give_the_same_report(tmp_path, ruleset):
    case = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle"
    wrapped = tmp_path / "incident-42"
    shutil.copytree(case, wrapped)
    tgz = tmp_path / "incident.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(wrapped, arcname="incident-42")
    zpath = tmp_path / "incident.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(wrapped.rglob("*")):
            zf.write(p, p.relative_to(tmp_path).as_posix())
    reports = [diagnose_bundle(p, ruleset) for p in (case, wrapped, tgz, zpath)]
    first = _normalise(reports[0])
    assert first["facts"] > 100
    for r in reports[1:]:
        assert _normalise(r) == first
    for bad in ("h200-socket-only", "h200-xid31-app"):
        src = ROOT / "fixtures" / "bundles" / bad / "bundle"
        t = tmp_path / f"{bad}.tgz"
        with tarfile.open(t, "w:gz") as tar:
            tar.add(src, arcname=bad)
        assert _normalise(diagnose_bundle(t, ruleset)) == _normalise(diagnose_bundle(src, ruleset))

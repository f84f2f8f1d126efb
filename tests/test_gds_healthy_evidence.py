"""GPUDirect Storage's own evidence of health (wild sweep rN2): gdscheck's 'Platform verification succeeded' and a gdsio
result checked the storage path; storage is not in healthy_needs_any, so alone they never make a node healthy, and beside
a healthy bundle they keep it healthy only while nothing else is wrong."""
from __future__ import annotations

import shutil
from pathlib import Path

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent
B = ROOT / "fixtures" / "bundles" / "device-h200-collect" / "bundle"
ART = ROOT / "fixtures" / "artefacts"
# real lines: a public repository's notes of a Quadro host under GDS's 0.9 beta, found with the code index's exact-string
# search for "Platform verification succeeded" (tests/parsers/test_gdscheck.py)
VERIFIED = ("    GDS release version (beta): 0.9.1.5\n    nvidia_fs version:  2.4 libcufile version: 2.3\n    cuFile CONFIGURATION:\n"
            "    NVMe           : Supported\n    NVMeOF         : Unsupported\n    LUSTRE         : Unsupported\n"
            "    --MOFED peer direct  : enabled\n    properties.use_compat_mode : 0\n"
            "    GPU index 0 Quadro P400 bar:1 bar size (MiB):256 supports GDS\n    IOMMU : disabled\n    Platform verification succeeded\n")


def _checked(rep) -> set[str]:
    return {c.component for c in rep.checked}


def test_gdscheck_verified_and_gdsio_alone_are_inconclusive(ruleset, tmp_path):
    (tmp_path / "n1").mkdir()
    (tmp_path / "n1" / "gdscheck.txt").write_text(VERIFIED)
    shutil.copy(ART / "gdsio" / "gdsnvidiafs78_gpud_write.txt", tmp_path / "n1" / "gdsio.txt")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", (rep.reason, [f.summary for f in rep.findings])
    assert _checked(rep) == {"storage"}
    assert {f.kind for f in rep.coverage.files} >= {"gdscheck", "gdsio"}


def test_a_gdscheck_cut_before_its_verdict_checks_nothing(ruleset, tmp_path):
    (tmp_path / "n1").mkdir()
    (tmp_path / "n1" / "gdscheck.txt").write_text(VERIFIED.replace("    Platform verification succeeded\n", ""))
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert _checked(rep) == set()


def test_beside_a_healthy_bundle_healthy_only_without_an_error(ruleset, tmp_path):
    b = tmp_path / "bundle"
    shutil.copytree(B, b)
    (b / "vm" / "gdscheck.txt").write_text(VERIFIED)
    shutil.copy(ART / "gdsio" / "gdsnvidiafs78_gpud_write.txt", b / "vm" / "gdsio.txt")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])
    assert "storage" in _checked(rep)
    # must not: the same with a driver list GDS supports none of (its rule) -> never healthy
    shutil.copy(ART / "gdscheck" / "gdsnvidiafs8_all_unsupported.txt", b / "vm" / "gdscheck.txt")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict != "healthy", [f.summary for f in rep.findings]

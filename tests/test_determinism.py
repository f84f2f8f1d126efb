"""Reports do not depend on hash seeds or on how many processes parse: the same bundle gives
byte-identical JSON."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STETH = [sys.executable, "-m", "stethoscope.cli.main"]


def _json(target: Path, seed: str, jobs: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    r = subprocess.run([*STETH, "diagnose", "--from-logs", str(target), "--format", "json", "--jobs", jobs],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode in (0, 1, 2), r.stderr
    return r.stdout


def test_same_report_whatever_the_hash_seed_and_the_number_of_processes():
    target = ROOT / "fixtures" / "artefacts" / "nccl_log"
    first = _json(target, "1", "1")
    assert '"findings"' in first
    assert _json(target, "2", "1") == first
    assert _json(target, "3", "2") == first

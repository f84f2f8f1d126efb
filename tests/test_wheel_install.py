"""Build the wheel, install it into a fresh virtual environment, and run steth from there."""
import json
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)


def test_wheel_installs_and_diagnoses(tmp_path):
    dist = tmp_path / "dist"
    r = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)])
    assert r.returncode == 0, r.stderr
    wheels = list(dist.glob("gpu_stethoscope-*.whl"))
    assert len(wheels) == 1
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # durable-rules from the wheels shipped for CPython 3.11-3.13 (no C compiler needed), as setup_venv
    r = run([str(py), "-m", "pip", "install", "-q", "--find-links", str(ROOT / "vendor" / "wheels"), str(wheels[0])])
    assert r.returncode == 0, r.stderr
    steth = env_dir / "bin" / "steth"
    r = run([str(steth), "--help"])
    assert r.returncode == 0 and "diagnose" in r.stdout
    # nothing generic lands at the top of site-packages
    r = run([str(py), "-c", "import importlib.util as u; print([m for m in ('cli','engine','facts','rules','knowledge') if u.find_spec(m)])"], cwd=tmp_path)
    assert r.stdout.strip() == "[]"
    bundle = ROOT / "fixtures" / "bundles" / "h200-xid31-app" / "bundle"
    r = run([str(steth), "diagnose", "--from-logs", str(bundle), "--format", "json"], cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert report["findings"][0]["cause"] == "app_gpu_fault"
    r = run([str(steth), "rules", "lint"], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr

"""Installs that work (issue 13 item 6): the lock, the shipped durable-rules wheels, and what
steth says where durable-rules does not import.

requirements.lock is what tests/setup_venv.sh installs; pyproject.toml holds the ranges. Every
declared dependency (and the test extra, and the build backend) must be pinned in the lock
within its range, every pin must carry hashes, and each wheel in vendor/wheels must be one of
the hashes of its pin (pip refuses it otherwise)."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
WHEELS = ROOT / "vendor" / "wheels"
BUNDLE = ROOT / "fixtures" / "bundles" / "h200-xid31-app" / "bundle"
STETH = Path(sys.executable).parent / "steth"
if not STETH.exists():
    STETH = Path(shutil.which("steth") or ROOT / ".venv" / "bin" / "steth")


def lock_pins() -> dict[str, tuple[Version, set[str]]]:
    """name -> (version, sha256 hashes) of every ``name==version`` block of the lock."""
    pins: dict[str, tuple[Version, set[str]]] = {}
    name = None
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            name = canonicalize_name(m[1])
            assert name not in pins, f"{m[1]} pinned twice"
            pins[name] = (Version(m[2]), set())
        elif m := re.match(r"^\s+--hash=sha256:([0-9a-f]{64})", line):
            assert name is not None, line
            pins[name][1].add(m[1])
        elif line.strip() and not line.lstrip().startswith("#"):
            pytest.fail(f"requirements.lock: unexpected line {line!r}")
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    reqs = project["project"]["dependencies"] + sum(project["project"]["optional-dependencies"].values(), [])
    return [Requirement(r) for r in reqs + project["build-system"]["requires"]]


def test_every_declared_dependency_is_pinned_in_the_lock_within_its_range():
    pins = lock_pins()
    missing = [str(r) for r in declared() if canonicalize_name(r.name) not in pins]
    assert not missing, f"not in requirements.lock (refresh it: bash tools/lock.sh): {missing}"
    outside = [f"{r} (locked {pins[canonicalize_name(r.name)][0]})" for r in declared()
               if pins[canonicalize_name(r.name)][0] not in r.specifier]
    assert not outside, f"locked outside the declared range (bash tools/lock.sh): {outside}"


def test_pyproject_declares_ranges_not_pins():
    for r in declared():
        ops = {s.operator for s in r.specifier}
        assert ops == {">=", "<"}, f"{r}: a range >=tested,<next-major (the exact version goes in the lock)"


def test_every_pin_has_hashes_and_the_transitive_ones_are_there():
    pins = lock_pins()
    assert all(h for _, h in pins.values()), [n for n, (_, h) in pins.items() if not h]
    # what the declared dependencies pull in is locked too (not only the direct ones)
    for transitive in ("pydantic-core", "annotated-types", "markdown-it-py", "requests", "urllib3", "markupsafe"):
        assert transitive in pins, transitive
    # and what setup_venv installs before the rest
    assert {"pip", "setuptools"} <= set(pins)


def test_the_shipped_durable_wheels_are_locked_and_cover_311_to_313():
    version, hashes = lock_pins()["durable-rules"]
    tags = set()
    for wheel in sorted(WHEELS.glob("*.whl")):
        name, wversion, _, wtags = parse_wheel_filename(wheel.name)
        assert name == "durable-rules" and wversion == version, f"{wheel.name}: not the locked durable-rules {version}"
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() in hashes, f"{wheel.name}: its sha256 is not in the lock (bash tools/lock.sh)"
        tags |= {(t.interpreter, t.platform) for t in wtags}
    for cp in ("cp311", "cp312", "cp313"):
        assert (cp, "manylinux_2_17_x86_64") in tags, f"no {cp} manylinux wheel in vendor/wheels"


def test_the_313_shim_is_given_to_313_only(tmp_path):
    """tools/durable_shim.sh: the PyEval_CallObject define for Python >= 3.13, nothing before."""
    out = {}
    for minor in (11, 12, 13, 14):
        fake = tmp_path / f"python3.{minor}"
        fake.write_text(f"#!/bin/sh\nexec {sys.executable} -c \"import sys; sys.exit((3, {minor}) < (3, 13))\"\n")
        fake.chmod(0o755)
        r = subprocess.run(["bash", "-c", f". tools/durable_shim.sh && durable_cppflags {fake}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        out[minor] = r.stdout
    assert out[11] == out[12] == ""
    assert out[13] == out[14] == "-DPyEval_CallObject(f,a)=PyObject_CallObject(f,a)"


def _without_durable(tmp_path: Path) -> dict[str, str]:
    """The environment of a Python on which durable's extension does not load: a module of its
    name ahead of site-packages that fails as the extension built without the shim fails on 3.13."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "durable_rules_engine.py").write_text(
        'raise ImportError("durable_rules_engine.cpython-313-x86_64-linux-gnu.so: undefined symbol: PyEval_CallObject")\n')
    return {**os.environ, "PYTHONPATH": str(stub), "XDG_STATE_HOME": str(tmp_path / "state")}


def test_without_durable_steth_says_so_in_one_line_and_names_the_way_out(tmp_path):
    env = _without_durable(tmp_path)
    r = subprocess.run([str(STETH), "diagnose", "--from-logs", str(BUNDLE)], capture_output=True, text=True,
                       timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 4, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("steth: the rule engine durable-rules does not import on Python "), lines[0]
    assert "undefined symbol: PyEval_CallObject" in lines[0]
    assert "bash tests/setup_venv.sh" in lines[0] and "--evaluator reference" in lines[0]
    assert not (tmp_path / "state").exists()  # no traceback file: this is no bug of steth


def test_without_durable_the_reference_evaluator_and_the_rule_tools_still_work(tmp_path):
    env = _without_durable(tmp_path)
    r = subprocess.run([str(STETH), "diagnose", "--from-logs", str(BUNDLE), "--evaluator", "reference", "--format", "json"],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert '"app_gpu_fault"' in r.stdout
    r = subprocess.run([str(STETH), "rules", "lint"], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr

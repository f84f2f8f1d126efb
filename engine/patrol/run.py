"""``steth patrol run`` on this node: the suite of knowledge/patrol.yaml, its files read like any
bundle, its metrics taken from the facts, the whole as one :class:`NodeRecord`.

    run_node(suite, out, node)  ->  <out>/<run-stamp>/<node>/<step files> + steth-patrol.json
                                ->  NodeRecord(steps, metrics, findings, context, verdict)

The record is what the history stores (engine/patrol/store.py), what a remote node prints for
the launcher (``STETH-PATROL-RECORD {json}``, engine/patrol/launch.py) and what the textfile
for node_exporter is written from (engine/patrol/export.py). Comparing with the baseline
happens where the history is (:func:`engine.patrol_store.compare`).

Steps run without a shell, each under its own timeout; a missing program (or an unset
``requires_env`` variable: a network test without its peer) is ``skipped`` with the step's
``skip_reason``, a probe that finds no PyTorch/CUDA exits 69 and is ``skipped`` with
the reason it printed; nothing is dropped. NCCL_NVLS_ENABLE=0 is kept in the environment the
steps see when the caller set it (the patrol never turns NVLink multicast on).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import PatrolMetric, PatrolStep, PatrolSuite

MAX_OUTPUT_BYTES = 64 * 1024 * 1024
EX_UNAVAILABLE = 69  # facts/torch_probe.py: no PyTorch / no CUDA here
OK, PROBLEM, UNKNOWN = 0, 1, 2  # node-problem-detector's custom plugin codes
PROBE = Path(__file__).resolve().parent.parent.parent / "facts" / "torch_probe.py"
RECORD_FILE = "steth-patrol.json"


@dataclass
class StepOutcome:
    step: str
    status: str  # ok | failed | timeout | skipped
    returncode: int | None
    seconds: float
    file: str | None
    note: str = ""


@dataclass
class Metric:
    step: str
    metric: str
    labels: dict[str, str]
    value: float
    unit: str

    @property
    def key(self) -> tuple[str, str]:
        return self.metric, json.dumps(self.labels, sort_keys=True)


@dataclass
class NodeRecord:
    node: str
    started_at: str
    seconds: float
    suite_version: int
    verdict: str  # healthy | faulty | inconclusive | unreachable
    summary: str
    context: dict
    steps: list[StepOutcome] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)  # rule, cause, component, severity, summary
    output_dir: str | None = None
    run_id: int | None = None  # once stored

    @property
    def problem(self) -> int:
        return {"healthy": OK, "faulty": PROBLEM}.get(self.verdict, UNKNOWN)

    def as_json(self) -> dict:
        d = asdict(self)
        d["problem"] = self.problem
        return d

    @classmethod
    def from_json(cls, d: dict) -> "NodeRecord":
        d = dict(d)
        d.pop("problem", None)
        d["steps"] = [StepOutcome(**s) for s in d.get("steps", [])]
        d["metrics"] = [Metric(**m) for m in d.get("metrics", [])]
        return cls(**d)


def load_suite(path: Path | None = None) -> PatrolSuite:
    """knowledge/patrol.yaml, or a suite of the same schema (``--suite``)."""
    if path is None:
        return knowledge.load("patrol.yaml")
    return knowledge.parse("patrol.yaml", path.read_text(encoding="utf-8"), label=str(path))


def default_python() -> str:
    """The interpreter the probes run under: ``$STETH_PATROL_PYTHON``, else ``python3`` on PATH
    (a host's PyTorch is usually there, not in steth's own virtual environment), else this one."""
    return os.environ.get("STETH_PATROL_PYTHON") or shutil.which("python3") or sys.executable


def _gpu_count() -> int:
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
        return max(1, sum(1 for ln in out.splitlines() if ln.startswith("GPU ")))
    except (OSError, subprocess.SubprocessError):
        return 1


def scratch_dir(folder: Path) -> str:
    """Where a storage test writes its file: ``$STETH_PATROL_SCRATCH`` (a folder on the storage
    the jobs read), else the run's own folder."""
    return os.environ.get("STETH_PATROL_SCRATCH") or str(folder)


def _expand(argv: list[str], python: str, folder: Path | None = None) -> list[str]:
    values = {"{python}": python, "{probe}": str(PROBE)}
    if any("{gpus}" in a for a in argv):
        values["{gpus}"] = str(_gpu_count())
    if folder is not None:
        values["{scratch}"] = scratch_dir(folder)
    out = []
    for a in argv:
        for k, v in values.items():
            a = a.replace(k, v)
        a = _ENV.sub(lambda m: os.environ.get(m.group(1), ""), a)
        out.append(a)
    return out


_ENV = re.compile(r"\{env:([A-Z][A-Z0-9_]*)\}")


def _workdir(step: PatrolStep, python: str, folder: Path) -> Path:
    """The folder the command runs in (knowledge/patrol.yaml ``cwd``)."""
    if step.cwd == "program":
        prog = _expand(step.requires[:1], python)[0]
        found = shutil.which(prog) or prog
        return Path(os.path.realpath(found)).parent
    return folder


def _available(program: str) -> bool:
    return shutil.which(program) is not None or (os.path.sep in program and os.access(program, os.X_OK))


def run_step(step: PatrolStep, folder: Path, python: str) -> StepOutcome:
    missing = [p for p in _expand(step.requires, python) if not _available(p)]
    if missing:
        return StepOutcome(step.name, "skipped", None, 0.0, None, f"{step.skip_reason} ({', '.join(missing)} not found)")
    unset = [v for v in step.requires_env if not os.environ.get(v, "").strip()]
    if unset:
        return StepOutcome(step.name, "skipped", None, 0.0, None, f"{step.skip_reason} ({', '.join(unset)} not set)")
    argv = _expand(step.argv, python, folder)
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=step.timeout, stdin=subprocess.DEVNULL,
                              cwd=_workdir(step, python, folder))
        data, rc, err = proc.stdout[:MAX_OUTPUT_BYTES], proc.returncode, proc.stderr
        status = "ok" if rc == 0 else ("skipped" if rc == EX_UNAVAILABLE else "failed")
    except subprocess.TimeoutExpired as exc:
        data, rc, err, status = (exc.stdout or b"")[:MAX_OUTPUT_BYTES], None, exc.stderr or b"", "timeout"
    except OSError as exc:
        return StepOutcome(step.name, "failed", None, round(time.monotonic() - start, 3), None, str(exc))
    seconds = round(time.monotonic() - start, 3)
    written = None
    # a skipped probe's output (its "unavailable" line) stays out of the folder: it measured
    # nothing, so it must not count as a file that checked the GPU; the note keeps its reason
    if data and status != "skipped":
        (folder / step.file).write_bytes(data)
        written = step.file
    if err.strip():
        (folder / f"{step.file}.stderr").write_bytes(err[:MAX_OUTPUT_BYTES])
    note = ""
    if status == "timeout":
        note = f"killed after {step.timeout:g} s"
    elif status == "skipped":
        note = _last_line(data) or _last_line(err) or "the probe found nothing to measure"
    elif status == "failed":
        note = f"exit {rc}: " + (_last_line(err) or _last_line(data))
    return StepOutcome(step.name, status, rc, seconds, written, note[:300])


def _last_line(data: bytes) -> str:
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def selected(suite: PatrolSuite, include: set[str] | None = None, only: set[str] | None = None) -> list[PatrolStep]:
    """The steps a run takes: ``every`` ones, ``nightly`` ones when included; ``only`` narrows to names."""
    include = include or set()
    steps = [s for s in suite.steps if s.schedule == "every" or s.schedule in include]
    return [s for s in steps if only is None or s.name in only]


def run_node(suite: PatrolSuite, out: Path, node: str | None = None, python: str | None = None,
             include: set[str] | None = None, only: set[str] | None = None, ruleset=None) -> NodeRecord:
    """Every selected step on this node, then the diagnosis and the metrics of its files."""
    node = node or socket.gethostname().split(".")[0] or "unknown"
    python = python or default_python()
    started = datetime.now(timezone.utc)
    folder = out / started.strftime("%Y%m%dT%H%M%SZ") / node
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    outcomes: dict[str, StepOutcome] = {}
    for step in selected(suite, include, only):
        if step.instead_of and not all(outcomes.get(n) is None or outcomes[n].status == "skipped" for n in step.instead_of):
            outcomes[step.name] = StepOutcome(step.name, "skipped", None, 0.0, None,
                                              f"not needed: {', '.join(step.instead_of)} ran")
            continue
        outcomes[step.name] = run_step(step, folder, python)
    record = read_node(suite, folder, node, list(outcomes.values()), started.isoformat(timespec="seconds"), ruleset)
    record.seconds = round(time.monotonic() - t0, 3)
    (folder / RECORD_FILE).write_text(json.dumps(record.as_json(), indent=2) + "\n")
    return record


def read_node(suite: PatrolSuite, folder: Path, node: str, outcomes: list[StepOutcome], started_at: str,
              ruleset=None) -> NodeRecord:
    """Diagnose the files of one node's run (the one pipeline) and take the suite's metrics."""
    from stethoscope.engine import pipeline
    from stethoscope.engine.ruleengine.loader import load_rules

    written = [o for o in outcomes if o.file]
    if written:
        obs = pipeline.observe_bundle(folder.parent)
        report = pipeline.diagnose(obs, ruleset or load_rules())
        facts, verdict = obs.facts, report.verdict
        findings = [{"rule": f.rule, "cause": f.cause, "component": f.component, "severity": f.severity,
                     "summary": f.summary} for f in report.findings]
        reason = report.reason
    else:
        facts, verdict, findings, reason = [], "inconclusive", [], "no step produced output"
    steps = {s.name: s for s in suite.steps}
    metrics = [m for o in outcomes if o.status == "ok" and o.step in steps for m in metrics_of(steps[o.step], o.file, facts)]
    ran = [o.step for o in outcomes if o.status == "ok"]
    skipped = [o.step for o in outcomes if o.status == "skipped"]
    broken = [f"{o.step} {o.status}" for o in outcomes if o.status in ("failed", "timeout")]
    if broken and verdict == "healthy":
        verdict, reason = "inconclusive", "step(s) did not finish: " + ", ".join(broken)
    summary = f"{verdict}: {len(ran)} step(s) ran, {len(skipped)} skipped"
    if broken:
        summary += f", {len(broken)} did not finish ({', '.join(broken)})"
    if findings:
        worst = findings[0]
        summary += f"; {len(findings)} finding(s), first: {worst['summary']}"
    elif reason and verdict != "healthy":
        summary += f"; {reason}"
    return NodeRecord(node=node, started_at=started_at, seconds=0.0, suite_version=suite.version, verdict=verdict,
                      summary=summary, context=context_of(facts, outcomes), steps=outcomes, metrics=metrics,
                      findings=findings, output_dir=str(folder))


def _label(value: object) -> str:
    return "" if value is None else str(value)


def metrics_of(step: PatrolStep, file: str | None, facts: list) -> list[Metric]:
    """The step's declared metrics, from the facts read out of its own file."""
    out: dict[tuple[str, str], Metric] = {}
    for spec in step.metrics:
        for f in facts:
            if f.kind != spec.fact or file is None or f.evidence.path.rsplit("/", 1)[-1] != file:
                continue
            if any(getattr(f, k, None) != v for k, v in spec.where.items()):
                continue
            value = _value(spec, getattr(f, spec.value, None))
            if value is None:
                continue
            m = Metric(step.name, spec.name, {k: _label(getattr(f, k, None)) for k in spec.labels}, value, spec.unit)
            out[m.key] = m  # one value per label set: the last reading of the file
    return list(out.values())


def _value(spec: PatrolMetric, raw: object) -> float | None:
    if spec.value_map is not None:
        return spec.value_map.get(str(raw)) if raw is not None else None
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    return None


def context_of(facts: list, outcomes: list[StepOutcome]) -> dict:
    """What can move a result: GPU model and count, driver, CUDA, NCCL, PyTorch, topology."""
    ctx: dict = {}
    gpus = [f for f in facts if f.kind == "gpu_info"]
    if gpus:
        names = sorted({g.name for g in gpus if g.name})
        ctx["gpu_model"] = ", ".join(names) or None
        ctx["gpus"] = len({g.pci_bus_id for g in gpus})
        ctx["driver"] = next((g.driver_version for g in gpus if g.driver_version), None)
        ctx["cuda_driver_api"] = next((g.cuda_version for g in gpus if g.cuda_version), None)
        ctx["vbios"] = sorted({g.vbios for g in gpus if g.vbios}) or None
    probe = next((f for f in facts if f.kind == "probe_context"), None)
    if probe is not None:
        ctx["torch"] = probe.torch
        ctx["cuda_runtime"] = probe.cuda
        ctx["nccl"] = probe.nccl
        ctx.setdefault("gpus", probe.gpus)
        model = next((f.name for f in facts if f.kind == "probe_gpu"), None)
        ctx.setdefault("gpu_model", model)
    run = next((f for f in facts if f.kind == "nccl_test_run" and f.nccl_version), None)
    if run is not None:
        ctx["nccl"] = run.nccl_version
        ctx["nccl_tests"] = run.nccl_tests_version
    links = sorted({(f.a, f.b, f.connection) for f in facts if f.kind == "gpu_topo_link" and f.a < f.b})
    if links:
        ctx["topology"] = " ".join(f"{a}-{b}:{t}" for a, b, t in links)
    hcas = sorted({(f.hca, f.firmware) for f in facts if f.kind == "ib_hca" and f.firmware})
    if hcas:
        ctx["hca_firmware"] = {h: fw for h, fw in hcas}
    cpu = next((f for f in facts if f.kind == "cpu_topology"), None)
    if cpu is not None:
        ctx["cpu_model"], ctx["sockets"], ctx["cpus"] = cpu.model_name, cpu.sockets, cpu.cpus
    numa = next((f for f in facts if f.kind == "numa_topology"), None)
    if numa is not None:
        ctx["numa_nodes"] = numa.nodes
    kernel = next((f.release for f in facts if f.kind == "host_kernel"), None)
    if kernel:
        ctx["kernel"] = kernel
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(("NCCL_", "CUDA_VISIBLE", "TORCH_NCCL"))}
    if env:
        ctx["env"] = env
    return {k: v for k, v in ctx.items() if v is not None}

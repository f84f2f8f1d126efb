#!/usr/bin/env python3
"""Metamorphic robustness study: does the diagnosis survive the wrappers people paste? (issue 11)

Real incidents arrive as fragments pasted into tickets: a kernel line under a journald prefix, a
pod log in the CRI format, NCCL lines under an mpirun tag, a traceback under Ray's actor tag or a
``> `` quote. For every faulty case of ``fixtures/harvest/cases`` (its own diagnosis faulty, with a
serious top finding), every line of every artefact is re-wrapped with one wrapper form at a time
(all lines of a file, as a real pipeline would), the case is diagnosed again, and the top serious
finding's cause must stay the one of the unwrapped case. The table says, per form, how many cases
kept their cause, and how many fell to a healthy verdict (a false HEALTHY: never acceptable).

    .venv/bin/python bench/wrap_study.py                 # every form, every faulty case
    .venv/bin/python bench/wrap_study.py --only cri,srun --cases '^1'  -v   # a few, with the misses

A benchmark script (it prints figures), not a test; it reads only the project's own fixtures.
Each form below carries a real sample of it as posted in a public thread, and the thread.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "harvest" / "cases"
NOT_ARTEFACTS = {"label.yaml", "README.md"}
SERIOUS = {"warning", "critical", "fatal"}

Wrap = Callable[[str, int, bool], str]  # (line, file index, file is a kernel log) -> wrapped line


@dataclass(frozen=True)
class Form:
    name: str
    #: a real line of the form, as posted, and the public thread it was posted in
    sample: str
    source: str
    line: Wrap | None = None  # applied to every line of a file
    text: Callable[[str], str] | None = None  # or to the whole text (forms that add or split lines)
    kernel_only: bool = False  # a wrapper only kernel logs get (talosctl dmesg)


def _json_line(line: str, i: int, kernel: bool) -> str:
    return json.dumps({"log": line + "\n", "stream": "stderr", "time": "2024-05-01T10:00:00.123456789Z"},
                      separators=(",", ":"))


# GitHub's rich text links the tokens that look like domains (a known top-level domain: .cc, .py,
# .sh, .io) and IPv4 addresses; copied back into an issue, the link text and its address both stay
_LINKABLE = re.compile(r"(?<![\w/.-])(?:[A-Za-z_][\w-]*\.(?:cc|py|sh|io)(?::\d+)?|\d{1,3}(?:\.\d{1,3}){3})(?![\w.-])")


def _autolink(line: str, i: int, kernel: bool) -> str:
    return _LINKABLE.sub(lambda m: f"[{m[0]}](http://{m[0]}/)", line)


def _fence(text: str) -> str:
    return "```\n" + text.rstrip("\n") + "\n```\n"


def _terminal_wrap(text: str, width: int = 80) -> str:
    out = []
    for ln in text.split("\n"):
        while len(ln) > width:
            out.append(ln[:width])
            ln = ln[width:]
        out.append(ln)
    return "\n".join(out)


FORMS: list[Form] = [
    Form("journald short",
         "May 27 16:50:10 fedora kernel: NVRM: GPU 0000:09:00.0: RmInitAdapter failed! (0x22:0x56:894)",
         "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1152",
         line=lambda s, i, k: f"Apr 22 21:30:51 gpu-node-{i} {'kernel' if k else 'python3[4242]'}: {s}"),
    Form("journald short-iso",
         "2024-05-06T04:09:01+0000 node-1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
         "",
         line=lambda s, i, k: f"2026-04-22T21:30:51+0000 gpu-node-{i} {'kernel' if k else 'python3[4242]'}: {s}"),
    Form("talosctl dmesg",
         "192.168.11.119: kern: warning: [2026-04-22T21:30:51.87Z]: NVRM: Xid (PCI:0000:48:00): 79, ...",
         "",
         line=lambda s, i, k: f"192.168.11.{119 + i}: kern: warning: [2026-04-22T21:30:51.87Z]: {s}", kernel_only=True),
    Form("CRI log file", "2024-05-01T12:00:00.123456789Z stdout F gpu-operator-validator: Failed to initialize NVML", "",
         line=lambda s, i, k: f"2024-05-01T10:00:00.123456789Z stderr F {s}"),
    Form("docker json-file", '{"log":"...\\n","stream":"stderr","time":"..."}', "", line=_json_line),
    Form("kubectl logs --timestamps", "2024-01-11T07:39:49Z\tINFO\tcontroller-runtime.metrics\tMetrics server is starting",
         "", line=lambda s, i, k: f"2024-05-01T10:00:00.123456789Z {s}"),
    Form("kubectl logs --prefix", "[pod/trainer-worker-0/pytorch] ...", "",
         line=lambda s, i, k: f"[pod/trainer-worker-{i}/pytorch] {s}"),
    Form("mpirun --tag-output",
         "        [1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket",
         "https://github.com/aws/aws-k8s-tester/pull/464",
         line=lambda s, i, k: f"[1,{i}]<stdout>:{s}"),
    Form("torchrun [defaultN]:", "[default0]:...", "", line=lambda s, i, k: f"[default{i}]:{s}"),
    Form("torch [rankN]:", "[rank1]: torch.distributed.DistBackendError: NCCL error in: ...", "",
         line=lambda s, i, k: f"[rank{i}]:{s}"),
    Form("srun --label", "10: torch.distributed.DistBackendError: NCCL error in: ...", "",
         line=lambda s, i, k: f"{i}: {s}"),
    Form("Ray actor tag",
         "(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072",
         "https://github.com/ray-project/ray/issues/59778",
         line=lambda s, i, k: f"(RayWorkerWrapper pid={581 + i}, ip=10.225.128.18) {s}"),
    Form("Ray nested tags",
         "(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO P2P Chunksize set to 131072",
         "https://github.com/foundation-model-stack/fastsafetensors/issues/36",
         line=lambda s, i, k: f"(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid={285 + i}, ip=192.168.177.12) {s}"),
    Form("python logging", "2024-05-01 10:00:00,123 - root - ERROR - ...", "",
         line=lambda s, i, k: f"2024-05-01 10:00:00,123 - trainer - INFO - {s}"),
    Form("bracketed time",
         "[2026-01-04 21:33:04] test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3] transport/net_ib.cc:2360 NCCL WARN NET/IB: Got completion from peer ...",
         "https://github.com/scitix/sichek/issues/44",
         line=lambda s, i, k: f"[2026-01-04 21:33:04] {s}"),
    Form("indented 4", "    ...", "", line=lambda s, i, k: f"    {s}"),
    Form("tab", "\t...", "", line=lambda s, i, k: f"\t{s}"),
    Form("> quote", "> [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer", "",
         line=lambda s, i, k: f"> {s}"),
    Form("> > nested quote", "> > ...", "", line=lambda s, i, k: f"> > {s}"),
    Form("code fence", "```", "", text=_fence),
    Form("backticks", "`init.cc:1247 NCCL WARN Mismatched collective detected, ...`", "",
         line=lambda s, i, k: f"`{s}`" if s.strip() else s),
    Form("GitHub autolinks",
         "node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : ...",
         "", line=_autolink),
    Form("CRLF", "...\\r\\n", "", line=lambda s, i, k: s + "\r"),
    Form("terminal wrap at 80", "", "", text=_terminal_wrap),
]


def _artefacts(case: Path) -> list[tuple[Path, str]]:
    out = []
    for src in sorted(case.rglob("*")):
        rel = src.relative_to(case)
        if src.is_file() and not (len(rel.parts) == 1 and rel.name in NOT_ARTEFACTS):
            out.append((rel, src.read_bytes().decode("utf-8", "replace")))
    return out


def _is_kernel_log(text: str) -> bool:
    from stethoscope.facts.classify import recognise
    return any(p.KIND == "kernel_log" for p in recognise(text))


def wrap_text(form: Form, text: str, index: int, kernel: bool) -> str:
    if form.text is not None:
        return form.text(text)
    lines = text.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None
    out = [form.line(ln[:-1] if ln.endswith("\r") else ln, index, kernel) for ln in lines]
    return "\n".join(out) + ("\n" if last is not None else "")


def top(files: list[tuple[Path, str]], ruleset) -> tuple[str, str]:
    """(verdict, cause of the top serious finding or '-') of a bundle made of ``files``."""
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory(prefix="tmp-wrap-") as tmp:
        for rel, text in files:
            dst = Path(tmp) / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(text, encoding="utf-8", newline="")
        rep = diagnose(observe_bundle(tmp, 1, ruleset=ruleset), ruleset)
    serious = [f for f in sorted(rep.findings, key=lambda f: f.rank) if f.severity in SERIOUS]
    return rep.verdict, serious[0].cause if serious else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="", help="only cases whose folder name matches this regex")
    ap.add_argument("--only", default="", help="only these forms (comma-separated substrings of their names)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list each case a form lost")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()
    forms = [f for f in FORMS if not args.only or any(o.strip() in f.name for o in args.only.split(","))]
    started = time.time()
    base: list[tuple[str, list[tuple[Path, str]], list[bool], str]] = []
    for case in sorted(CASES.iterdir()):
        if not (case / "label.yaml").is_file() or (args.cases and not re.search(args.cases, case.name)):
            continue
        files = _artefacts(case)
        verdict, cause = top(files, ruleset)
        if verdict == "faulty" and cause != "-":
            base.append((case.name, files, [_is_kernel_log(t) for _, t in files], cause))
    print(f"{len(base)} faulty cases (of fixtures/harvest/cases) with a serious top finding\n")
    print(f"{'wrapper form':28s} {'kept':>5s} / {'tried':<5s}  {'lost':>4s}  {'healthy':>7s}")
    total_kept = total_tried = 0
    for form in forms:
        kept = tried = healthy = 0
        lost: list[str] = []
        for name, files, kernel, cause in base:
            if form.kernel_only and not any(kernel):
                continue
            wrapped = [(rel, wrap_text(form, text, i, k) if (k or not form.kernel_only) else text)
                       for i, ((rel, text), k) in enumerate(zip(files, kernel))]
            verdict, got = top(wrapped, ruleset)
            tried += 1
            if got == cause:
                kept += 1
            else:
                lost.append(f"{name}: {cause} -> {got} ({verdict})")
                healthy += verdict == "healthy"
        total_kept, total_tried = total_kept + kept, total_tried + tried
        print(f"{form.name:28s} {kept:5d} / {tried:<5d}  {tried - kept:4d}  {healthy:7d}")
        if args.verbose:
            for row in lost:
                print(f"    {row}")
    print(f"\n{'all forms':28s} {total_kept:5d} / {total_tried:<5d}   in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

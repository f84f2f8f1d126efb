#!/usr/bin/env python3
"""Audit: is every message form PyTorch and CUDA print explained? (issue 11, "every message form across versions")

Feeds one line at a time, as an operator pastes it, through steth's plain functions (the
in-process runner of bench/probe_lines.py: a one-file bundle, ``diagnose``) and classifies the
answer:

* ``specific``: the top finding names a cause other than ``unexplained_error``;
* ``generic``: only ``unexplained_error`` (an error is seen, nobody says what it means);
* ``unrecognised``: no finding at all (``healthy`` is counted apart: it must never happen).

The lines come from data, never from the network or ../shared:

* ``bench/message_forms.yaml``: PyTorch's forms (ProcessGroupNCCL's watchdog and heartbeat,
  DistBackendError, c10d store and socket errors, elastic rendezvous and agent, the caching
  allocator's OOM, CUDA errors as c10 raises them), each with its source, literals and sample
  lines; ``bench/message_forms_versions.json`` says which releases print each (made by
  tools/torch_message_versions.py from the wheels);
* ``tools/sources/cudart_texts.json``: every ``cudaError_t`` name with each ``cudaGetErrorString``
  text and the CUDA releases printing it (tools/cudart_texts.py, CUDA 11.7 ... 13.5), and
  ``tools/sources/cuda_error_strings.json`` for the driver API (``CUresult``,
  ``cuGetErrorString``). Each error is printed in the forms applications use: PyTorch's
  ``CUDA error: <text>``, NCCL's ``Cuda failure '<text>'`` (bare and in a ``NCCL WARN`` line),
  ``cudaErrorX: <text>``, the CUDA samples' ``(error code <name>)!`` and ``(error code <text>)!``,
  ``CUDA_ERROR_X: <text>`` and c10's ``CUDA driver error: <text>``. For these the cause expected
  is the one knowledge/cuda_errors.yaml gives the name, or any entry sharing the printed text (200 and
  300 both print "device kernel image is invalid"); NCCL's own WARN line is NCCL's readers' to judge
  (its kernels, not the program's): any specific cause. A wrong one is counted as ``wrong``.

    .venv/bin/python bench/message_audit.py                 # summary per family and form
    .venv/bin/python bench/message_audit.py --only torch    # PyTorch's forms only (or: cuda)
    .venv/bin/python bench/message_audit.py --list          # every line that is not specific

A benchmark script (it prints a table), not a test.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_lines import diagnose_text, top  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FORMS = ROOT / "bench" / "message_forms.yaml"
VERSIONS = ROOT / "bench" / "message_forms_versions.json"
CUDART = ROOT / "tools" / "sources" / "cudart_texts.json"
DRIVER = ROOT / "tools" / "sources" / "cuda_error_strings.json"
GENERIC = {"unexplained_error"}

# (form, template): how applications print a runtime error (name, text)
RUNTIME_FORMS = (
    ("torch CUDA error", "RuntimeError: CUDA error: {text}"),
    ("NCCL Cuda failure", "Cuda failure '{text}'"),
    ("NCCL WARN Cuda failure", "node12:4242:4242 [3] NCCL WARN Cuda failure {code} '{text}'"),
    ("name: text", "caught: {name}: {text}"),
    ("error code <name>", "Failed to allocate device vector A (error code {name})!"),
    ("error code <text>", "Failed to allocate device vector A (error code {text})!"),
)
DRIVER_FORMS = (
    ("CUDA_ERROR_X: text", "cupy_backends.cuda.api.driver.CUDADriverError: {name}: {text}"),
    ("c10 CUDA driver error", "RuntimeError: CUDA driver error: {text}"),
)


def torch_lines() -> list[dict]:
    forms = yaml.safe_load(FORMS.read_text(encoding="utf-8"))["forms"]
    versions = json.loads(VERSIONS.read_text(encoding="utf-8"))["forms"] if VERSIONS.exists() else {}
    out = []
    for f in forms:
        v = versions.get(f["id"], {}).get("versions") or []
        span = f"{v[0]}..{v[-1]}" if v else "-"
        for i, s in enumerate(f["samples"]):
            out.append(dict(group="torch", family=f["family"], form=f["id"], versions=span, text=s,
                            expect=f.get("expect", "specific"), name=f"{f['id']}#{i}"))
    return out


def cuda_lines() -> list[dict]:
    from stethoscope.facts.parsers import cuda_error_catalogue as catalogue

    out = []
    rt = json.loads(CUDART.read_text(encoding="utf-8"))
    for name, rec in rt["runtime"].items():
        entry = catalogue.by_name(name)
        for text, vers in rec["texts"].items():
            for form, tpl in RUNTIME_FORMS:
                expect = _expect(catalogue, entry, None if "<name>" in form else text)
                out.append(dict(group="cuda", family="cuda runtime", form=form, versions=f"{vers[0]}..{vers[-1]}",
                                text=tpl.format(name=name, text=text, code=rec["code"]),
                                expect="specific" if "NCCL WARN" in form else expect, name=f"{name} [{form}]"))
    drv = json.loads(DRIVER.read_text(encoding="utf-8"))["driver"]
    for c in drv["codes"]:
        if c["code"] == 0:
            continue
        entry = catalogue.by_name(c["name"])
        for form, tpl in DRIVER_FORMS:
            expect = _expect(catalogue, entry, c["text"] if "driver error" in form else None)
            out.append(dict(group="cuda", family="cuda driver", form=form, versions=str(drv.get("version", "")),
                            text=tpl.format(name=c["name"], text=c["text"]), expect=expect,
                            name=f"{c['name']} [{form}]"))
    return out


def make_runner():
    """Diagnose one bundle folder in-process into the JSON report (the rules loaded once)."""
    from stethoscope.engine.pipeline import diagnose, observe_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()
    return lambda folder: json.loads(diagnose(observe_bundle(str(folder), 1, ruleset=ruleset), ruleset)
                                     .model_dump_json(exclude_none=True))


def _expect(catalogue, entry, text: str | None) -> str:
    """The causes a line may rightly get: its entry's, or any entry's printing the same text ("a|b")."""
    if entry is None:
        return "specific"
    same = {e.cause for e in catalogue.entries() if text and e.text.lower() == text.lower()}
    return "|".join(sorted({entry.cause} | same))


def classify(report: dict) -> tuple[str, str, str]:
    """(class, cause, rule) of a one-line report."""
    f = top(report)
    if report.get("verdict") == "healthy":
        return "healthy", "-", "-"
    if not f:
        return "unrecognised", "-", "-"
    cause = f.get("cause", "-")
    return ("generic" if cause in GENERIC else "specific"), cause, f.get("rule", "-")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="torch | cuda | a text in the form's id")
    ap.add_argument("--list", action="store_true", help="print every line that is not explained specifically")
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    args = ap.parse_args()
    lines = []
    if args.only != "cuda":
        lines += torch_lines()
    if args.only != "torch":
        lines += cuda_lines()
    if args.only not in ("", "torch", "cuda"):
        lines = [ln for ln in lines if args.only.lower() in ln["name"].lower()]
    run = make_runner()
    per_form: dict[tuple, Counter] = defaultdict(Counter)
    totals: dict[str, Counter] = defaultdict(Counter)
    bad = []
    for ln in lines:
        cls, cause, rule = classify(diagnose_text(ln["text"], run))
        wrong = cls == "specific" and ln["expect"] != "specific" and cause not in ln["expect"].split("|")
        ln.update(cls=cls, cause=cause, rule=rule, wrong=wrong)
        key = (ln["group"], ln["family"], ln["form"], ln["versions"])
        per_form[key][cls] += 1
        per_form[key]["wrong"] += wrong
        totals[ln["group"]][cls] += 1
        totals[ln["group"]]["wrong"] += wrong
        if args.json:
            print(json.dumps(ln))
        elif cls != "specific" or wrong:
            bad.append(ln)
    if args.json:
        return 0
    cols = ("specific", "generic", "unrecognised", "healthy", "wrong")
    print(f"{'group':6} {'family':18} {'form':38} {'versions':15} " + " ".join(f"{c:>12}" for c in cols))
    for key in sorted(per_form):
        c = per_form[key]
        print(f"{key[0]:6} {key[1]:18} {key[2]:38} {key[3]:15} " + " ".join(f"{c[x]:>12}" for x in cols))
    print()
    for group, c in sorted(totals.items()):
        n = sum(c[x] for x in cols[:4])
        print(f"{group}: {n} lines: " + ", ".join(f"{x} {c[x]}" for x in cols))
    if args.list:
        print()
        for ln in bad:
            tag = "WRONG " + ln["cause"] + " (want " + ln["expect"] + ")" if ln["wrong"] else ln["cls"]
            print(f"{tag:40} {ln['name']:50} {ln['text'][:160]!r}")
    return 1 if any(c["healthy"] for c in totals.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

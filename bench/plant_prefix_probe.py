#!/usr/bin/env python3
"""Never a false HEALTHY: real failure lines pasted beside a healthy artefact, under the prefixes people paste with.

Round rF5 (issue 11, bench/wild_sweep_rF5.md). The evidence lines of the harvest's faulty labels
(fixtures/harvest/cases/*/label.yaml ``evidence``: real lines, each a case's failure) are pasted, up to 3 a
case, beside a healthy artefact (BASES: an nvidia-smi table, nccl-tests results, an nvidia-smi -q section,
an ibstat; each read alone first), under each of PREFIXES (raw, journald with a program's tag and with the
kernel's, ``kubectl logs --prefix``, ``kubectl logs --timestamps``, docker compose, ``> `` quoting, a code
fence, a bracketed time, four blanks), in the same file below the artefact and in a file of their own. Each
bundle is diagnosed in-process (``jobs=1``); every HEALTHY is printed (the case, its category, the prefix,
the base, the layout, the findings) and the verdict counts last. A HEALTHY is a candidate for a person to
judge: a line the readers drop or claim and skip (a form not read), or a line that shows no fault alone.

    .venv/bin/python bench/plant_prefix_probe.py                 # 40 cases (seed 7), all bases
    .venv/bin/python bench/plant_prefix_probe.py --cases 10 --bases smi_table,nccl_tests

A benchmark script (it prints what it finds), not a test; about 0.15 s a diagnosis on 2 cores.
"""
from __future__ import annotations

import argparse
import collections
import random
import shutil
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BASES = {
    "smi_table": ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi.txt",
    "nccl_tests": ROOT / "fixtures/observations/h200-x2/nccl-tests/allreduce_healthy_g2.txt",
    "ibstat": ROOT / "fixtures/artefacts/ibstat/l2fwd_nv6_roce_100.txt",  # (INCONCLUSIVE alone: a RoCE port)
    "smi_q": ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi-q-ECC.txt",
}
PREFIXES = {
    "raw": lambda ln, i: ln,
    "journald": lambda ln, i: f"Dec 05 11:22:{i:02d} gpu-node-7 python3[48211]: {ln}",
    "journald_kernel": lambda ln, i: f"Dec 05 11:22:{i:02d} gpu-node-7 kernel: {ln}",  # (CONSTRUCTED: any line under the kernel's tag)
    "kubectl_prefix": lambda ln, i: f"[pod/trainer-0/pytorch] {ln}",
    "kubectl_ts": lambda ln, i: f"2026-12-05T11:22:{i:02d}.123456789Z {ln}",
    "docker_compose": lambda ln, i: f"trainer-1  | {ln}",
    "quote": lambda ln, i: f"> {ln}",
    "fence": None,  # the lines between ``` fences
    "bracket_ts": lambda ln, i: f"[2026-12-05 11:22:{i:02d}] {ln}",
    "indent4": lambda ln, i: f"    {ln}",
}


def cases(limit: int, seed: int) -> list[tuple[str, str, list[str]]]:
    out = []
    for lab in sorted((ROOT / "fixtures/harvest/cases").glob("*/label.yaml")):
        d = yaml.safe_load(lab.read_text())
        cat = str(d.get("category", ""))
        ev = [e for e in d.get("evidence") or [] if isinstance(e, str) and e.strip()][:3]
        if ev and not cat.startswith("healthy"):
            out.append((lab.parent.name, cat, ev))
    random.Random(seed).shuffle(out)
    return out[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bases", default=",".join(BASES))
    args = ap.parse_args()
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    bases = args.bases.split(",")

    def diag(files: dict[str, str]):
        tmp = Path(tempfile.mkdtemp())
        try:
            for name, text in files.items():
                (tmp / name).write_text(text)
            return diagnose_bundle(tmp, rules, jobs=1)
        finally:
            shutil.rmtree(tmp)

    for bn in bases:
        print("base", bn, diag({"base.txt": BASES[bn].read_text()}).verdict, flush=True)
    counts: collections.Counter[str] = collections.Counter()
    for name, cat, ev in cases(args.cases, args.seed):
        for pn, pf in PREFIXES.items():
            block = "```\n" + "\n".join(ev) + "\n```" if pf is None else "\n".join(pf(ln, i) for i, ln in enumerate(ev))
            for bn in bases:
                base = BASES[bn].read_text()
                for layout, files in (("same_file", {"paste.txt": base.rstrip("\n") + "\n\n" + block + "\n"}),
                                      ("own_file", {"base.txt": base, "error.txt": block + "\n"})):
                    rep = diag(files)
                    counts[rep.verdict] += 1
                    if rep.verdict == "healthy":
                        print("HEALTHY", name, cat, pn, bn, layout, [f.rule for f in rep.findings][:4], flush=True)
    print(dict(counts))


if __name__ == "__main__":
    main()

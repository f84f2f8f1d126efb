"""Issue 11, "What to build" item 3: for each artefact operators post, what reads it, on which
real fixtures, and which rules use what it read (a benchmark that prints figures, not a test).

Each fixture of the readers' folders under fixtures/artefacts is diagnosed alone, as a
one-file bundle, in process: the kind that recognised it, the fact kinds it gave, the rules
that fired and the verdict. The rules column lists every rule whose ``when`` names a fact kind
the reader made on any of its fixtures, or that the combiners derived from them (whether or not
a fixture fires it).

    .venv/bin/python bench/issue11_audit.py [--only REGEX]
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "artefacts"

# item of issue 11 -> the fixture folders (artefact kinds) that should read it
ITEMS: dict[str, list[str]] = {
    "dcgmi diag (text, -j JSON)": ["dcgmi_diag"],
    "dcgmi health -c (text, -j JSON)": ["dcgmi_health"],
    "dcgmi dmon": ["dcgmi_dmon"],
    "dcgmi discovery -l": ["dcgmi_discovery"],
    "dcgm-exporter /metrics scrape": ["dcgm_exporter_scrape"],
    "nvidia-smi default table": ["nvidia_smi_table"],
    "nvidia-smi --query-gpu csv[,noheader]": ["nvidia_smi_util"],
    "nvidia-smi nvlink -s / -e": ["nvidia_smi_nvlink"],
    "nvidia-smi topo -p2p": ["nvidia_smi_topo_p2p"],
    "nvidia-smi -q -d FABRIC": ["nvidia_smi_q"],
    "NVML init failures (version mismatch)": ["nvml_init"],
    "fabric manager log, systemctl status": ["fabric_manager_log"],
    "ibv_devinfo": ["ibv_devinfo"],
    "show_gids": ["show_gids"],
    "lspci -vvv (LnkCap/LnkSta, ACSCtl)": ["lspci"],
    "lsmod": ["lsmod"],
    "pip freeze / conda list": ["python_packages"],
    "nvidia-container-toolkit logs": ["nvidia_container_cli", "container_runtime"],
    "k8s-device-plugin logs": ["k8s_device_plugin"],
}


def _fact_names(node, out: set[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "fact" and isinstance(v, str):
                out.add(v)
            else:
                _fact_names(v, out)
    elif isinstance(node, list):
        for v in node:
            _fact_names(v, out)


def rules_by_fact() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in sorted((ROOT / "rules").rglob("*.yaml")):
        doc = yaml.safe_load(p.read_text()) or {}
        names: set[str] = set()
        _fact_names(doc.get("when", {}), names)
        for n in names:
            out.setdefault(n, set()).add(doc.get("id", p.stem))
    return out


def diagnose_one(path: Path):
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory() as d:
        node = Path(d) / "n1"
        node.mkdir()
        shutil.copy(path, node / path.name)
        obs = observe_bundle(d, jobs=1)
        kinds = Counter(f.kind for f in obs.facts)
        files = [(c.kind, c.read_by) for c in obs.coverage.files]
        rep = diagnose(obs)  # combines: the derived facts are appended to obs.facts
        derived = {f.kind for f in obs.facts} - set(kinds)
    return files, kinds, derived, sorted({f.rule for f in rep.findings}), rep.verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    by_fact = rules_by_fact()
    missing = 0
    for item, dirs in ITEMS.items():
        if args.only and not re.search(args.only, item):
            continue
        print(f"## {item}")
        made: set[str] = set()
        for d in dirs:
            fixtures = sorted(p for p in (FIX / d).glob("*") if p.is_file() and p.name != "README.md")
            if not fixtures:
                print(f"  {d}: NO FIXTURE")
                missing += 1
            for fx in fixtures:
                files, kinds, derived, rules, verdict = diagnose_one(fx)
                made |= set(kinds) | derived
                read = ",".join(sorted({k for k, _ in files}))
                ok = "" if d in read else "  <-- not read by its own kind"
                print(f"  {d}/{fx.name}: kind={read} verdict={verdict} facts={dict(kinds)} derived={sorted(derived)} rules={rules}{ok}")
        users = sorted({r for k in made for r in by_fact.get(k, ())})
        print(f"  rules over its facts ({len(users)}): {', '.join(users) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

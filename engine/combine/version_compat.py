"""Version compatibility checks (issue 15 item 5) over the versions a bundle shows, against the
tables of knowledge/compat.yaml: one ``version_compat`` fact per pair, ``ok`` or not.

- ``cuda_nccl``: an NCCL build (``NCCL version 2.14.3+cuda12.0``) against the NCCL releases NVIDIA
  built for that CUDA major version;
- ``dcgm_driver``: dcgmi diag's ``DCGM Version`` against the oldest driver its release line
  supports (its ``Driver Version Detected``, else the node's nvidia-smi driver);
- ``cuda_driver``: the CUDA an NCCL build names against the node's driver: below the major
  version's minor-version-compatibility floor it cannot run at all; between that floor and the
  toolkit's own minimum it runs without the newest features (said in ``need``, still ok);
- ``cuda_build_driver``: the same floor for the newest CUDA a listed package was built for or is
  (pip/conda/collect_env: torch ``+cu121``, ``CUDA used to build PyTorch: 10.2``, ``cudatoolkit
  10.2.89``, ``nvidia-cuda-runtime-cu12``), one check per node.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.bench_facts import VersionCompat


@lru_cache(maxsize=4096)  # a fleet repeats a few versions on every node and fact
def vkey(v: str) -> tuple[int, ...]:
    """"550.54.15" -> (550, 54, 15); what follows the leading dotted number is ignored
    ("2.18.5+cuda12.2" -> (2, 18, 5), "12.4.r12.4" -> (12, 4))."""
    m = _NUM.match(v.strip())
    return tuple(int(x) for x in m[0].split(".")) if m else ()


_NUM = re.compile(r"\d+(?:\.\d+)*")


@lru_cache(maxsize=1)
def table() -> knowledge.Compat:
    return knowledge.load("compat.yaml")


def _make(check: str, shown: Fact, ok: bool, have: str, need: str, source: str, key: str) -> Fact:
    return VersionCompat(id=f"derived:compat:version_compat:{check}:{key}", node=shown.node, evidence=shown.evidence,
                         check=check, ok=ok, have=have, need=need, source=source, sources=shown.id)


def _drivers(facts: list[Fact]) -> dict[str, str]:
    """node -> driver version (nvidia-smi, the kernel module, dcgmi diag's Metadata); where none
    of those reports one, the newest installed driver package (dpkg -l / apt list: the driver the
    node boots into, which a module still loaded from before an upgrade may not be yet)."""
    out: dict[str, str] = {}
    for f in of_kind(facts, "gpu_info", "dcgm_diag_run", "nvidia_driver_version"):
        v = (f.driver_version if f.kind in ("gpu_info", "dcgm_diag_run") else f.version if f.kind == "nvidia_driver_version" else None)
        if v and vkey(v):
            out.setdefault(f.node, v)
    packaged: dict[str, str] = {}
    for f in of_kind(facts, "package_version"):
        if getattr(f, "nvidia_driver", False) and vkey(f.version) and vkey(f.version) > vkey(packaged.get(f.node, "")):
            packaged[f.node] = _NUM.match(f.version)[0]  # "510.47.03-0ubuntu1" -> "510.47.03"
    for node, v in packaged.items():
        out.setdefault(node, v)
    return out


def summarise(facts: list[Fact]) -> list[Fact]:
    t = table()
    drivers = _drivers(facts)
    out: list[Fact] = []
    seen: set[tuple] = set()
    for f in of_kind(facts, "nccl_version", "dcgm_diag_run"):
        if f.kind == "nccl_version" and f.cuda and vkey(f.cuda) and (f.node, f.version, f.cuda) not in seen:
            seen.add((f.node, f.version, f.cuda))
            out += _cuda_nccl(t, f) + _cuda_driver(t, f, drivers.get(f.node))
        elif f.kind == "dcgm_diag_run" and f.dcgm_version and (f.node, f.dcgm_version) not in seen:
            seen.add((f.node, f.dcgm_version))
            out += _dcgm_driver(t, f, f.driver_version or drivers.get(f.node))
    newest: dict[str, Fact] = {}  # node -> the package built for the newest CUDA
    for f in of_kind(facts, "package_version"):
        if f.cuda_build and vkey(f.cuda_build) and (f.node not in newest or vkey(f.cuda_build) > vkey(newest[f.node].cuda_build)):
            newest[f.node] = f
    for node, f in newest.items():
        out += _cuda_driver(t, f, drivers.get(node), f.cuda_build, f"{f.package} {f.version} built for CUDA {f.cuda_build}",
                            "cuda_build_driver")
    return out


def _cuda_nccl(t: knowledge.Compat, f: Fact) -> list[Fact]:
    major = vkey(f.cuda)[0]
    row = next((r for r in t.cuda_nccl if r.cuda_major == major), None)
    if row is None:
        return []
    v = vkey(f.version)
    ok = v >= vkey(row.nccl_min) and (row.nccl_max is None or v <= vkey(row.nccl_max))
    span = f"NCCL {row.nccl_min}" + (f" to {row.nccl_max}" if row.nccl_max else " or later")
    return [_make("cuda_nccl", f, ok, f"NCCL {f.version} built for CUDA {f.cuda}", f"CUDA {major}.x builds exist for {span}",
                  row.source, f"{f.node}:{f.version}:{f.cuda}")]


def _cuda_driver(t: knowledge.Compat, f: Fact, driver: str | None, built: str | None = None, what: str | None = None,
                 check: str = "cuda_driver") -> list[Fact]:
    """The node's ``driver`` against the floor of the CUDA release ``built`` (``what`` names the
    build): by default the CUDA of the NCCL build ``f``."""
    if not driver:
        return []
    built = built or f.cuda
    what = what or f"NCCL {f.version} built for CUDA {f.cuda}"
    cuda = vkey(built)[:2]
    rows = sorted((r for r in t.cuda_driver if vkey(r.cuda)[0] == cuda[0] and vkey(r.cuda) <= cuda), key=lambda r: vkey(r.cuda))
    if not rows:
        return []
    row = rows[-1]
    d = vkey(driver)
    ok = d >= vkey(row.minor_compat)
    floor = "" if row.minor_compat == row.toolkit else f" (>= {row.minor_compat} under minor version compatibility)"
    need = (f"CUDA {row.cuda} needs driver >= {row.toolkit}{floor}"
            + ("" if not ok or d >= vkey(row.toolkit) else "; this driver runs it only through minor version compatibility (no PTX JIT of newer code)"))
    return [_make(check, f, ok, f"driver {driver}; {what}", need,
                  "CUDA Toolkit release notes, Table 3 and the minor version compatibility table", f"{f.node}:{built}:{driver}")]


def _dcgm_driver(t: knowledge.Compat, f: Fact, driver: str | None) -> list[Fact]:
    if not driver:
        return []
    dv = vkey(f.dcgm_version)
    rows = sorted((r for r in t.dcgm_driver if vkey(r.dcgm) <= dv), key=lambda r: vkey(r.dcgm))
    if not rows:
        return []
    row = rows[-1]
    ok = vkey(driver) >= vkey(row.driver_min)
    return [_make("dcgm_driver", f, ok, f"DCGM {f.dcgm_version} with driver {driver}",
                  f"DCGM {row.dcgm} and later need driver >= {row.driver_min}", row.source, f"{f.node}:{f.dcgm_version}:{driver}")]

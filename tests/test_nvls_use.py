"""engine/combine/nvls_use.py: did an nccl-tests run use NVLS, from its own NCCL lines first, else from
knowledge/nvls.yaml. The base is the real hung run of nccl#1706 (4 x H800, NCCL 2.26.5);
variants change one thing each (the GPU count, product, NCCL version, or add one real NCCL line)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.engine.combine import nvls_use
from stethoscope.engine.pipeline import parse_artefacts
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.readings import records

ROOT = Path(__file__).resolve().parents[1]
HANG = (ROOT / "fixtures" / "artefacts" / "nccl_tests" / "allreduce_hang_g4_h800.txt").read_text()
PID = "deepseek:2081556:2081556 [0] NCCL INFO "


def _use(text: str):
    facts = parse_artefacts([Artefact(path="run.txt", text=text, node="deepseek")]).facts
    [use] = [f for f in facts if f.kind == "nccl_nvls_use"]
    return use


def _two_gpus(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if "Rank  2" not in l and "Rank  3" not in l) + "\n"


@pytest.mark.parametrize(
    "text, used, basis",
    [
        (HANG, True, "gpu_model"),
        (_two_gpus(HANG), False, "too_few_gpus"),
        (_two_gpus(HANG).replace("2.26.5", "2.28.9"), True, "gpu_model"),  # 2.28.7 on: two GPUs are enough
        (HANG.replace("2.26.5", "2.16.2"), False, "nccl_too_old"),
        (HANG.replace("NVIDIA H800", "NVIDIA H100 PCIe"), False, "gpu_not_capable"),
        (HANG.replace("NVIDIA H800", "NVIDIA A100-SXM4-80GB"), None, "unknown"),
        (HANG.replace("NCCL version 2.26.5+cuda12.4", "NCCL INFO cudaDriverVersion 12040"), None, "unknown"),
        (HANG + PID + "NCCL_NVLS_ENABLE set by environment to 0.\n", False, "setting"),
        (HANG + PID + "4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer\n",
         False, "log_channels"),
        (HANG + PID + "NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824\n",
         True, "log_setup"),
        (HANG + PID + "NVLS multicast support is not available on dev 0\n", False, "log_support"),
    ],
)
def test_nvls_use(text, used, basis):
    use = _use(text)
    assert (use.used, use.basis, use.hung) == (used, basis, True)


def test_another_process_lines_do_not_count():
    # the 2-GPU run of the same thread (pid 2081594) printed 0 nvls channels: not this run's
    other = "deepseek:2081594:2081600 [0] NCCL INFO 4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer\n"
    use = _use(HANG + other)
    assert (use.used, use.basis) == (True, "gpu_model")


def test_release_table():
    assert nvls_use.min_local_gpus("2.17.1") == (2, True)
    assert nvls_use.min_local_gpus("2.26.5") == (3, False)
    assert nvls_use.min_local_gpus("2.28.9") == (2, False)
    assert nvls_use.min_local_gpus("2.16.5") is None
    assert [nvls_use.gpu_capable(n) for n in ("NVIDIA H200", "NVIDIA H200 NVL", "Tesla V100-SXM2-32GB", None)] == [
        True, False, None, None]


@pytest.mark.parametrize("name", ["h200-healthy", "h200-socket-only", "h200-bad-ifname", "seed-8x8-pairwise-rate100"])
def test_lines_sorted_once_per_process_and_inferences_kept_change_nothing(name, monkeypatch):
    """summarise sorts a process's NCCL lines once for all the runs of that process and keeps
    _inferred's answers across runs (session 39, rM6: a bench node's four runs share one pid), and groups by kind and
    reads once (_said) the lines of a process whose run's file holds none of them (session 42, rP7; session 44, rS11):
    the facts are those of each run sorting, partitioning, grouping and reading its own lines and inferring anew."""
    from stethoscope.engine.pipeline import Combined, observe_bundle

    obs = observe_bundle(ROOT / "fixtures" / "bundles" / name / "bundle", 1)
    seen = Combined(obs.facts, obs.coverage)
    by_kind, ranks = seen.by_kind, records(seen, "nccl_test_rank")
    got = [f.model_dump() for f in nvls_use.summarise(by_kind, ranks)]
    own, use = nvls_use._own_lines, nvls_use._use
    monkeypatch.setattr(nvls_use, "_own_lines", lambda run, ranks, by_proc, by_path, ordered=None: own(run, ranks, by_proc, by_path))
    monkeypatch.setattr(nvls_use, "_use", lambda run, ranks, lines, hung, inferred=None, grouped=None: use(run, ranks, lines, hung))
    assert got and got == [f.model_dump() for f in nvls_use.summarise(by_kind, ranks)]

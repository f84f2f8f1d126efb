"""A CUDA library's failed handle beside the process's GPU out-of-memory is that shortage's consequence.

cuBLAS's cublasCreate and cuDNN's cudnnCreate allocate device memory for the handle and its workspace; with the
GPU's memory gone they return CUBLAS_STATUS_NOT_INITIALIZED / CUDNN_STATUS_NOT_INITIALIZED (the cuBLAS and cuDNN
documentation: "the CUDA Runtime initialization failed" / resource allocation failed), not an out-of-memory status.
rules/application/cuda_library_error.yaml names cuda_out_of_memory among its cascade_of causes, on its node only.
Real sample: fixtures/artefacts/cuda_app/tf30912_cublas_not_initialized_out_of_memory.log (tensorflow/tensorflow#30912)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.engine.findings import rank_findings, symptom_map
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.report import Entity, Finding

ROOT = Path(__file__).resolve().parent.parent


def test_cublas_handle_failure_is_a_cascade_of_the_oom(tmp_path, ruleset):
    (tmp_path / "n1").mkdir()
    src = ROOT / "fixtures/artefacts/cuda_app/tf30912_cublas_not_initialized_out_of_memory.log"
    (tmp_path / "n1" / "app.log").write_text(src.read_text())
    got = {(f.rule, f.cause): f for f in diagnose_bundle(tmp_path, ruleset).findings}
    oom = next(f for (rule, cause), f in got.items() if cause == "cuda_out_of_memory")
    lib = got[("cuda_library_error", "cuda_application_error")]
    assert oom.role == "root_cause"
    assert lib.role == "cascade" and lib.explained_by == [oom.rank]


def _f(rule: str, cause: str, node: str) -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="application", severity="critical",
                   confidence=0.6, role="independent", entity=Entity(label=node, node=node), summary=f"{cause} {node}",
                   actions=[], action_text="", evidence=[], evidence_total=0, nodes=[node])


def test_an_oom_on_another_node_explains_nothing_here(ruleset):
    # CONSTRUCTED: the library's failure on n2, the out-of-memory on n1: another process's memory
    got = rank_findings([_f("cuda_library_error", "cuda_application_error", "n2"),
                         _f("cuda_error_catalogue", "cuda_out_of_memory", "n1")], symptom_map(ruleset.rules))
    assert all(not f.explained_by for f in got) and all(f.role != "cascade" for f in got)

"""The CUDA error catalogue as facts: one ``cuda_error_catalogue_entry`` for each error the
``cuda_error``, ``nccl_cuda_failure`` and ``cuda_sample_run`` facts name (``catalogue_name``), so that rules join an
error with its meaning (rules/application/cuda_error_catalogue.yaml,
rules/nccl/nccl_cuda_failure_catalogue.yaml), as the Xid rules join ``xid_catalogue_entry``.

Called from :func:`stethoscope.engine.catalogues.xid.knowledge_facts` before the rules run;
only the entries named are asserted (the other 230-odd could never match a join).
"""
from __future__ import annotations

from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue


#: fact kinds that carry a ``catalogue_name``
_NAMING = ("cuda_error", "nccl_cuda_failure", "cuda_sample_run")


def entry_facts(facts: list[Fact]) -> list[Fact]:
    given = {f.name for f in of_kind(facts, "cuda_error_catalogue_entry")}  # type: ignore[attr-defined]
    names = sorted({f.catalogue_name for f in of_kind(facts, *_NAMING)  # type: ignore[attr-defined]
                    if f.catalogue_name} - given)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for name in names:
        e = catalogue.by_name(name)
        if e is not None:
            out.append(catalogue.entry_fact(e))
    return out

"""Facts the pipeline derives from other facts (expected RDMA paths, parse problems,
unexplained errors, summaries of healthy readings).

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class RdmaExpected(Fact):
    """This node was expected to use RDMA (IB/RoCE): HCAs were found or NCCL_IB_HCA was set."""

    kind: Literal["rdma_expected"] = "rdma_expected"
    reason: str
    sources: str


@fact_kind
class RdmaInUse(Fact):
    """This node shows RDMA (IB/RoCE verbs) in use or set up: an HCA listed, NCCL's IB devices or
    NCCL_IB_HCA (rdma_expected), or libibverbs/UCX/NCCL verbs output. Derived by the
    rules/network/rdma_in_use_from_*.yaml rules, from observed facts only."""

    kind: Literal["rdma_in_use"] = "rdma_in_use"
    reason: str
    sources: str


@fact_kind
class ParseProblemFact(Fact):
    """A line that a parser claimed and could not parse (``coverage.errors``): it may hold the
    error that explains the incident, so it counts as an error nobody has read."""

    kind: Literal["parse_problem"] = "parse_problem"
    parser: str
    message: str
    component: str


@fact_kind
class UnexplainedFact(Fact):
    """An error- or warning-polarity fact (knowledge/fact_polarity.yaml), or a parse problem,
    whose source line no finding cites: what rules/meta/unexplained_error.yaml reports.
    ``signature`` is the line with numbers masked, so that one message logged many times
    is one finding."""

    kind: Literal["unexplained_fact"] = "unexplained_fact"
    source_kind: str
    polarity: str
    component: str
    message: str
    signature: str
    sources: str


@fact_kind
class FactSummary(Fact):
    """Facts of one kind from one file and node that no rule in use can bind and no engine code
    reads (knowledge/fact_routing.yaml): healthy readings such as zero ECC counters or clock
    reasons that are not active. ``count`` says how many were made; the evidence is the first
    one's line. A branch of a decision tree counts as checked when its kind was summarised.
    ``values``: for a kind fact_routing.yaml gives ``summary_values``, the distinct values of that
    field among the readings counted, in the order first seen (a process's transports: "P2P/CUMEM",
    "SHM/direct/direct"); empty for the others."""

    kind: Literal["fact_summary"] = "fact_summary"
    of_kind: str
    count: int
    values: tuple[str, ...] = ()

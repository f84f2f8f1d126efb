"""Facts the pipeline derives from other facts (expected RDMA paths, parse problems,
unexplained errors, summaries of healthy readings).

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Any, Literal

from stethoscope.facts.model import Evidence, Fact, evidence_at, fact_kind


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
    "SHM/direct/direct"); ``rows``: for a kind it gives ``summary_rows``, each such reading's values of the
    fields it names, then its line and text (a file's volatile correctable ECC counts: bus id, location,
    count); a row is cited as ``<id>@<i>`` (:meth:`part_evidence`). Empty for the others."""

    kind: Literal["fact_summary"] = "fact_summary"
    of_kind: str
    count: int
    values: tuple[str, ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()

    def part_id(self, i: int) -> str:
        """The id a derived fact's ``sources`` cites row ``i`` by (engine/findings.evidence_of)."""
        return f"{self.id}@{i}"

    @property
    def lines(self) -> tuple[int, ...]:
        """The rows' lines (engine/accounting: the lines of a file a finding could cite)."""
        return tuple(row[-2] for row in self.rows)

    def part_evidence(self, i: int) -> Evidence:
        """Row ``i``'s evidence: the line and text of the reading it was."""
        row = self.rows[i]
        line, text = row[-2], row[-1]
        if type(line) is int and type(text) is str:  # (the router's rows: facts/parsers/base.fold_row)
            # built as validation would store them, not validated again (~13 us a call: a 1,024-node bench
            # bundle's nccl_net_plugin rows asked ~50k, bench/speed_rT8.md)
            return evidence_at(self.evidence.path, line, text)
        return Evidence(path=self.evidence.path, line=line, text=text)

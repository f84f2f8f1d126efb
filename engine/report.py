"""The diagnosis report: a pydantic model whose JSON is the contract in REPORT_JSON.md.

Fields may be added, never renamed or removed. ``steth schema report`` prints its schema.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvidenceLine(_M):
    path: str
    line: int
    text: str


class Entity(_M):
    node: str | None = None
    gpu: str | None = None
    hca: str | None = None
    port: str | None = None
    link: list[str] | None = None
    rank: int | None = None
    switch: str | None = None
    #: a network address a finding names (the peer NCCL dialled: "169.254.170.23"), where the fault is an
    #: address or interface rather than a part of the node (harvest 1705, aws-do-eks#54)
    address: str | None = None
    label: str


class Finding(_M):
    rank: int
    rule: str
    title: str
    cause: str
    component: str
    severity: Literal["info", "warning", "critical", "fatal"]
    confidence: float
    role: Literal["root_cause", "cascade", "independent"]
    entity: Entity
    summary: str
    actions: list[str]
    action_text: str
    evidence: list[EvidenceLine]
    evidence_total: int = Field(description="evidence lines in all; 'evidence' quotes at most EVIDENCE_LIMIT of them")
    nodes: list[str] = Field(default_factory=list, description="every node where the rule matched")
    ranks: list[int] = Field(default_factory=list, description="ranks whose lines the finding merges (same fault logged by every rank)")
    occurrences: int = 1
    explains: list[int] = Field(default_factory=list)
    explained_by: list[int] = Field(default_factory=list)
    kb: list[str] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list, description="every rule that recognised this fault, 'rule' first (one fault, one finding)")
    references: list[str] = Field(default_factory=list)
    placed_by: list[str] = Field(default_factory=list, description="how localisation placed the entity: the evidence that singled it out (pairwise tests, port rates, a peer address)")
    blast_radius: list[str] = Field(default_factory=list, description="for a finding lifted to a shared element: the entities behind it that it explains")


class FileCoverage(_M):
    path: str
    kind: str
    node: str
    facts: int
    skipped_lines: int
    read_by: list[str] = Field(default_factory=list, description="the parsers (of 'kind') that read at least one line of the file: only these count as evidence that a subsystem was checked")
    checks: dict[str, list[str]] = Field(default_factory=dict, description="of the parsers in 'read_by' whose kind declares 'checks' (knowledge/coverage.yaml): the components the facts they read show checked (a dcgmi diag's tests that ran); the others check their kind's 'covers'")
    #: component -> fact kind -> [first line, its text, how many]: the readings behind each component the file checked
    #: (knowledge/coverage.yaml, engine/knowledge.py readings); not a field of the JSON (its schema allows none more here):
    #: the report's text and its ``reason`` of a healthy verdict name them (engine/accounting.py healthy_readings)
    _readings: dict = PrivateAttr(default_factory=dict)
    #: reader kind -> what its facts showed, for a kind whose coverage note names it (knowledge/coverage.yaml ``named``:
    #: "AMD's amd-smi"); the verdict's reason puts it before the note. Not a field of the JSON either
    _named: dict = PrivateAttr(default_factory=dict)


class ParseProblem(_M):
    path: str
    line: int
    message: str
    parser: str | None = Field(default=None, description="the artefact kind whose parser claimed the line")


class SkippedFile(_M):
    path: str
    reason: str
    node: str | None = Field(default=None, description="the node the file was collected from, where known (uninformative files: a node folder holding only such files checked nothing of that node)")


class LimitHit(_M):
    """A limit of the memory budget or of the readers that bit: that part was not read in full."""

    limit: str = Field(description="which limit: max_line_chars, facts_per_kind, xml_depth, xml_elements, folder_depth, file_size; live: answer_bytes, run_bytes (the query as path); of the capture itself: cut_short (an output that stops before its end), gpus_not_shown (GPUs announced, not shown); of a recognised file: unread_run (a run of another program's lines that none of its readers reads and that alone would not be recognised: engine/foreign_runs.py)")
    path: str
    line: int = Field(default=0, description="the line where it bit (0: the file as a whole)")
    detail: str


class Coverage(_M):
    files: list[FileCoverage] = Field(default_factory=list)
    unrecognised: list[str] = Field(default_factory=list)
    #: files no reader recognised that hold nothing a diagnosis could use (no error-worded line,
    #: no GPU, driver, network or job term: knowledge/coverage.yaml), with that reason
    uninformative: list[SkippedFile] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    errors: list[ParseProblem] = Field(default_factory=list)
    limits: list[LimitHit] = Field(default_factory=list, description="limits that bit (memory budget, line length, XML depth, facts per kind, folder depth): what was not read in full")


class Source(_M):
    kind: Literal["bundle", "prometheus"]
    path: str


class MissingSignal(_M):
    """A live series that Prometheus does not have: what it would have shown and how to get it.
    A missing signal is never read as healthy."""

    metric: str
    source: str
    field_id: int | None = None
    shows: str
    enable: str


class NotChecked(_M):
    """A branch of a decision tree (e.g. "training throughput dropped") the input had no
    evidence for: what was not checked, and what artefact would have answered it."""

    tree: str
    branch: str
    question: str
    missing: str
    needs: list[str]
    source: str


class Checked(_M):
    """A component that the input checked: the files whose parsers read evidence about it
    (knowledge/coverage.yaml). ``healthy`` is claimed only for what is listed here."""

    component: str
    files: list[str]


class Report(_M):
    version: Literal[1] = 1
    source: Source
    verdict: Literal["healthy", "faulty", "inconclusive"] = Field(description=(
        "faulty: a finding of severity warning or worse (an error no rule explains is one: cause unexplained_error). "
        "healthy: no such finding, at least one artefact that checks a component was read ('checked'), and every "
        "file could be read and was recognised. inconclusive: otherwise; 'reason' says what was not checked and why."))
    findings: list[Finding]
    coverage: Coverage
    nodes: list[str] = Field(default_factory=list)
    facts: int = 0
    missing_signals: list[MissingSignal] = Field(default_factory=list, description="live diagnosis: series Prometheus lacks (never read as healthy)")
    reason: str | None = Field(default=None, description=(
        "why the verdict is inconclusive, when it is; of a healthy verdict, what it rests on: 'healthy on what was read: "
        "<component> on <file>:<line>: <how many> <fact kind>, the first '<line>'; ... | <component> on ...' (up to three "
        "readings a component, the text report lists them): 'checked' takes no field more"))
    checked: list[Checked] = Field(default_factory=list, description="the components the input checked, with the files that checked them: what a healthy verdict covers")
    not_checked: list[NotChecked] = Field(default_factory=list, description="decision-tree branches with no evidence in the input (never read as healthy)")

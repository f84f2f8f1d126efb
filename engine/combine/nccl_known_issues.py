"""The known NCCL bugs of ``knowledge/nccl_known_issues.yaml`` as facts for the rules to join.

One step of engine/pipeline.py's COMBINERS. The table's ``symptoms`` are rule conditions on
one fact each, evaluated here with the rules' compiler and semantics; what the step emits is
observations and the table's rows, and the rules (rules/nccl/nccl_known_issue_*.yaml) do the
join: an entry's symptoms on one node beside the version that node printed, or, where it printed
none, a frame that places it; rules/nccl/nccl_known_version_issue.yaml then checks the range.

- ``nccl_symptom_seen``: one per (symptom, node), shown by the first fact that meets it, standing for every one;
- ``nccl_version_seen``: one per (node, version) on the nodes that show a symptom, from NCCL's
  version line, nccl-tests' ``nccl-library=`` header or PyTorch's NCCL error;
- ``nccl_symptom_frame``: the first ``located_by`` frame of a symptom fact (a frame of its
  chain's ``frame_list``, or its own ``file:line``), one per (node, frame);
- ``nccl_known_issue_entry`` and ``nccl_known_issue_frame``: the entries and ``located_by`` rows
  whose every symptom was seen somewhere (the others can join nothing, and every fact asserted
  costs time in the rule session).
"""
from __future__ import annotations

from functools import lru_cache

from stethoscope.engine.ruleengine.compile import Pattern, compile_condition, pattern_matches
from stethoscope.engine.ruleengine.session import FieldView
from stethoscope.engine.ruleengine.schema import Condition
from stethoscope.facts import knowledge as _knowledge
from stethoscope.facts.kinds.catalogues import NcclKnownIssueEntry, NcclKnownIssueFrame
from stethoscope.facts.kinds.nccl import NcclSymptomFrame, NcclSymptomSeen, NcclVersionSeen
from stethoscope.facts.model import Evidence, Fact

PATH = "knowledge/nccl_known_issues.yaml"


def knowledge():
    """knowledge/nccl_known_issues.yaml, validated by its schema (facts/knowledge/nccl.py)."""
    return _knowledge.load("nccl_known_issues.yaml")


def compile_symptom(spec) -> Pattern:
    """A symptom of knowledge/nccl_known_issues.yaml as a rule condition, compiled by the rules'
    compiler (their operators and semantics: a test on a field the fact lacks is false, except
    ``exists: false``; an operator rules lack raises)."""
    return compile_condition(Condition(fact=spec.fact, match=spec.match))


@lru_cache(maxsize=None)
def _symptom(name: str) -> Pattern:
    return compile_symptom(knowledge().symptoms[name])


def symptom_matches(pattern: Pattern, fact: Fact) -> bool:
    """One fact against a compiled symptom, its fields read as its rule view has them (the
    session's FieldView: no view built)."""
    return fact.kind == pattern.kind and pattern_matches(pattern, FieldView(fact))


def _symptom_seen(name: str, by_kind: dict[str, list[Fact]]) -> list[Fact]:
    """Facts that meet every condition of the symptom ``name``."""
    pattern = _symptom(name)
    return [f for f in by_kind.get(pattern.kind, []) if symptom_matches(pattern, f)]


def _versions(by_kind: dict[str, list[Fact]]) -> list[tuple[str, Fact]]:
    """(version, fact that printed it): NCCL's own version line, nccl-tests' header
    (``nccl-library=21801``) for runs without NCCL_DEBUG=INFO, and PyTorch's NCCL error
    (``... unhandled cuda error ..., NCCL version 2.18.1``)."""
    out = [(v.version, v) for v in by_kind.get("nccl_version", [])]
    for kind in ("nccl_test_run", "torch_nccl_error"):
        out += [(r.nccl_version, r) for r in by_kind.get(kind, []) if getattr(r, "nccl_version", None)]
    return out


def _frames(f: Fact) -> list[str]:
    """A fact's source locations as NCCL prints them: its chain's frames, then its own place."""
    frames = (getattr(f, "frame_list", None) or "").split(",")
    if getattr(f, "source_line", None) is not None:
        frames.append(f"{f.source_file}:{f.source_line}")
    return frames


def _ordered(entry) -> list[str]:
    """The entry's symptoms, the one met by a failed CUDA call inside NCCL first (symptom_1:
    its CUDA error is the one the known issue explains, rule nccl_cuda_failure_catalogue)."""
    table = knowledge().symptoms
    return sorted(entry.symptoms, key=lambda n: table[n].fact != "nccl_cuda_failure")


def _made(cls, key: str, shown: Fact, sources: list[Fact], **fields) -> Fact:
    return cls(id=f"derived:summary:{cls.model_fields['kind'].default}:{key}", node=shown.node, evidence=shown.evidence,
               sources=",".join(dict.fromkeys(f.id for f in sources)), **fields)


def summarise(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    table = knowledge()
    seen: dict[str, list[Fact]] = {}
    live = []
    for entry in table.issues:
        # the symptom of the rarer fact kind first: where it is absent the other is not looked for
        for name in sorted(entry.symptoms, key=lambda n: len(by_kind.get(table.symptoms[n].fact, ()))):
            if name not in seen:
                seen[name] = _symptom_seen(name, by_kind)
            if not seen[name]:
                break
        else:
            live.append(entry)
    if not live:
        return []
    out: list[Fact] = []
    nodes: set[str] = set()
    for name in dict.fromkeys(n for e in live for n in e.symptoms):
        first: dict[str, Fact] = {}
        met: dict[str, list[Fact]] = {}
        for f in seen[name]:
            first.setdefault(f.node, f)
            met.setdefault(f.node, []).append(f)
        for node, f in first.items():
            nodes.add(node)
            cuda = f.catalogue_name if f.kind == "nccl_cuda_failure" else None
            # shown by the first, standing for every fact that meets it on the node (each device of a process
            # driving several GPUs prints its own failure: all are the known issue's)
            out.append(_made(NcclSymptomSeen, f"{name}:{node}", f, met[node], symptom=name, cuda_error=cuda))
    done: set[tuple[str, str]] = set()
    for version, v in _versions(by_kind):
        if v.node in nodes and (v.node, version) not in done:
            done.add((v.node, version))
            out.append(_made(NcclVersionSeen, f"{v.node}:{version}", v, [v], version=version))
    framed: set[tuple[str, str]] = set()
    for entry in live:
        for name in entry.symptoms if entry.located_by else ():
            for f in seen[name]:
                hit = next((fr for fr in _frames(f) if fr in entry.located_by), None)
                if hit is not None and (f.node, hit) not in framed:
                    framed.add((f.node, hit))
                    out.append(_made(NcclSymptomFrame, f"{f.node}:{hit}", f, [f], frame=hit, symptom=name))
    lines = _knowledge.entry_lines("nccl_known_issues.yaml", "- id: ")
    for entry in live:
        ev = Evidence(path=PATH, line=lines.get(entry.id, 1), text=f"{entry.id}: {entry.title}"[:400])
        names = _ordered(entry)
        out.append(NcclKnownIssueEntry(
            id=f"catalogue:nccl_known_issue:{entry.id}", node="", evidence=ev, issue=entry.id, title=entry.title,
            # an open bug (no fixed_in) reads "fixed in no release up to <the last one checked>" in the finding
            fixed_in=entry.fixed_in or f"no release up to {entry.affected.max}", workaround=entry.workaround, source=entry.source,
            affected_min=entry.affected.min, affected_max=entry.affected.max, symptoms=len(names),
            symptom_1=names[0], symptom_2=names[1] if len(names) > 1 else None, located=bool(entry.located_by)))
        for frame, rng in (entry.located_by or {}).items():
            version = rng.min if rng.min == rng.max else f"{rng.min}-{rng.max}"
            out.append(NcclKnownIssueFrame(
                id=f"catalogue:nccl_known_issue:{entry.id}:{frame}", node="", evidence=ev, issue=entry.id, frame=frame,
                version=f"{version} (from the frame {frame}; the log prints no version)",
                version_min=rng.min, version_max=rng.max))
    return out

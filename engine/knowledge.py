"""The project's vocabulary read from ``knowledge/``: causes, components, actions."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from stethoscope.facts import knowledge


@dataclass(frozen=True)
class Vocabulary:
    components: dict[str, str]
    causes: dict[str, str]
    severities: tuple[str, ...]
    actions: dict[str, str]


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    tax = knowledge.load("taxonomy.yaml")
    return Vocabulary(
        components=dict(tax.components),
        causes=dict(tax.causes),
        severities=tuple(tax.severities),
        actions=dict(knowledge.load("actions.yaml").actions),
    )


POLARITIES = ("error", "warning", "state", "info")


@dataclass(frozen=True)
class Polarity:
    """What a fact kind means for the verdict (knowledge/fact_polarity.yaml)."""

    polarity: str
    component: str | None = None
    unread_reason: str | None = None
    #: a line that may only echo a failure its file already reports (fact_polarity.yaml)
    echo: bool = False


@lru_cache(maxsize=1)
def load_polarity() -> dict[str, Polarity]:
    """kind -> its declared polarity; checked against the vocabulary by tests/test_polarity.py."""
    raw = knowledge.load("fact_polarity.yaml").kinds
    return {k: Polarity(polarity=v.polarity, component=v.component, unread_reason=v.unread_reason, echo=v.echo)
            for k, v in raw.items()}


@dataclass(frozen=True)
class ArtefactCoverage:
    """What one artefact kind checks (knowledge/coverage.yaml)."""

    component: str
    covers: tuple[str, ...] = ()
    document: bool = False
    #: a log other programs write into: a failure line its readers did not cite is still read
    log: bool = False
    #: a listing of states whose rows rules judge (a pod's CrashLoopBackOff, a DaemonSet short of ready pods): it checks
    #: nothing of a GPU, but recognised with no row read it is no evidence of health, as a log (knowledge/coverage.yaml)
    listing: bool = False
    #: fact kinds that alone check nothing (a kernel log's boot banner): a file whose reader made
    #: only these was not read for what the kind covers
    context: tuple[str, ...] = ()
    #: fact kind -> (the components a fact of it checks, or the fact's field that names one,
    #: {field: values that make the fact check nothing}); empty: every file read checks ``covers``
    checks: dict = field(default_factory=dict, compare=False)

    def shown(self, facts, folded_kinds=()) -> list[str]:
        """The components that ``facts`` (and readings folded unbuilt, by kind) of one file show
        it checked: ``covers`` when the kind declares no ``checks``."""
        if not self.checks:
            return list(self.covers)
        out: set[str] = set()
        for kind in folded_kinds:
            out.update(self.checks.get(kind, ((),))[0])
        for f in facts:
            comps, name, unless = self.checks.get(f.kind, ((), None, None))
            if unless and any(getattr(f, k, None) in vs for k, vs in unless.items()):
                continue
            out.update(comps)
            if name:
                out.add(getattr(f, name, None))
        return [c for c in self.covers if c in out]


def _checks(raw: dict) -> dict:
    return {k: (tuple(v), None, {}) if isinstance(v, list) else (tuple(v.components), v.field, v.unless)
            for k, v in raw.items()}


@lru_cache(maxsize=1)
def load_coverage() -> dict[str, ArtefactCoverage]:
    raw = knowledge.load("coverage.yaml").kinds
    return {k: ArtefactCoverage(component=v.component, covers=tuple(v.covers), document=v.document, log=v.log, listing=v.listing,
                                 context=tuple(v.context), checks=_checks(v.checks)) for k, v in raw.items()}


@dataclass(frozen=True)
class VerdictPolicy:
    """What a healthy verdict needs (knowledge/coverage.yaml): one checked component among
    ``healthy_needs_any``; an unrecognised file naming none of ``diagnostic_terms`` (and with no
    error-worded line) holds nothing a diagnosis could use."""

    healthy_needs_any: tuple[str, ...]
    diagnostic_terms: tuple[str, ...]
    no_verdict_causes: tuple[str, ...] = ()
    #: rules whose finding says steth could not judge what it read (the verdict is then inconclusive)
    unjudged_rules: tuple[str, ...] = ()

    @property
    def terms_re(self):
        return _terms_re(self.diagnostic_terms)


@lru_cache(maxsize=4)
def _terms_re(terms: tuple[str, ...]):
    import re

    return re.compile(r"\b(?:" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + ")",
                      re.IGNORECASE)


@lru_cache(maxsize=1)
def load_verdict_policy() -> VerdictPolicy:
    raw = knowledge.load("coverage.yaml")
    return VerdictPolicy(healthy_needs_any=tuple(raw.healthy_needs_any), diagnostic_terms=tuple(raw.diagnostic_terms),
                         no_verdict_causes=tuple(raw.no_verdict_causes), unjudged_rules=tuple(raw.unjudged_rules))

"""The project's vocabulary read from ``knowledge/``: causes, components, actions."""
from __future__ import annotations

import re
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
    #: what coverage says of a file of this kind, which checks nothing (another vendor's tool: out of scope)
    note: str | None = None
    #: with ``note``: what the file showed, from its reader's facts' fields ("{vendor}'s {tool}": AMD's amd-smi)
    named: str | None = None
    #: fact kinds that alone check nothing (a kernel log's boot banner): a file whose reader made
    #: only these was not read for what the kind covers
    context: tuple[str, ...] = ()
    #: fact kind -> (the components a fact of it checks, or the fact's field that names one,
    #: {field: values that make the fact check nothing}); empty: every file read checks ``covers``
    checks: dict = field(default_factory=dict, compare=False)
    #: with ``checks``: what a fact of a kind it does not name (nor ``context``) checks (an NCCL log's every other line: NCCL)
    others: tuple[str, ...] = ()

    def names(self, facts) -> str | None:
        """What ``facts`` (one reader's, of one file) show, by ``named`` ("AMD's amd-smi, Cambricon's cnmon"): each
        fact that has every field the template names, once; None without ``named`` or such a fact."""
        if not self.named:
            return None
        fields = re.findall(r"\{(\w+)\}", self.named)
        got = [self.named.format(**{k: getattr(f, k) for k in fields}) for f in facts
               if all(getattr(f, k, None) is not None for k in fields)]
        return ", ".join(dict.fromkeys(got)) or None

    def _of(self, kind: str) -> tuple:
        got = self.checks.get(kind)
        if got is None:
            return (self.others, None, None) if self.others and kind not in self.context else ((), None, None)
        return got

    def readings(self, facts, folded=()) -> dict[str, dict[str, list]]:
        """component -> {fact kind: [first line, its text, how many]}: the readings of one file that
        checked each component (``folded``: (kind, [id, evidence, count]) of the readings folded unbuilt):
        with ``checks``, what each fact's kind checks there, unless one of its fields has a listed value,
        and the component its ``field`` names; else ``covers``, by every fact not of ``context``. The file's
        components checked are their keys (engine/parse_pool.py); a report names the readings behind them."""
        out: dict[str, dict[str, list]] = {}
        covers = set(self.covers)

        def note(comps, kind, line, text, n):
            for c in comps:
                if c in covers:
                    add_reading(out.setdefault(c, {}), kind, line, text, n)
        for kind, slot in folded:  # [id, evidence, count] (and a summary's values)
            if kind not in self.context:
                ev = slot[1]
                note(self._of(kind)[0] if self.checks else self.covers, kind, ev["line"], ev["text"], slot[2])
        for f in facts:
            if not self.checks:
                if f.kind in self.context:
                    continue
                note(self.covers, f.kind, f.evidence.line, f.evidence.text, 1)
                continue
            comps, name, unless = self._of(f.kind)
            if unless and any(getattr(f, k, None) in vs for k, vs in unless.items()):
                continue
            note(tuple(comps) + ((getattr(f, name, None),) if name else ()), f.kind, f.evidence.line, f.evidence.text, 1)
        return out


def add_reading(into: dict[str, list], kind: str, line: int, text: str, n: int) -> None:
    """Count ``n`` readings of ``kind`` into ``into`` (fact kind -> [first line, its text, how many]), the first line kept."""
    slot = into.get(kind)
    if slot is None:
        into[kind] = [line, text, n]
    else:
        slot[2] += n
        if line < slot[0]:
            slot[0], slot[1] = line, text


def _checks(raw: dict) -> dict:
    return {k: (tuple(v), None, {}) if isinstance(v, list) else (tuple(v.components), v.field, v.unless)
            for k, v in raw.items()}


@lru_cache(maxsize=1)
def load_coverage() -> dict[str, ArtefactCoverage]:
    raw = knowledge.load("coverage.yaml").kinds
    return {k: ArtefactCoverage(component=v.component, covers=tuple(v.covers), document=v.document, log=v.log, listing=v.listing,
                                 note=v.note, named=v.named, context=tuple(v.context), checks=_checks(v.checks), others=tuple(v.checks_others))
            for k, v in raw.items()}


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

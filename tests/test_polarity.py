"""Every fact kind declares its polarity (knowledge/fact_polarity.yaml), and every error kind is read."""
import importlib
import pkgutil

import pytest

from stethoscope.engine.knowledge import POLARITIES, load_polarity, load_vocabulary
from stethoscope.facts.model import FACT_KINDS


def _import_every_fact_module():
    import stethoscope.engine as engine
    import stethoscope.facts as facts
    import stethoscope.facts.live as live
    import stethoscope.facts.parsers as parsers

    for pkg in (facts, parsers, live, engine):
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{info.name}")


_import_every_fact_module()
POL = load_polarity()


def test_every_fact_kind_declares_its_polarity():
    missing = sorted(set(FACT_KINDS) - set(POL))
    assert not missing, f"add these kinds to knowledge/fact_polarity.yaml: {missing}"
    unknown = sorted(set(POL) - set(FACT_KINDS))
    assert not unknown, f"knowledge/fact_polarity.yaml names kinds that do not exist: {unknown}"


@pytest.mark.parametrize("kind", sorted(POL))
def test_polarity_is_valid(kind):
    p = POL[kind]
    assert p.polarity in POLARITIES
    if p.polarity in ("error", "warning"):
        assert p.component in load_vocabulary().components, f"{kind}: an error or warning kind needs a component"


def test_every_error_kind_is_read_by_a_rule_or_says_why(ruleset):
    read: set[str] = set()
    for crule in ruleset.rules:
        when = crule.rule.when
        for pattern in list(when.all) + list(when.none):
            read.add(pattern.fact)
    unread = [k for k, p in POL.items() if p.polarity == "error" and k not in read and not p.unread_reason]
    assert not unread, f"error kinds no rule reads (write a rule, or give an unread_reason): {unread}"

"""Load rule files safely and reject what cannot work, naming file and line.

YAML is read with the safe loader (no tags, no code); the schema is pydantic; then every
fact kind and field a rule names must exist, every cause, component and action must be in
the vocabulary, and ``none:`` may only name observed kinds, or a derived kind whose deriving
rules match only observed kinds other than the naming rule's (both evaluators derive it before
they assert that rule's facts: session._none_first, reference.run's strata).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from stethoscope.facts import registry, yamlio
from stethoscope.engine.ruleengine.compile import REF, SELF, CompileError, CompiledRule, Ref, compile_rule
from stethoscope.engine.knowledge import Vocabulary, load_vocabulary
from stethoscope.engine.ruleengine.derive import derived_inputs
from stethoscope.engine.ruleengine.schema import Rule
from stethoscope.facts.model import FACT_KINDS


class RuleError(ValueError):
    """One problem in one rule file: ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


def _line_of(text: str, loc: tuple[Any, ...]) -> int:
    """1-based line of the YAML node at ``loc`` (a pydantic error location) in a rule file's
    ``text``, best effort."""
    node = _nodes(text)
    line = node.start_mark.line + 1 if node is not None else 1
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = None
            for k, v in node.value:
                if k.value == key or (key == "as_" and k.value == "as") or (key == "assert_" and k.value == "assert"):
                    nxt = v
                    line = k.start_mark.line + 1
                    break
            if nxt is None:
                break
            node = nxt
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            break
    return line


@functools.lru_cache(maxsize=64)
def _nodes(text: str) -> yaml.Node | None:
    """The node tree of a rule file's text, parsed only to say on which line a problem is."""
    try:
        return yamlio.load_with_nodes(text)[1]
    except yaml.YAMLError:
        return None


def read_yaml(path: Path, label: str) -> tuple[Any, str]:
    """A rule (or rule test) file's data (the caller's own copy) and its text, for
    :func:`_line_of`. yamlio keeps each text's parse as JSON (in this process and in the user's
    cache): a start-up parses only the rule files that changed, and a process that loads the
    rules again (``steth watch``, each live diagnosis, the tests) decodes their JSON."""
    try:
        text = path.read_text(encoding="utf-8")
        data = yamlio.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise RuleError(label, (mark.line + 1) if mark else 1, f"invalid YAML: {exc.problem}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(label, 1, f"cannot read: {exc}") from None
    return data, text


def _column(field: Any) -> bool:
    """A field that holds a tuple (a summary fact's column, such as nccl_test_table's): not in any rule view."""
    return str(field.annotation).replace("typing.", "").startswith("tuple[")


def _check(rule: Rule, crule: CompiledRule, vocab: Vocabulary, derived_kinds: dict[str, set[str]], fail) -> None:
    aliases = {p.alias: p.kind for p in crule.all}

    def ref_ok(where: tuple[Any, ...], raw: str) -> bool:
        """A ``$alias.field`` must name a bound alias whose fact kind has that field."""
        m = REF.match(raw)
        if m is None:
            return False
        kind = aliases.get(m[1])
        if kind is None:
            fail(where, f"'{raw}' names alias '{m[1]}', which no 'all' pattern binds")
        elif kind in FACT_KINDS and m[2] not in FACT_KINDS[kind].model_fields:
            fail(where, f"'{raw}': fact '{kind}' has no field '{m[2]}'")
        return True

    if rule.then.finding is not None:
        spec = rule.then.finding
        ids = {"cause": vocab.causes, "component": vocab.components, "severity": vocab.severities}
        for key, known in ids.items():
            own = getattr(spec, key)
            value, where = (own, ("then", "finding", key)) if own is not None else (getattr(rule, key), (key,))
            if value is None:
                fail((key,), "a rule that makes a finding needs cause, component and severity (on the rule or in then.finding)")
            elif not ref_ok(where, value) and value not in known:
                hint = " (add it to knowledge/taxonomy.yaml)" if key == "cause" else ""
                fail(where, f"unknown {key} '{value}'{hint}")
        if isinstance(spec.actions, str):
            if not ref_ok(("then", "finding", "actions"), spec.actions):
                fail(("then", "finding", "actions"), "actions is a list of action ids or one '$alias.field'")
        else:
            for i, act in enumerate(spec.actions):
                if act not in vocab.actions:
                    fail(("then", "finding", "actions", i), f"unknown action '{act}' (see knowledge/actions.yaml)")
    for section, pats in (("all", crule.all), ("none", crule.none)):
        for i, p in enumerate(pats):
            if p.kind not in FACT_KINDS:
                fail(("when", section, i, "fact"), f"unknown fact kind '{p.kind}'")
                continue
            if section == "none" and p.kind in aliases.values():
                # durable-rules never takes a firing back: which of two facts of one kind came
                # first would decide the result. Aggregate first (a summary fact), then join it.
                fail(("when", section, i, "fact"), f"'none' may not name '{p.kind}', a kind this rule also matches under 'all'")
            if section == "none" and p.kind in derived_kinds and any(
                    k in derived_kinds or k in aliases.values() for k in derived_kinds[p.kind]):
                fail(("when", section, i, "fact"), f"'none' may not name the derived kind '{p.kind}': a rule deriving it matches "
                     "a derived kind or a kind this rule matches under 'all', so it may be derived after this rule fired")
            fields = FACT_KINDS[p.kind].model_fields
            for t in p.tests:
                if t.field not in fields or t.field == "evidence":
                    fail(("when", section, i, "match", t.field), f"fact '{p.kind}' has no field '{t.field}'")
                elif _column(fields[t.field]):
                    fail(("when", section, i, "match", t.field), f"'{p.kind}.{t.field}' is a column of a table (one value a row), "
                                                                 "which the rule engine does not see: match the row facts")
                if isinstance(t.value, Ref) and t.value.alias == SELF and (t.value.field not in fields or t.value.field == "evidence"):
                    fail(("when", section, i, "match", t.field), f"fact '{p.kind}' has no field '{t.value.field}' to compare with")
                if isinstance(t.value, Ref) and aliases.get(t.value.alias) in FACT_KINDS and t.value.field not in FACT_KINDS[aliases[t.value.alias]].model_fields:
                    fail(("when", section, i, "match", t.field), f"'{t.value.alias}' ({aliases[t.value.alias]}) has no field '{t.value.field}'")
    refs: list[tuple[tuple[Any, ...], str]] = []
    if rule.then.finding is not None:
        refs += [(("then", "finding", "evidence"), a) for a in rule.then.finding.evidence]
        for i, ref in enumerate(rule.then.finding.distinct_by):
            m = REF.match(ref)
            kind = aliases.get(m[1]) if m else None
            if not m or kind is None:
                fail(("then", "finding", "distinct_by", i), f"distinct_by '{ref}' must be $alias.field of a bound pattern")
            elif kind in FACT_KINDS and m[2] not in FACT_KINDS[kind].model_fields:
                fail(("then", "finding", "distinct_by", i), f"'{m[1]}' ({kind}) has no field '{m[2]}'")
    if rule.then.assert_ is not None:
        spec = rule.then.assert_
        refs += [(("then", "assert", "evidence"), a) for a in spec.evidence]
        if spec.kind not in FACT_KINDS:
            fail(("then", "assert", "kind"), f"unknown fact kind '{spec.kind}'")
        elif "sources" not in FACT_KINDS[spec.kind].model_fields:
            fail(("then", "assert", "kind"), f"'{spec.kind}' is not a derived fact kind (no 'sources' field)")
    for where, alias in refs:
        if alias not in aliases:
            fail(where, f"evidence names '{alias}', which no 'all' pattern binds")


@dataclass
class RuleSet:
    rules: list[CompiledRule]
    errors: list[RuleError]


def rules_root() -> Path:
    return Path(str(resources.files("stethoscope.rules")))


def load_rules(paths: Iterable[Path] | None = None, root: Path | None = None) -> RuleSet:
    """Load every ``*.yaml`` rule (default: the shipped rules). Bad files become errors.

    Every fact kind a rule may name is registered (registry.fact_kinds); the readers (~200 modules,
    ~1,300 regexes: ~0.5 CPU s) are not imported here but by what reads files (the pipeline, the
    parse pool, the classifier)."""
    registry.fact_kinds()
    vocab = load_vocabulary()
    root = root or rules_root()
    files = sorted(paths) if paths is not None else sorted(root.rglob("*.yaml"))
    parsed: list[tuple[Path, str, Rule, str]] = []
    errors: list[RuleError] = []
    for path in files:
        try:
            label = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        except ValueError:
            label = str(path)
        try:
            data, text = read_yaml(path, label)
        except RuleError as exc:
            errors.append(exc)
            continue
        try:
            rule = Rule.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = tuple(err["loc"])
                errors.append(RuleError(label, _line_of(text, loc), f"{'.'.join(map(str, loc)) or 'rule'}: {err['msg']}"))
            continue
        if rule.id != path.stem:
            errors.append(RuleError(label, _line_of(text, ("id",)), f"rule id '{rule.id}' must equal the file stem '{path.stem}'"))
            continue
        parsed.append((path, label, rule, text))
    derived_kinds = derived_inputs(r for _, _, r, _ in parsed)  # derived kind -> the kinds its deriving rules match
    out: list[CompiledRule] = []
    seen: dict[str, str] = {}
    for path, label, rule, text in parsed:
        problems: list[RuleError] = []

        def fail(loc: tuple[Any, ...], msg: str, _label=label, _text=text, _p=problems) -> None:
            _p.append(RuleError(_label, _line_of(_text, loc), msg))

        if rule.id in seen:
            fail(("id",), f"rule id '{rule.id}' already defined in {seen[rule.id]}")
        try:
            crule = compile_rule(rule, label)
        except CompileError as exc:
            fail(exc.where, str(exc))
            errors.extend(problems)
            continue
        _check(rule, crule, vocab, derived_kinds, fail)
        if problems:
            errors.extend(problems)
            continue
        seen[rule.id] = label
        out.append(crule)
    return RuleSet(out, errors)

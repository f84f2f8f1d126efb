"""Report rendering for people: a one-line verdict first, then the findings with evidence.

Log text is hostile: every string that came from the input is shown with its control
characters made visible (``\x1b[2J`` prints as the six characters ``\x1b[2J``, never clears a
terminal), markdown code blocks are fenced with more backticks than any run inside them, and a
bundle of 100,000 unreadable files is summarised per reason in the text report (the JSON lists
every one).
"""
from __future__ import annotations

import re
from collections import Counter

from rich.console import Console
from rich.markup import escape

from stethoscope.engine.report import Report

_SEV_STYLE = {"fatal": "bold red", "critical": "red", "warning": "yellow", "info": "cyan"}
_VERDICT_STYLE = {"healthy": "bold green", "faulty": "bold red", "inconclusive": "bold yellow"}
#: C0 controls but tab, DEL, C1 controls, and the line and paragraph separators
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
#: a coverage list longer than this is summarised per reason in the text report
LIST_LIMIT = 20
#: names shown per reason in a summarised list
NAMES_SHOWN = 5


def safe(text: str) -> str:
    """``text`` with every control character shown as ``\\xNN`` (or ``\\uNNNN``)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def _e(text: str) -> str:
    """Safe for the terminal: control characters visible, rich markup escaped."""
    return escape(safe(text))


def _fence(lines: list[str]) -> str:
    """A markdown code fence longer than any run of backticks in ``lines``."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def verdict_line(report: Report) -> str:
    n = len(report.findings)
    if report.verdict == "healthy":
        extra = f" ({n} informational finding{'s' if n != 1 else ''})" if n else ""
        checked = ", ".join(c.component for c in report.checked)
        return (f"HEALTHY: no fault found in {len(report.coverage.files)} file(s) from {len(report.nodes)} node(s){extra}"
                + (f"; checked: {checked}" if checked else ""))
    if report.verdict == "inconclusive":
        return f"INCONCLUSIVE: {report.reason or 'nothing in the input could be read as GPU, NCCL or kernel evidence'}"
    top = report.findings[0]
    return f"FAULTY: {top.summary} [{top.cause}, {top.severity}, confidence {top.confidence:.2f}]"


def render_text(report: Report, console: Console) -> None:
    console.print(f"[{_VERDICT_STYLE[report.verdict]}]{_e(verdict_line(report))}[/]")
    if report.verdict == "healthy" and report.reason:  # what it rests on: each checked component's readings
        for part in report.reason.split(": ", 1)[-1].split(" | "):
            console.print(f"   {_e(part)}", soft_wrap=True)
    for f in report.findings:
        console.print()
        role = {"root_cause": "ROOT CAUSE", "cascade": "CASCADE", "independent": ""}[f.role]
        head = f"#{f.rank} [{_SEV_STYLE[f.severity]}]{f.severity.upper()}[/] {_e(f.title)}"
        console.print(head + (f"  [bold]{role}[/]" if role else ""))
        console.print(f"   where: {_e(f.entity.label)}   cause: {f.cause} ({f.component})   confidence: {f.confidence:.2f}")
        console.print(f"   {_e(f.summary)}")
        if f.explained_by:
            console.print(f"   explained by finding(s) {', '.join('#%d' % r for r in f.explained_by)}")
        if f.explains:
            console.print(f"   explains finding(s) {', '.join('#%d' % r for r in f.explains)}")
        if len(f.nodes) > 1:
            console.print(f"   seen on {len(f.nodes)} nodes ({f.occurrences} occurrences): {_e(', '.join(f.nodes[:10]))}{' ...' if len(f.nodes) > 10 else ''}")
        if len(f.ranks) > 1:
            console.print(f"   logged by {len(f.ranks)} ranks: {', '.join(map(str, f.ranks[:32]))}{' ...' if len(f.ranks) > 32 else ''}")
        console.print("   evidence:")
        for e in f.evidence:
            console.print(f"     {_e(e.path)}:{e.line}: [dim]{_e(e.text.strip())}[/]", soft_wrap=True)
        if f.evidence_total > len(f.evidence):
            console.print(f"     ... and {f.evidence_total - len(f.evidence)} more line(s)")
        console.print(f"   do: {_e(f.action_text)}")
        if f.kb:
            console.print(f"   past cases: {_e(', '.join(f.kb))} (steth kb show ID)")
    if report.not_checked:
        console.print()
    for nc in report.not_checked:
        console.print(f"[yellow]not checked: {_e(nc.missing)}[/]")
    cov = report.coverage
    console.print()
    console.print(
        f"[dim]read {len(cov.files)} file(s), {report.facts} fact(s); "
        f"unrecognised {len(cov.unrecognised)}, skipped {len(cov.skipped)}, parse errors {len(cov.errors)}[/]"
    )
    _listing(console, "dim", "unrecognised", [(name, "") for name in cov.unrecognised])
    _listing(console, "dim", "skipped", [(s.path, s.reason) for s in cov.skipped])
    _listing(console, "yellow", "parse error", [(f"{e.path}:{e.line}", e.message) for e in cov.errors], by_reason=False)
    _listing(console, "yellow", "limit", [(f"{h.path}:{h.line}" if h.line else h.path, h.detail) for h in cov.limits])


def _listing(console: Console, style: str, what: str, items: list[tuple[str, str]], by_reason: bool = True) -> None:
    """One line per item; past LIST_LIMIT items, a count per reason and its first few names
    (parse errors: the first LIST_LIMIT and a count)."""
    if len(items) <= LIST_LIMIT:
        for name, reason in items:
            console.print(f"[{style}]  {what}: {_e(name)}" + (f" ({_e(reason)})" if reason and by_reason else
                                                           f": {_e(reason)}" if reason else "") + "[/]")
        return
    if not by_reason:
        for name, reason in items[:LIST_LIMIT]:
            console.print(f"[{style}]  {what}: {_e(name)}: {_e(reason)}[/]")
        console.print(f"[{style}]  ... and {len(items) - LIST_LIMIT:,} more {what}s (all of them in --format json)[/]")
        return
    reasons = Counter(reason for _, reason in items)
    console.print(f"[{style}]  {what}: {len(items):,} files (every one in --format json)[/]")
    for reason, n in reasons.most_common():
        names = [name for name, r in items if r == reason][:NAMES_SHOWN]
        more = f", ... {n - len(names):,} more" if n > len(names) else ""
        console.print(f"[{style}]    {n:,} x {_e(reason or what)}: {_e(', '.join(names))}{more}[/]")


def render_markdown(report: Report) -> str:
    out = [f"# steth diagnosis: {report.verdict}", "", f"**{safe(verdict_line(report))}**", ""]
    for f in report.findings:
        out += [f"## #{f.rank} {f.severity.upper()}: {f.title} ({f.role})", "",
                f"- where: {safe(f.entity.label)}", f"- cause: `{f.cause}` ({f.component}), confidence {f.confidence:.2f}",
                f"- {safe(f.summary)}", f"- do: {f.action_text}"] + ([f"- past cases: {', '.join(f.kb)}"] if f.kb else [])
        quoted = [safe(f"{e.path}:{e.line}: {e.text}") for e in f.evidence]
        fence = _fence(quoted)
        out += ["", fence, *quoted, fence, ""]
    if report.not_checked:
        out += ["## Not checked", ""] + [f"- {nc.missing} ({nc.question})" for nc in report.not_checked] + [""]
    out += ["## Coverage", ""] + [f"- {_md(c.path)}: {c.kind}, {c.facts} facts, {c.skipped_lines} lines skipped" for c in report.coverage.files]
    out += [f"- unrecognised: {_md(u)}" for u in report.coverage.unrecognised]
    out += [f"- skipped: {_md(sk.path)}: {safe(sk.reason)}" for sk in report.coverage.skipped]
    out += [f"- nothing a diagnosis could use: {_md(u.path)}: {safe(u.reason)}" for u in report.coverage.uninformative]
    out += [f"- parse error: {_md(f'{e.path}:{e.line}: {e.message}')}" for e in report.coverage.errors]
    out += [f"- limit: {_md(f'{h.path}:{h.line}: {h.detail}')}" for h in report.coverage.limits]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    """Inline markdown code of a name or message from the input (backticks fenced, controls shown)."""
    text = safe(text)
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"

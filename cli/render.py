"""Report rendering for people: a one-line verdict first, then the findings with evidence."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from stethoscope.engine.report import Report

_SEV_STYLE = {"fatal": "bold red", "critical": "red", "warning": "yellow", "info": "cyan"}
_VERDICT_STYLE = {"healthy": "bold green", "faulty": "bold red", "inconclusive": "bold yellow"}


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
    console.print(f"[{_VERDICT_STYLE[report.verdict]}]{escape(verdict_line(report))}[/]")
    for f in report.findings:
        console.print()
        role = {"root_cause": "ROOT CAUSE", "cascade": "CASCADE", "independent": ""}[f.role]
        head = f"#{f.rank} [{_SEV_STYLE[f.severity]}]{f.severity.upper()}[/] {escape(f.title)}"
        console.print(head + (f"  [bold]{role}[/]" if role else ""))
        console.print(f"   where: {escape(f.entity.label)}   cause: {f.cause} ({f.component})   confidence: {f.confidence:.2f}")
        console.print(f"   {escape(f.summary)}")
        if f.explained_by:
            console.print(f"   explained by finding(s) {', '.join('#%d' % r for r in f.explained_by)}")
        if f.explains:
            console.print(f"   explains finding(s) {', '.join('#%d' % r for r in f.explains)}")
        if len(f.nodes) > 1:
            console.print(f"   seen on {len(f.nodes)} nodes ({f.occurrences} occurrences): {escape(', '.join(f.nodes[:10]))}{' ...' if len(f.nodes) > 10 else ''}")
        if len(f.ranks) > 1:
            console.print(f"   logged by {len(f.ranks)} ranks: {', '.join(map(str, f.ranks[:32]))}{' ...' if len(f.ranks) > 32 else ''}")
        console.print("   evidence:")
        for e in f.evidence:
            console.print(f"     {escape(e.path)}:{e.line}: [dim]{escape(e.text.strip())}[/]", soft_wrap=True)
        if f.evidence_total > len(f.evidence):
            console.print(f"     ... and {f.evidence_total - len(f.evidence)} more line(s)")
        console.print(f"   do: {escape(f.action_text)}")
        if f.kb:
            console.print(f"   past cases: {escape(', '.join(f.kb))} (steth kb show ID)")
    if report.not_checked:
        console.print()
    for nc in report.not_checked:
        console.print(f"[yellow]not checked: {escape(nc.missing)}[/]")
    cov = report.coverage
    console.print()
    console.print(
        f"[dim]read {len(cov.files)} file(s), {report.facts} fact(s); "
        f"unrecognised {len(cov.unrecognised)}, skipped {len(cov.skipped)}, parse errors {len(cov.errors)}[/]"
    )
    for name in cov.unrecognised:
        console.print(f"[dim]  unrecognised: {escape(name)}[/]")
    for s in cov.skipped:
        console.print(f"[dim]  skipped: {escape(s.path)} ({escape(s.reason)})[/]")
    for e in cov.errors:
        console.print(f"[yellow]  parse error: {escape(e.path)}:{e.line}: {escape(e.message)}[/]")


def render_markdown(report: Report) -> str:
    out = [f"# steth diagnosis: {report.verdict}", "", f"**{verdict_line(report)}**", ""]
    for f in report.findings:
        out += [f"## #{f.rank} {f.severity.upper()}: {f.title} ({f.role})", "",
                f"- where: {f.entity.label}", f"- cause: `{f.cause}` ({f.component}), confidence {f.confidence:.2f}",
                f"- {f.summary}", f"- do: {f.action_text}"] + ([f"- past cases: {', '.join(f.kb)}"] if f.kb else []) + ["", "```"]
        out += [f"{e.path}:{e.line}: {e.text}" for e in f.evidence]
        out += ["```", ""]
    if report.not_checked:
        out += ["## Not checked", ""] + [f"- {nc.missing} ({nc.question})" for nc in report.not_checked] + [""]
    out += ["## Coverage", ""] + [f"- {c.path}: {c.kind}, {c.facts} facts, {c.skipped_lines} lines skipped" for c in report.coverage.files]
    out += [f"- unrecognised: {u}" for u in report.coverage.unrecognised]
    out += [f"- parse error: {e.path}:{e.line}: {e.message}" for e in report.coverage.errors]
    return "\n".join(out) + "\n"

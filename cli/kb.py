"""``steth kb``: search, show and add cases of the incident knowledge base (knowledge/cases)."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Annotated, Optional

import typer
import yaml
from rich.console import Console
from rich.markup import escape

from stethoscope.cli.exits import BAD_USAGE, say

kb_app = typer.Typer(help="Knowledge base of past incidents: search, show, add.", no_args_is_help=True)
out = Console(highlight=False, emoji=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)


def _fail(message: str, code: int = BAD_USAGE) -> None:
    say(f"kb: {message}")
    raise typer.Exit(code)


@kb_app.command("search")
def kb_search(
    text: Annotated[list[str], typer.Argument(help="Words to look for (symptom, Xid, cause, component ...)")],
    limit: Annotated[int, typer.Option(help="At most this many cases")] = 10,
) -> None:
    """Cases ranked by how well they match TEXT. Exit 1 when nothing matches."""
    from stethoscope.engine.catalogues import kb

    hits = kb.search(" ".join(text), limit)
    for score, case in hits:
        out.print(f"{case.ref:36} {score:4.1f}  {escape(case.title)}")
    if not hits:
        err.print("no case matches")
        raise typer.Exit(1)


@kb_app.command("show")
def kb_show(case_id: Annotated[str, typer.Argument(help="Case id, with or without 'kb/'")]) -> None:
    """Print one case."""
    from stethoscope.engine.catalogues import kb

    case = kb.get(case_id)
    if case is None:
        _fail(f"no case '{case_id}' (try: steth kb search WORDS)", 1)
    out.print(f"[bold]{case.ref}: {escape(case.title)}[/]")
    out.print(f"symptom: {escape(case.symptom)}")
    out.print(f"signature: causes {', '.join(case.signature.causes)}"
              + (f"; rules {', '.join(case.signature.rules)}" if case.signature.rules else ""))
    for m in case.signature.match:
        out.print(f"  match: {escape(m.fact)} {escape(str(dict(m.match)))}")
    for f in case.signature.facts:
        out.print(f"  fact: {escape(f)}")
    out.print("investigation:")
    for i, step in enumerate(case.investigation, 1):
        out.print(f"  {i}. {escape(step)}")
    out.print(f"root cause: {escape(case.root_cause)}")
    out.print("fix:")
    for step in case.fix:
        out.print(f"  - {escape(step)}")
    out.print("references:")
    for r in case.references:
        out.print(f"  - {escape(r)}")


def _check_file(path: Path) -> None:
    from stethoscope.engine.catalogues import kb

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        _fail(f"{path}: cannot read: {exc}")
    case = kb.validate_case(data, str(path), path.stem)
    if kb.get(case.id) is not None and kb.cases_root() / path.name != path.resolve():
        raise kb.CaseError(f"{path}: id '{case.id}' already exists in knowledge/cases")


@kb_app.command("check")
def kb_check(files: Annotated[list[Path], typer.Argument(help="Case files to validate")]) -> None:
    """Validate case files (schema, vocabulary, nothing left TODO). Exit 1 on any problem."""
    from stethoscope.engine.catalogues.kb import CaseError

    bad = 0
    for f in files:
        try:
            _check_file(f)
            out.print(f"{f}: ok")
        except CaseError as exc:
            err.print(escape(str(exc)))
            bad += 1
    raise typer.Exit(1 if bad else 0)


@kb_app.command("add")
def kb_add(
    from_report: Annotated[Path, typer.Option("--from-report", help="Report JSON from 'steth diagnose -f json'")],
    rank: Annotated[int, typer.Option(help="Which finding of the report the case is about")] = 1,
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Where to write the draft (default: ./<id>.yaml)")] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the draft in $EDITOR, then validate it")] = False,
) -> None:
    """Prefill a new case from a diagnosis; complete the TODO fields, then it is validated.

    Exit 0 when the case validates, 1 when fields are still to complete (the draft is kept:
    edit it and run 'steth kb check FILE', then copy it to knowledge/cases/)."""
    from stethoscope.engine.catalogues import kb

    try:
        report = json.loads(from_report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _fail(f"{from_report}: not a readable report JSON: {exc}")
    try:
        draft = kb.draft_from_report(report, rank)
    except (kb.CaseError, KeyError, TypeError) as exc:
        _fail(f"{from_report}: {exc}")
    path = out_path or Path(f"{draft['id']}.yaml")
    draft["id"] = path.stem  # a case's id is its file name
    if path.exists():
        _fail(f"{path} exists: give --out")
    try:
        path.write_text("# Draft case from a steth diagnosis: complete every TODO, then: steth kb check " + path.name + "\n"
                        + yaml.safe_dump(draft, sort_keys=False, width=110, allow_unicode=True), encoding="utf-8")
    except OSError as exc:
        _fail(f"{path}: cannot write: {exc.strerror or exc}")
    out.print(f"wrote {path}")
    if edit:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        subprocess.run([*shlex.split(editor), str(path)], check=False)
    try:
        _check_file(path)
    except kb.CaseError as exc:
        err.print(escape(str(exc)))
        raise typer.Exit(1)
    out.print(f"{path}: valid; copy it to knowledge/cases/ to share it")

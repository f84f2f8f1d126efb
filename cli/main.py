"""The ``steth`` command: a thin typer layer over plain functions of engine/ and facts/.

Exit codes of every command (cli/exits.py, README "Exit codes"): 0 healthy, 1 faulty,
2 inconclusive, 3 bad usage or unreadable input, 4 internal error.
"""
from __future__ import annotations

import gc
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from stethoscope.cli import exits, live as _live
from stethoscope.cli.exits import BAD_USAGE, VERDICT, StethGroup, bad_usage, hold, internal, leave, say

app = typer.Typer(help="gpu-stethoscope: diagnose GPU training clusters from their logs.", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, cls=StethGroup)
rules_app = typer.Typer(help="Check and test YAML rules.", no_args_is_help=True)
schema_app = typer.Typer(help="Print JSON Schemas of the project's formats.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")
app.add_typer(schema_app, name="schema")
from stethoscope.cli.topology import topology_app  # noqa: E402
app.add_typer(topology_app, name="topology")
_live.register(app, rules_app)  # watch, calibrate, rules export
from stethoscope.cli.baseline import app as baseline_app  # noqa: E402
app.add_typer(baseline_app, name="baseline")
from stethoscope.cli.kb import kb_app  # noqa: E402
app.add_typer(kb_app, name="kb")
from stethoscope.cli.collect import collect_command  # noqa: E402
app.command("collect")(collect_command)
from stethoscope.cli.plan import plan_command  # noqa: E402
app.command("plan")(plan_command)
from stethoscope.cli.patrol import app as patrol_app  # noqa: E402
app.add_typer(patrol_app, name="patrol")

EXIT = VERDICT
EXIT_BAD_INPUT = BAD_USAGE
# emoji off: a log line such as "vm:100:200 [0] NCCL ..." must not become "vm💯200"
err = Console(stderr=True, emoji=False)


class Format(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


class EvaluatorChoice(str, Enum):
    durable = "durable"
    reference = "reference"


_fail = bad_usage


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"steth {version('gpu-stethoscope')}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_show_version, help="Print the version and exit")] = False,
) -> None:
    """gpu-stethoscope: diagnose GPU training clusters from their logs."""


@app.command()
@_live.with_access  # --ca-file, --bearer-token-file, --selector, --node-label, ... (cli/live.py)
def diagnose(
    from_logs: Annotated[Optional[Path], typer.Option("--from-logs", help="Incident bundle: a folder, .tar, .tar.gz/.tgz or .zip, one file, or - for standard input (a paste or an archive piped in)")] = None,
    format: Annotated[Format, typer.Option("--format", "-f", help="Report format")] = Format.text,
    evaluator: Annotated[EvaluatorChoice, typer.Option(help="Rule evaluator (reference = plain Python, for cross-checks)")] = EvaluatorChoice.durable,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes that parse files (default: every CPU for a large bundle, else 1; env STETH_JOBS)")] = None,
    prometheus: Annotated[Optional[str], typer.Option("--prometheus", help="Diagnose live from this Prometheus (DCGM exporter, node_exporter)")] = None,
    at: Annotated[Optional[str], typer.Option(help="With --prometheus: end of the window (Unix seconds or RFC 3339; default now)")] = None,
    window: Annotated[str, typer.Option(help="With --prometheus: how far back to look")] = "1h",
    timeout: Annotated[float, typer.Option(help="With --prometheus: seconds per query, however slowly the server answers")] = 10.0,
    run_timeout: Annotated[float, typer.Option("--run-timeout", help="With --prometheus: seconds for all the queries of the run")] = 120.0,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Compare nccl-tests results with this recorded baseline (steth baseline record) instead of the expected figures")] = None,
    baseline_db: Annotated[Optional[Path], typer.Option("--baseline-db", help="Baseline database (default: $STETH_BASELINE_DB, else the user's data directory)")] = None,
    max_memory: Annotated[str, typer.Option("--max-memory", help="Memory budget of the whole diagnosis, parse workers included (e.g. 1G, 800M, 2GiB): large files are read in windows, fewer workers run; with --prometheus, what one answer and a run's answers may hold")] = "1G",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display on standard error (shown only on a terminal, for runs longer than about 2 s)")] = False,
    access=None,
) -> None:
    """Diagnose an incident bundle or a live Prometheus. Exit 0 healthy, 1 faulty, 2 inconclusive, 3 bad input, 4 internal error."""
    from stethoscope.cli.progress import for_terminal
    from stethoscope.cli.render import render_markdown, render_text
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.facts.bundle import BundleError

    if (from_logs is None) == (prometheus is None):
        _fail("give exactly one of --from-logs BUNDLE or --prometheus URL")
    from stethoscope.facts.limits import MIN_MAX_MEMORY, Budget, parse_size

    try:
        budget = Budget(parse_size(max_memory))
    except ValueError:
        _fail(f"--max-memory: not a size: {max_memory!r} (examples: 1G, 800M, 2GiB)")
    if budget.max_memory < MIN_MAX_MEMORY:
        _fail(f"--max-memory: {max_memory} is below the {MIN_MAX_MEMORY >> 20} MiB a diagnosis needs")
    if access is not None and prometheus is None:
        _fail("the Prometheus access options (--ca-file, --bearer-token-file, --selector, ...) need --prometheus")
    if exits.one_shot():
        # the command is the process (cli/main.main): the collector stays off to its end, which frees nothing
        # (exits.leave). Each of its collections walked what the rules' loading and the diagnosis made (~0.06
        # CPU s of load_rules; a young collection once the diagnosis turned it back on, ~0.06-0.12 s at 1,024
        # bench nodes: the kinds' lists of ~434k facts); the reading collects its young objects itself
        # (pipeline.read_artefacts), its workers turn theirs on (parse_pool._init_worker)
        gc.disable()
    if from_logs is not None:  # the readers' RE2 set warmed over the bundle's first files while the rules load
        from stethoscope.engine.parse_pool import warm_up  # and the bundle is listed (engine/parse_pool.py)

        warm_up(from_logs)
    ruleset = load_rules()
    if ruleset.errors:
        internal(f"shipped rules do not load: {ruleset.errors[0]}")
    facts, recorded = [], None  # the observation's facts and baseline, for the HTML page's pictures
    if prometheus is not None:
        report = _live.diagnose_live(prometheus, at, window, timeout, ruleset, evaluator.value, run_timeout, access, budget)
    else:
        from stethoscope.engine.baselines import store as baseline_store
        from stethoscope.engine.pipeline import diagnose as run_pipeline, observe_bundle

        try:
            progress = for_terminal(quiet)
            try:
                if baseline is not None:
                    recorded = baseline_store.load(baseline_db or baseline_store.default_path(), baseline)
                # the facts no rule in use can bind are counted, not kept (engine/ruleengine/routing.py)
                obs = observe_bundle(from_logs, jobs, progress, ruleset, budget=budget)
                report = run_pipeline(obs, ruleset, evaluator.value, recorded, progress)
                facts = obs.facts
                hold(obs)  # freed with the process, not fact by fact (exits.hold)
            finally:
                progress.done()
        except (BundleError, baseline_store.StoreError) as exc:
            _fail(str(exc))
    if format is Format.html:
        from stethoscope.cli.render_html import render_html

        sys.stdout.write(render_html(report, facts, recorded))
    elif format is Format.json:
        sys.stdout.write(report.model_dump_json(indent=2, exclude_none=True) + "\n")
    elif format is Format.markdown:
        sys.stdout.write(render_markdown(report))
    else:
        # soft_wrap: the verdict and evidence lines stay whole lines, whatever the width
        render_text(report, Console(highlight=False, emoji=False, soft_wrap=True))
        _live.render_live_notes(report, Console(highlight=False, emoji=False, soft_wrap=True))
    raise typer.Exit(EXIT[report.verdict])


@rules_app.command("lint")
def rules_lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Rule files or folders (default: the shipped rules)")] = None,
) -> None:
    """Validate rule files: schema, fact kinds and fields, vocabulary. Exit 1 on any problem."""
    from stethoscope.engine.ruleengine.loader import load_rules

    files = _expand(paths, "*.yaml") if paths else None
    rs = load_rules(files)
    for e in rs.errors:
        err.print(escape(str(e)), highlight=False, soft_wrap=True)
    print(f"{len(rs.rules)} rule(s) valid, {len(rs.errors)} problem(s)")
    raise typer.Exit(1 if rs.errors else 0)


@rules_app.command("list")
def rules_list() -> None:
    """List the shipped rules."""
    from stethoscope.engine.ruleengine.loader import load_rules

    for r in load_rules().rules:
        if r.rule.then.assert_ is not None:
            what = f"(derives {r.rule.then.assert_.kind})"
        else:
            what = r.rule.cause or "(cause from the bound facts)"
        print(f"{r.id:45} {r.rule.severity or '-':9} {what}")


@rules_app.command("test")
def rules_test(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="*.test.yaml files or folders (default: tests/rules)")] = None,
    rule_files: Annotated[Optional[list[Path]], typer.Option("--rules", help="Extra rule files or folders to load besides the shipped ones")] = None,
) -> None:
    """Run YAML rule tests under both evaluators. Exit 1 if any case fails."""
    from stethoscope.engine.ruleengine.loader import RuleSet, load_rules
    from stethoscope.engine.ruletests import run_file

    files = _expand(paths or [Path("tests/rules")], "*.test.yaml")
    if not files:
        _fail("no *.test.yaml files found")
    rs = load_rules()
    if rule_files:
        extra = load_rules(_expand(rule_files, "*.yaml"))
        rs = RuleSet(rs.rules + extra.rules, rs.errors + extra.errors)
    for e in rs.errors:
        err.print(f"rule error: {escape(str(e))}", highlight=False, soft_wrap=True)
    passed = failed = 0
    for f in files:
        for res in run_file(f, rs):
            if res.ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {res.file} [{res.case}]: {res.message}")
    print(f"{passed} passed, {failed} failed")
    raise typer.Exit(1 if failed or rs.errors else 0)


@schema_app.command("report")
def schema_report() -> None:
    """Print the JSON Schema of the diagnosis report."""
    from stethoscope.engine.report import Report

    print(json.dumps(Report.model_json_schema(), indent=2))


@app.command("docs")
def docs(
    out: Annotated[Path, typer.Option("--out", help="Folder to write rules.md and facts.md into")] = Path("docs"),
    check: Annotated[bool, typer.Option("--check", help="Exit 1 if the files there are not up to date")] = False,
) -> None:
    """Generate the rule catalogue and the fact reference from what ships."""
    from stethoscope.engine.docs import generate
    from stethoscope.engine.ruleengine.loader import load_rules

    stale = []
    for name, text in generate(load_rules()).items():
        path = out / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            try:
                out.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                _fail(f"{path}: cannot write: {exc.strerror or exc}")
            print(f"wrote {path}")
    if stale:
        say(f"out of date: {', '.join(stale)} (run: steth docs --out {out})")
        raise typer.Exit(1)


def _expand(paths: list[Path], pattern: str) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(p.rglob(pattern)))
        elif p.exists():
            out.append(p)
        else:
            _fail(f"{p}: no such file or folder")
    return out


def main() -> None:
    """Entry point of ``steth``: the exit-code table is kept by StethGroup (cli/exits.py); the process
    ends there without the interpreter's teardown (exits.leave)."""
    exits._one_shot = True
    try:
        app()
    except SystemExit as exc:
        leave(exc)


if __name__ == "__main__":
    main()

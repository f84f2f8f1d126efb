"""CLI of the live side: ``steth watch``, ``steth calibrate``, ``steth rules export`` and the
``diagnose --prometheus`` branch. Thin: it parses options and calls engine functions."""
from __future__ import annotations

import functools
import inspect
import sys
import time
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from stethoscope.cli.exits import bad_usage, internal

err = Console(stderr=True, emoji=False)


_bad = bad_usage


def _duration(text: str, what: str) -> int:
    from stethoscope.engine.live.observe import parse_duration

    try:
        return parse_duration(text)
    except ValueError:
        _bad(f"{what}: not a duration: {text!r} (examples: 90s, 15m, 1h, 7d)")
    return 0


def _duration_text(text: str, what: str) -> str:
    """A duration as Prometheus writes one (``1m``), checked."""
    return f"{_duration(text, what)}s"


def _time(text: str | None) -> float:
    from stethoscope.engine.live.observe import parse_time

    try:
        return parse_time(text)
    except ValueError:
        _bad(f"--at: not a time: {text!r} (Unix seconds or 2024-04-05T21:30:00Z)")
    return 0.0


# --- production access (facts/live/access.py): the same options on diagnose, watch, calibrate ---
_PANEL = "Prometheus access"
_ACCESS_PARAMS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann, default=default)
    for name, ann, default in [
        ("ca_file", Annotated[Optional[Path], typer.Option("--ca-file", help="CA certificate(s) that sign the server's TLS certificate (default: the system's CAs)", rich_help_panel=_PANEL)], None),
        ("client_cert", Annotated[Optional[Path], typer.Option("--client-cert", help="Client certificate for mutual TLS (PEM; may hold the key too)", rich_help_panel=_PANEL)], None),
        ("client_key", Annotated[Optional[Path], typer.Option("--client-key", help="Private key of --client-cert", rich_help_panel=_PANEL)], None),
        ("insecure", Annotated[bool, typer.Option("--insecure", help="Do not verify the server's TLS certificate (warns: anyone on the path can read the credentials and forge answers)", rich_help_panel=_PANEL)], False),
        ("bearer_token_file", Annotated[Optional[Path], typer.Option("--bearer-token-file", help="File holding a bearer token (sent as Authorization: Bearer)", rich_help_panel=_PANEL)], None),
        ("bearer_token_env", Annotated[Optional[str], typer.Option("--bearer-token-env", metavar="VAR", help="Environment variable holding a bearer token (its name, not the token)", rich_help_panel=_PANEL)], None),
        ("basic_auth_user", Annotated[Optional[str], typer.Option("--basic-auth-user", help="Basic-auth user name", rich_help_panel=_PANEL)], None),
        ("basic_auth_password_file", Annotated[Optional[Path], typer.Option("--basic-auth-password-file", help="File holding the basic-auth password", rich_help_panel=_PANEL)], None),
        ("basic_auth_password_env", Annotated[Optional[str], typer.Option("--basic-auth-password-env", metavar="VAR", help="Environment variable holding the basic-auth password (its name)", rich_help_panel=_PANEL)], None),
        ("header", Annotated[Optional[list[str]], typer.Option("--header", metavar="'NAME: VALUE'", help="Extra HTTP header, repeatable (a tenant: 'X-Scope-OrgID: t1' for Mimir/Cortex, 'THANOS-TENANT: t1')", rich_help_panel=_PANEL)], None),
        ("selector", Annotated[Optional[str], typer.Option("--selector", help="Label matchers added to every query: '{cluster=\"a\"}', '{job=~\"dcgm.*\",env=\"prod\"}'", rich_help_panel=_PANEL)], None),
        ("node_label", Annotated[Optional[str], typer.Option("--node-label", help="Label that names the node, or a preference list (Hostname,instance); default: the first of node, kubernetes_node, Hostname, hostname, instance a series has", rich_help_panel=_PANEL)], None),
    ]
]
_ACCESS_NAMES = [p.name for p in _ACCESS_PARAMS]


def access_from_options(url: str | None, ca_file: Path | None = None, client_cert: Path | None = None,
                        client_key: Path | None = None, insecure: bool = False, bearer_token_file: Path | None = None,
                        bearer_token_env: str | None = None, basic_auth_user: str | None = None,
                        basic_auth_password_file: Path | None = None, basic_auth_password_env: str | None = None,
                        header: list[str] | None = None, selector: str | None = None, node_label: str | None = None):
    """The options as an :class:`Access` (bad ones: a one-line usage error); warns on
    ``--insecure`` and on credentials sent over plain http."""
    from stethoscope.facts.live import access as acc

    try:
        a = acc.Access(
            ca_file=str(ca_file) if ca_file else None, client_cert=str(client_cert) if client_cert else None,
            client_key=str(client_key) if client_key else None, insecure=insecure,
            bearer_token_file=str(bearer_token_file) if bearer_token_file else None, bearer_token_env=bearer_token_env,
            basic_user=basic_auth_user, basic_password_file=str(basic_auth_password_file) if basic_auth_password_file else None,
            basic_password_env=basic_auth_password_env, headers=tuple(acc.parse_header(h) for h in header or ()),
            selector=acc.parse_selector(selector) if selector is not None else (),
            node_labels=acc.parse_node_label(node_label) if node_label is not None else acc.DEFAULT_NODE_LABELS)
        a.check()
        a.session()  # reads the token/password now: a missing one is a usage error, not an inconclusive run
    except acc.AccessError as exc:
        _bad(str(exc))
    if url and insecure:
        from urllib3.exceptions import InsecureRequestWarning

        err.print(f"warning: --insecure: the TLS certificate of {escape(url)} is not verified; anyone on the path "
                  "can read the credentials and forge answers", highlight=False)
        warnings.filterwarnings("ignore", category=InsecureRequestWarning)  # said once above, not per request
    if url and url.startswith("http://") and (bearer_token_file or bearer_token_env or basic_auth_user):
        err.print(f"warning: credentials are sent in clear text to {escape(url)} (use https)", highlight=False)
    return a


def with_access(fn):
    """Add the access options to a command; it receives them as one ``access`` argument."""
    sig = inspect.signature(fn, eval_str=True)
    params = [p for p in sig.parameters.values() if p.name != "access"] + _ACCESS_PARAMS

    @functools.wraps(fn)
    def command(**kwargs):
        opts = {k: kwargs.pop(k) for k in _ACCESS_NAMES}
        given = any(v not in (None, False, []) for v in opts.values())
        kwargs["access"] = access_from_options(kwargs.get("prometheus"), **opts) if given else None
        return fn(**kwargs)

    command.__signature__ = sig.replace(parameters=params)
    command.__annotations__ = {**{p.name: p.annotation for p in params}, "return": sig.return_annotation}
    return command


def diagnose_live(url: str, at: str | None, window: str, timeout: float, ruleset, evaluator: str,
                  run_timeout: float | None = None, access=None, budget=None):
    """The report of ``diagnose --prometheus`` (called by cli/main.py); ``budget``: --max-memory."""
    from stethoscope.engine.live.observe import diagnose_prometheus

    return diagnose_prometheus(url, at=_time(at) if at else None, window_s=_duration(window, "--window"),
                               timeout=timeout, ruleset=ruleset, evaluator=evaluator, access=access,
                               **({} if run_timeout is None else {"run_timeout": run_timeout}),
                               **({} if budget is None else {"budget": budget}))


def render_live_notes(report, console: Console) -> None:
    """What a live report adds to the text: why it is inconclusive, which signals are missing."""
    if report.reason:
        from stethoscope.cli.render import safe  # a server's error text may hold control characters

        console.print(f"reason: {escape(safe(report.reason))}")
    if report.missing_signals:
        console.print(f"\nmissing signals ({len(report.missing_signals)}; a missing signal is not read as healthy):")
        for m in report.missing_signals:
            console.print(f"  {m.metric}: would show {escape(m.shows)}; {escape(m.enable)}")


@with_access
def watch(
    prometheus: Annotated[str, typer.Option("--prometheus", help="Prometheus base URL")],
    listen: Annotated[str, typer.Option(help="host:port to serve /metrics on")] = "127.0.0.1:9402",
    every: Annotated[str, typer.Option(help="Time between runs")] = "60s",
    window: Annotated[str, typer.Option(help="How far back each run looks")] = "1h",
    timeout: Annotated[float, typer.Option(help="Seconds per Prometheus query")] = 10.0,
    runs: Annotated[Optional[int], typer.Option(help="Stop after this many runs (default: run until stopped)")] = None,
    cycle_timeout: Annotated[Optional[str], typer.Option("--cycle-timeout", help="Deadline of each run's queries together; those still running then are cancelled (default: --every)")] = None,
    max_backoff: Annotated[str, typer.Option("--max-backoff", help="Longest extra wait between runs while the server is slow")] = "10m",
    access=None,
) -> None:
    """Re-diagnose on a schedule, one run at a time, each within a deadline, slower while the server is slow; expose one series per active finding and watch's own health on /metrics."""
    from stethoscope.engine.live.watch import Watcher

    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        _bad(f"--listen: expected host:port, got {listen!r}")
    w = Watcher(prometheus, _duration(window, "--window"), timeout, access=access,
                cycle_timeout=_duration(cycle_timeout, "--cycle-timeout") if cycle_timeout else None,
                max_backoff_s=_duration(max_backoff, "--max-backoff"))
    try:
        w.serve(host, int(port))
    except OSError as exc:
        _bad(f"--listen {listen}: cannot serve there: {exc.strerror or exc}")
    done = {"n": 0}

    def report(r) -> None:
        done["n"] += 1
        err.print(f"{time.strftime('%H:%M:%S')} {r.verdict}: {len(r.findings)} finding(s)"
                  + (f" ({escape(r.reason)})" if r.reason else ""), highlight=False)

    try:
        w.loop(_duration(every, "--every"), stop=lambda: runs is not None and done["n"] >= runs, on_report=report)
    except KeyboardInterrupt:
        pass


@with_access
def calibrate(
    prometheus: Annotated[str, typer.Option("--prometheus", help="Prometheus base URL")],
    window: Annotated[str, typer.Option(help="History to learn from")] = "7d",
    at: Annotated[Optional[str], typer.Option(help="End of the window (default now)")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds per Prometheus query")] = 30.0,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Thresholds file to write, for steth rules export --thresholds (default: standard output)")] = None,
    access=None,
) -> None:
    """Propose alert thresholds per GPU model from the fleet's observed range, leaving out GPUs with findings (YAML)."""
    from stethoscope.engine.live.calibrate import calibrate as run
    from stethoscope.engine.live.calibrate import dump
    from stethoscope.facts.live.prom import LiveError

    try:
        proposal = run(prometheus, _time(at), _duration(window, "--window"), timeout, access=access)
    except LiveError as exc:
        _bad(str(exc))
    if not proposal.models:
        _bad(f"no DCGM temperature or power series in the window at {prometheus}")
    text = dump(proposal)
    if output:
        try:
            output.write_text(text)
        except OSError as exc:
            _bad(f"{output}: cannot write: {exc.strerror or exc}")
        left_out = ", ".join(f"{e.node}/{e.gpu or '*'}" for e in proposal.excluded)
        err.print(f"wrote {output}" + (f"; left out (findings in the window): {left_out}" if left_out else ""), highlight=False)
    else:
        sys.stdout.write(text)


class ExportFormat(str, Enum):
    prometheus_rules = "prometheus-rules"
    alertmanager_inhibit = "alertmanager-inhibit"
    recording_rules = "recording-rules"


def rules_export(
    format: Annotated[ExportFormat, typer.Option("--format", help="prometheus-rules: the alert rule file; alertmanager-inhibit: the inhibit_rules that go with it")] = ExportFormat.prometheus_rules,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="File to write (default: standard output)")] = None,
    thresholds: Annotated[Optional[Path], typer.Option("--thresholds", help="Per-model thresholds written by steth calibrate -o FILE")] = None,
    runbook_base: Annotated[str, typer.Option("--runbook-base", envvar="STETH_RUNBOOK_BASE", help="URL the runbook_url annotations start with (where this repository's knowledge/ and rules/ are browsable); default: paths relative to it")] = "",
    node_label: Annotated[Optional[str], typer.Option("--node-label", help="alertmanager-inhibit: the labels that name the node on exporter series (default Hostname,hostname)")] = None,
    window: Annotated[str, typer.Option("--window", help="recording-rules: the window the screens cover (diagnose/watch with the same --window use them)")] = "1h",
    interval: Annotated[str, typer.Option("--interval", help="recording-rules: how often Prometheus evaluates them")] = "1m",
) -> None:
    """Export the rules that declare a PromQL form, the seed's alerts and the alerts on steth's own findings and health, as a Prometheus rule file (or the Alertmanager inhibition rules)."""
    from stethoscope.engine.live.calibrate import ThresholdsError, load_thresholds
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.engine.live.alert_rules import DEFAULT_NODE_LABELS, export, export_inhibit
    from stethoscope.facts.live.access import AccessError, parse_node_label

    rs = load_rules()
    if rs.errors:
        internal(f"shipped rules do not load: {rs.errors[0]}")
    if format is ExportFormat.recording_rules:
        from stethoscope.engine.live.recording import export_recording

        text = export_recording(rs, _duration(window, "--window"), _duration_text(interval, "--interval"))
    elif format is ExportFormat.alertmanager_inhibit:
        try:
            labels = parse_node_label(node_label) if node_label else DEFAULT_NODE_LABELS
        except AccessError as exc:
            _bad(str(exc))
        text = export_inhibit(rs, labels)
    else:
        try:
            th = load_thresholds(thresholds) if thresholds else None
        except ThresholdsError as exc:
            _bad(str(exc))
        text = export(rs, th, runbook_base)
    if output:
        try:
            output.write_text(text)
        except OSError as exc:
            _bad(f"{output}: cannot write: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)


dashboards_app = typer.Typer(help="Grafana dashboards for the live side (provisioning files: dashboards/provisioning).",
                             no_args_is_help=True)


@dashboards_app.command("export")
def dashboards_export(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the dashboard JSON files into (a Grafana file provider's path)")],
    node_label: Annotated[Optional[str], typer.Option("--node-label", help="Labels that name the node, most preferred first (default: node,kubernetes_node,Hostname,hostname,instance)")] = None,
) -> None:
    """Write the dashboards, with the node variable and per-node panels on the mapped node label."""
    from stethoscope.engine.live.dashboards import write
    from stethoscope.facts.live.access import DEFAULT_NODE_LABELS, AccessError, parse_node_label

    try:
        labels = parse_node_label(node_label) if node_label else DEFAULT_NODE_LABELS
    except AccessError as exc:
        _bad(str(exc))
    try:
        for path in write(out, labels):
            err.print(f"wrote {path}", highlight=False)
    except OSError as exc:
        _bad(f"{out}: cannot write: {exc.strerror or exc}")


def register(app: typer.Typer, rules_app: typer.Typer) -> None:
    app.add_typer(dashboards_app, name="dashboards")
    app.command()(watch)
    app.command()(calibrate)
    rules_app.command("export")(rules_export)

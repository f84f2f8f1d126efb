"""How steth reaches a production Prometheus (or any PromQL server: Thanos, Mimir,
VictoriaMetrics): TLS, credentials, tenant headers, a scope selector and the label that
names the node.

- TLS is verified by default (the system's CAs, or ``ca_file``); ``insecure`` turns it off
  and the CLI warns. A client certificate is ``client_cert`` + ``client_key``.
- Secrets never travel on the command line (``ps`` would show them): a bearer token or a
  basic-auth password is read from a file or an environment variable whose NAME is given.
- ``selector`` (``{cluster="a",job=~"dcgm.*"}``) is added to every vector selector of every
  query steth sends (:func:`scoped`), whoever wrote the query.
- ``node_labels``: the labels tried, in order, for a series' node (:func:`node_of`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import requests


class AccessError(ValueError):
    """An access option that cannot be used: the reason in one line."""


#: tried in order when ``--node-label`` is not given. A Kubernetes relabelling that names the
#: node (``node`` from ``__meta_kubernetes_pod_node_name``, kube-prometheus' ``kubernetes_node``)
#: is the most deliberate; dcgm-exporter labels ``Hostname`` (``hostname`` after dcgm-exporter commit d5e5f51, May 2026);
#: node_exporter has neither, its ``instance`` is host:port.
DEFAULT_NODE_LABELS: tuple[str, ...] = ("node", "kubernetes_node", "Hostname", "hostname", "instance")

#: dcgm-exporter in a pod without hostNetwork (GPU operator before it passed NODE_NAME) labels
#: ``Hostname`` with the exporter pod's name (dcgm-exporter#78): never a node name
_EXPORTER_POD = re.compile(r"^(nvidia-)?dcgm-exporter-[a-z0-9]{5}$")
#: ``node3:9100``, ``[fd00::3]:9100``: the host without the port
_HOST_PORT = re.compile(r"^(?:\[([^\]]+)\]|([^:\[\]]+)):\d+$")

#: headers that carry credentials: they come from the token/password options, never a value
#: on the command line
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


def node_of(labels: dict[str, str], order: tuple[str, ...] = DEFAULT_NODE_LABELS) -> str:
    """The node a series belongs to: the first label of ``order`` it has (``instance`` and
    other host:port values lose the port)."""
    for name in order:
        value = labels.get(name)
        if not value or (name in ("Hostname", "hostname") and _EXPORTER_POD.match(value)):
            continue
        hostport = _HOST_PORT.match(value)
        return hostport.group(1) or hostport.group(2) if hostport else value
    return "unknown"


# --- the scope selector --------------------------------------------------------------------

_MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')\s*')


def parse_selector(text: str) -> tuple[str, ...]:
    """``{cluster="a", job=~"dcgm.*"}`` (braces optional) -> ``('cluster="a"', 'job=~"dcgm.*"')``.
    Raises AccessError naming what is wrong."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out: list[str] = []
    pos = 0
    while pos < len(body):
        m = _MATCHER.match(body, pos)
        if not m:
            raise AccessError(f"--selector {text!r}: expected label matchers such as '{{cluster=\"a\",job=~\"dcgm.*\"}}' "
                              f"(stopped at {body[pos:pos + 20]!r})")
        if m.group(1) == "__name__":
            raise AccessError(f"--selector {text!r}: __name__ cannot be scoped (every query names its metrics)")
        out.append(f"{m.group(1)}{m.group(2)}{m.group(3)}")
        pos = m.end()
        if pos < len(body):
            if body[pos] != ",":
                raise AccessError(f"--selector {text!r}: matchers are separated by commas")
            pos += 1
    if not out:
        raise AccessError(f"--selector {text!r}: no label matcher")
    return tuple(out)


# PromQL tokens: strings, numbers/durations, identifiers, punctuation (promql/parser/lex.go)
_TOKEN = re.compile(r'''
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<num>0x[0-9a-fA-F]+|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:ms|[smhdwy])?(?:\d+(?:ms|[smhdwy]))*)
  | (?P<id>[a-zA-Z_:][a-zA-Z0-9_:]*)
  | (?P<sp>\s+)
  | (?P<com>\#[^\n]*)
  | (?P<p>.)''', re.X | re.S)

#: identifiers that are no metric name when not followed by ``(``
_KEYWORDS = frozenset({"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
                       "bool", "offset", "atan2", "inf", "nan"})
#: aggregation operators, which may put ``by (...)``/``without (...)`` before their ``(``
_AGGREGATORS = frozenset({"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
                          "bottomk", "topk", "quantile", "limitk", "limit_ratio"})
#: keywords whose parenthesised list holds label names, not expressions
_LABEL_LISTS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right"})


def scoped(expr: str, matchers: tuple[str, ...]) -> str:
    """``expr`` with ``matchers`` added to each of its vector selectors:
    ``max_over_time(DCGM_FI_DEV_GPU_TEMP[1h]) > 80`` -> ``max_over_time(DCGM_FI_DEV_GPU_TEMP{cluster="a"}[1h]) > 80``,
    ``{__name__=~"a|b"}`` -> ``{__name__=~"a|b",cluster="a"}``. Function names, keywords, the
    label lists of ``by``/``on``/..., strings, durations and ranges are left alone."""
    if not matchers:
        return expr
    inject = ",".join(matchers)
    toks = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(expr)]
    out: list[str] = []
    i, n = 0, len(toks)

    def next_sig(j: int) -> int:
        while j < n and toks[j][0] in ("sp", "com"):
            j += 1
        return j

    def copy_until(j: int, close: str) -> int:
        """Copy tokens from j (an opening bracket) through its matching ``close``."""
        opener, depth = toks[j][1], 0
        while j < n:
            kind, text = toks[j]
            out.append(text)
            if kind == "p" and text == opener:
                depth += 1
            elif kind == "p" and text == close:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return j

    def selector_braces(j: int) -> int:
        """j at ``{``: copy the matchers and add ours before ``}``."""
        k = j + 1
        body: list[str] = []
        while k < n and not (toks[k][0] == "p" and toks[k][1] == "}"):
            body.append(toks[k][1])
            k += 1
        inner = "".join(body).strip().rstrip(",").strip()
        out.append("{" + (inner + "," if inner else "") + inject + "}")
        return k + 1

    while i < n:
        kind, text = toks[i]
        if kind == "id":
            j = next_sig(i + 1)
            follows = toks[j][1] if j < n else ""
            low = text.lower()
            if low in _LABEL_LISTS and follows == "(":
                out.extend(t for _, t in toks[i:j])
                i = copy_until(j, ")")
                continue
            if follows == "(" or low in _KEYWORDS or (low in _AGGREGATORS and follows.lower() in ("by", "without")):
                out.append(text)
                i += 1
                continue
            # a metric name: its braces (if any) get the matchers, else braces are added
            out.append(text)
            if follows == "{":
                out.extend(t for _, t in toks[i + 1:j])
                i = selector_braces(j)
            else:
                out.append("{" + inject + "}")
                i += 1
            continue
        if kind == "p" and text == "{":
            i = selector_braces(i)
            continue
        if kind == "p" and text == "[":
            i = copy_until(i, "]")
            continue
        out.append(text)
        i += 1
    return "".join(out)


# --- TLS and credentials ---------------------------------------------------------------------

@dataclass(frozen=True)
class Access:
    """Everything but the URL that a connection to the server needs; the defaults fit a
    Prometheus on localhost and verify TLS against the system's CAs."""

    ca_file: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    insecure: bool = False
    bearer_token_file: str | None = None
    bearer_token_env: str | None = None
    basic_user: str | None = None
    basic_password_file: str | None = None
    basic_password_env: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    selector: tuple[str, ...] = ()
    node_labels: tuple[str, ...] = DEFAULT_NODE_LABELS

    def check(self) -> None:
        """Raise AccessError for options that contradict each other or name missing files."""
        for what, path in (("--ca-file", self.ca_file), ("--client-cert", self.client_cert),
                           ("--client-key", self.client_key), ("--bearer-token-file", self.bearer_token_file),
                           ("--basic-auth-password-file", self.basic_password_file)):
            if path is not None and not Path(path).is_file():
                raise AccessError(f"{what} {path}: no such file")
        if self.client_key and not self.client_cert:
            raise AccessError("--client-key needs --client-cert")
        if self.insecure and self.ca_file:
            raise AccessError("--insecure and --ca-file contradict each other: give one")
        if (self.bearer_token_file or self.bearer_token_env) and (self.basic_user or self.basic_password_file or self.basic_password_env):
            raise AccessError("give a bearer token or basic auth, not both")
        if self.bearer_token_file and self.bearer_token_env:
            raise AccessError("--bearer-token-file and --bearer-token-env: give one")
        if self.basic_password_file and self.basic_password_env:
            raise AccessError("--basic-auth-password-file and --basic-auth-password-env: give one")
        if (self.basic_password_file or self.basic_password_env) and not self.basic_user:
            raise AccessError("a basic-auth password needs --basic-auth-user")
        if self.basic_user and not (self.basic_password_file or self.basic_password_env):
            raise AccessError("--basic-auth-user needs --basic-auth-password-file or --basic-auth-password-env")
        for name, _ in self.headers:
            if name.lower() in SECRET_HEADERS:
                raise AccessError(f"--header {name}: credentials come from --bearer-token-file/-env or "
                                  "--basic-auth-password-file/-env, never from a command-line value")

    def _secret(self, path: str | None, env: str | None, what: str) -> str | None:
        if path:
            try:
                value = Path(path).read_text().strip()
            except OSError as exc:
                raise AccessError(f"{what} {path}: cannot read: {exc.strerror or exc}") from None
            if not value:
                raise AccessError(f"{what} {path}: the file is empty")
            return value
        if env:
            value = os.environ.get(env, "").strip()
            if not value:
                raise AccessError(f"{what.replace('-file', '-env')} {env}: the environment variable is unset or empty")
            return value
        return None

    def session(self) -> requests.Session:
        """A requests session that verifies TLS (or not, when ``insecure``), presents the
        client certificate and sends the credentials and headers with every request."""
        import requests  # only a live diagnosis talks HTTP: reading a bundle never loads it (~0.25 s)

        self.check()
        s = requests.Session()
        s.trust_env = True  # proxies from HTTPS_PROXY/NO_PROXY; netrc is overridden by auth below
        s.verify = False if self.insecure else (self.ca_file or True)
        if self.client_cert:
            s.cert = (self.client_cert, self.client_key) if self.client_key else self.client_cert
        token = self._secret(self.bearer_token_file, self.bearer_token_env, "--bearer-token-file")
        if token:
            s.headers["Authorization"] = f"Bearer {token}"
        password = self._secret(self.basic_password_file, self.basic_password_env, "--basic-auth-password-file")
        if self.basic_user and password is not None:
            s.auth = (self.basic_user, password)
        for name, value in self.headers:
            s.headers[name] = value
        return s


def parse_header(text: str) -> tuple[str, str]:
    """``'X-Scope-OrgID: t1'`` -> ``('X-Scope-OrgID', 't1')``."""
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", name) or not value:
        raise AccessError(f"--header {text!r}: expected 'Name: value' (example: 'X-Scope-OrgID: tenant1')")
    if name.lower() in SECRET_HEADERS:
        raise AccessError(f"--header {name}: credentials come from --bearer-token-file/-env or "
                          "--basic-auth-password-file/-env, never from a command-line value")
    return name, value


def parse_node_label(text: str) -> tuple[str, ...]:
    """``--node-label kubernetes_node`` or a preference list ``Hostname,instance``."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if not re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", n)]
    if not names or bad:
        raise AccessError(f"--node-label {text!r}: expected a label name or a comma-separated list (Hostname,instance)")
    return names

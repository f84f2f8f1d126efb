"""Production access, against real servers: a Prometheus behind TLS (a certificate of a test
CA made here with openssl) with basic auth, one that requires a client certificate, a token-
and tenant-checking reverse proxy in front of the test Prometheus that records every query
it forwards, and VictoriaMetrics single-node as a second PromQL server."""
from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import INCIDENT_AT
from promserver import PromServer, VMServer, build_tsdb
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.observe import diagnose_prometheus
from stethoscope.facts.live.access import Access, AccessError, node_of, parse_header, parse_selector, scoped
from stethoscope.facts.live.prom import LiveError, Prom

openssl = shutil.which("openssl")
needs_servers = pytest.mark.skipif(not (openssl and shutil.which("prometheus") and shutil.which("promtool")),
                                   reason="openssl, prometheus and promtool are needed (tests/setup_venv.sh)")

USER, PASSWORD = "steth", "s3cret-pw"
#: bcrypt of PASSWORD (Prometheus' basic_auth_users takes hashes), made once with Python 3.11's
#: crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH)) (libxcrypt)
PASSWORD_BCRYPT = "$2b$12$w48k8fBMSB377zEIRUlMKeNs1FT1mJ8gBTpgYc7yco87o6tDG2PRe"
TOKEN, TENANT = "tok-7f3a9c", "team-a"
#: the recording's faults, and (information, fleet-wide) its exporters of two versions: node1
#: reports CLOCKS_EVENT_REASONS and hostname, node2 and node3 the older names
INCIDENT = {("ecc_uncorrectable", "node2"), ("gpu_fell_off_bus", "node1"), ("gpu_thermal_slowdown", "node2"), ("gpu_overheating", "node2"),
            ("row_remap_pending", "node2"), ("ib_port_down", "node3"), ("monitoring_exporter_versions_mixed", "*")}


def _ssl(*args: str, cwd: Path) -> None:
    subprocess.run([openssl, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A self-signed test CA; a server certificate for 127.0.0.1 (not for 'localhost') and a
    client certificate, both signed by it."""
    d = tmp_path_factory.mktemp("pki")
    _ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
         "-subj", "/CN=steth test CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"),
                      ("client", "extendedKeyUsage=clientAuth\n")):
        (d / f"{name}.ext").write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n" + ext)
        _ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
             "-subj", f"/CN=steth test {name}", cwd=d)
        _ssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    (d / "password").write_text(PASSWORD + "\n")
    (d / "wrong-password").write_text("not-it\n")
    (d / "token").write_text(TOKEN + "\n")
    return d


@pytest.fixture(scope="module")
def tls_prom(certs, tmp_path_factory):
    """The recorded incidents behind TLS and basic auth (Prometheus' --web.config.file)."""
    folder = tmp_path_factory.mktemp("tlsprom")
    web = folder / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {certs / 'server.crt'}\n  key_file: {certs / 'server.key'}\n"
                   f"basic_auth_users:\n  {USER}: '{PASSWORD_BCRYPT}'\n")
    server = PromServer(build_tsdb(folder), folder, web_config=web)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def mtls_prom(certs, tmp_path_factory):
    """A Prometheus that requires a client certificate of the test CA (no data: vector(1))."""
    folder = tmp_path_factory.mktemp("mtlsprom")
    web = folder / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {certs / 'server.crt'}\n  key_file: {certs / 'server.key'}\n"
                   f"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: {certs / 'ca.crt'}\n")
    server = PromServer(folder / "data", folder, web_config=web)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


class _Proxy(BaseHTTPRequestHandler):
    """Mimir/Thanos-like front: 401 without the bearer token, 400 without the tenant header;
    records each query it forwards."""

    upstream = ""
    seen: list[dict] = []

    def _forward(self, body: bytes | None) -> None:
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.send_response(401)
            self.end_headers()
            self.wfile.write(b"unauthorized\n")
            return
        if self.headers.get("X-Scope-OrgID") != TENANT:
            self.send_response(400)
            self.end_headers()
            self.wfile.write(b"no org id\n")
            return
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if body:
            params.update(urllib.parse.parse_qs(body.decode()))
        type(self).seen.append({k: v[0] for k, v in params.items()})
        req = urllib.request.Request(self.upstream + self.path, data=body, method=self.command,
                                     headers={"Content-Type": self.headers.get("Content-Type", "")} if body else {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, data = r.status, r.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        self._forward(None)

    def do_POST(self):  # noqa: N802
        self._forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def proxy(certs, prom_url):
    handler = type("Proxy", (_Proxy,), {"upstream": prom_url, "seen": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certs / "server.crt", certs / "server.key")
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"https://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def sent(handler) -> list[str]:
    """What each forwarded request asked: its query, or the series selector of a metadata call."""
    return [q.get("query") or q.get("match[]") or "" for q in handler.seen]


def run(*args: str, env: dict | None = None):
    res = CliRunner().invoke(app, ["diagnose", "--format", "json", "--at", str(INCIDENT_AT), *args], env=env)
    doc = json.loads(res.stdout) if res.stdout.strip().startswith("{") else None
    return res, doc


def causes(doc) -> set[tuple[str, str]]:
    return {(f["cause"], f["entity"]["node"]) for f in doc["findings"]}


# --- TLS ------------------------------------------------------------------------------------

@needs_servers
def test_https_with_a_test_ca_is_refused_without_the_ca(tls_prom, certs):
    res, doc = run("--prometheus", tls_prom, "--basic-auth-user", USER, "--basic-auth-password-file", str(certs / "password"))
    assert res.exit_code == 2, res.output
    assert doc["verdict"] == "inconclusive" and not doc["findings"]
    reason = doc["reason"]
    assert "\n" not in reason and tls_prom in reason and "certificate verify failed" in reason and "--ca-file" in reason, reason


@needs_servers
def test_https_accepted_with_its_ca(tls_prom, certs):
    res, doc = run("--prometheus", tls_prom, "--ca-file", str(certs / "ca.crt"),
                   "--basic-auth-user", USER, "--basic-auth-password-file", str(certs / "password"))
    assert res.exit_code == 1, res.output
    assert causes(doc) == INCIDENT


@needs_servers
def test_a_certificate_for_another_host_is_refused(tls_prom, certs):
    other = tls_prom.replace("127.0.0.1", "localhost")  # the certificate names IP 127.0.0.1 only
    res, doc = run("--prometheus", other, "--ca-file", str(certs / "ca.crt"),
                   "--basic-auth-user", USER, "--basic-auth-password-file", str(certs / "password"))
    assert res.exit_code == 2, res.output
    assert other in doc["reason"] and "certificate verify failed" in doc["reason"] and "mismatch" in doc["reason"].lower()


@needs_servers
def test_insecure_is_explicit_and_warns(tls_prom, certs):
    res, doc = run("--prometheus", tls_prom, "--insecure", "--basic-auth-user", USER,
                   "--basic-auth-password-file", str(certs / "password"))
    assert res.exit_code == 1, res.output
    assert causes(doc) == INCIDENT
    assert "warning: --insecure" in res.stderr
    assert "InsecureRequestWarning" not in res.stderr  # said once, not once per query


@needs_servers
def test_client_certificate(mtls_prom, certs):
    ca = str(certs / "ca.crt")
    with pytest.raises(LiveError, match="TLS refused.*wants a client certificate.*--client-cert"):
        Prom(mtls_prom, timeout=5, access=Access(ca_file=ca)).instant("vector(1)", INCIDENT_AT)
    got = Prom(mtls_prom, timeout=5, access=Access(ca_file=ca, client_cert=str(certs / "client.crt"),
                                                   client_key=str(certs / "client.key"))).instant("vector(1)", INCIDENT_AT)
    assert got[0]["value"][1] == "1"


# --- credentials ----------------------------------------------------------------------------

@needs_servers
def test_basic_auth_from_a_file_or_the_environment(tls_prom, certs):
    ca = ["--ca-file", str(certs / "ca.crt")]
    res, doc = run("--prometheus", tls_prom, *ca)
    assert res.exit_code == 2 and "HTTP 401" in doc["reason"] and "--basic-auth-user" in doc["reason"], doc["reason"]
    res, doc = run("--prometheus", tls_prom, *ca, "--basic-auth-user", USER, "--basic-auth-password-file", str(certs / "wrong-password"))
    assert res.exit_code == 2 and "HTTP 401" in doc["reason"] and "check the token or password" in doc["reason"]
    res, doc = run("--prometheus", tls_prom, *ca, "--basic-auth-user", USER, "--basic-auth-password-env", "STETH_TEST_PW",
                   env={"STETH_TEST_PW": PASSWORD})
    assert res.exit_code == 1 and causes(doc) == INCIDENT


@needs_servers
def test_bearer_token_and_tenant_header(proxy, certs):
    url, handler = proxy
    ca = ["--ca-file", str(certs / "ca.crt")]
    tenant = ["--header", f"X-Scope-OrgID: {TENANT}"]
    res, doc = run("--prometheus", url, *ca, *tenant)
    assert res.exit_code == 2 and "HTTP 401" in doc["reason"]
    res, doc = run("--prometheus", url, *ca, "--bearer-token-file", str(certs / "token"))
    assert res.exit_code == 2 and "400" in doc["reason"]  # the tenant header is missing
    res, doc = run("--prometheus", url, *ca, *tenant, "--bearer-token-file", str(certs / "token"))
    assert res.exit_code == 1 and causes(doc) == INCIDENT
    res, doc = run("--prometheus", url, *ca, *tenant, "--bearer-token-env", "STETH_TEST_TOKEN", env={"STETH_TEST_TOKEN": TOKEN})
    assert res.exit_code == 1 and causes(doc) == INCIDENT


def test_secrets_never_come_from_the_command_line(tmp_path):
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", "http://127.0.0.1:9", "--header", "Authorization: Bearer x"])
    assert res.exit_code == 3 and "never from a command-line value" in res.output
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", "http://127.0.0.1:9", "--bearer-token-env", "STETH_UNSET_VAR"],
                             env={"STETH_UNSET_VAR": ""})
    assert res.exit_code == 3 and "STETH_UNSET_VAR" in res.output and "unset or empty" in res.output
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", "http://127.0.0.1:9", "--bearer-token-file", str(tmp_path / "none")])
    assert res.exit_code == 3 and "no such file" in res.output
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(tmp_path), "--selector", '{cluster="a"}'])
    assert res.exit_code == 3 and "need --prometheus" in res.output


# --- scope selector and node label ------------------------------------------------------------

@needs_servers
def test_selector_is_in_every_query_sent(proxy, certs):
    url, handler = proxy
    base = ["--prometheus", url, "--ca-file", str(certs / "ca.crt"), "--header", f"X-Scope-OrgID: {TENANT}",
            "--bearer-token-file", str(certs / "token")]
    handler.seen.clear()
    res, doc = run(*base, "--selector", '{job=~"dcgm|node"}')
    assert res.exit_code == 1 and causes(doc) == INCIDENT  # every series has one of these jobs
    queries = sent(handler)
    assert len(queries) > 10
    for q in queries:
        # as many scope matchers as metric names: none of the query's selectors escaped it
        names = q.count("DCGM_FI_") + q.count("node_infiniband_")
        assert q.count('job=~"dcgm|node"') >= names - q.count('__name__=~"') > 0 or 'job=~"dcgm|node"' in q, q
    # scoped out: node1's exporter; its fault goes, the others stay
    res, doc = run(*base, "--selector", '{instance!="node1:9400"}')
    got = causes(doc)
    assert ("gpu_fell_off_bus", "node1") not in got and INCIDENT - {("gpu_fell_off_bus", "node1")} <= got | {("monitoring_exporter_versions_mixed", "*")}
    # without node1's newer exporter every target left reports the deprecated clock reasons name
    assert ("monitoring_exporter_versions_mixed", "*") not in got and ("monitoring_exporter_legacy_names", "*") in got


@needs_servers
def test_watch_and_calibrate_take_the_same_options(proxy, certs, tmp_path):
    url, handler = proxy
    opts = ["--ca-file", str(certs / "ca.crt"), "--header", f"X-Scope-OrgID: {TENANT}",
            "--bearer-token-file", str(certs / "token"), "--selector", '{job=~"dcgm|node"}']
    handler.seen.clear()
    res = CliRunner().invoke(app, ["calibrate", "--prometheus", url, "--window", "1h", "--at", str(INCIDENT_AT), *opts])
    assert res.exit_code == 0, res.output
    assert "NVIDIA H100 80GB HBM3" in res.stdout
    assert handler.seen and all('job=~"dcgm|node"' in q for q in sent(handler))
    from promserver import free_port

    handler.seen.clear()
    res = CliRunner().invoke(app, ["watch", "--prometheus", url, "--listen", f"127.0.0.1:{free_port()}", "--runs", "1",
                                   "--every", "1s", *opts])
    assert res.exit_code == 0, res.output
    assert handler.seen and all('job=~"dcgm|node"' in q for q in sent(handler))


def test_node_label_defaults_and_gpu_operator_labels():
    # dcgm-exporter in a pod without hostNetwork names the exporter pod in Hostname (dcgm-exporter#78)
    pod = {"Hostname": "nvidia-dcgm-exporter-cwbcm", "instance": "10.42.0.17:9400", "kubernetes_node": "gpu-node-7"}
    assert node_of(pod) == "gpu-node-7"
    assert node_of({"Hostname": "nvidia-dcgm-exporter-cwbcm", "instance": "10.42.0.17:9400"}) == "10.42.0.17"
    assert node_of({"hostname": "node4", "instance": "node4:9400"}) == "node4"
    assert node_of({"instance": "[fd00::3]:9100"}) == "fd00::3"
    assert node_of(pod, ("instance",)) == "10.42.0.17"
    assert node_of({"Hostname": "a"}, ("kubernetes_node",)) == "unknown"


@needs_servers
def test_node_label_option(prom_url):
    # instance (host:port) names the same nodes as the exporters' Hostname/hostname here
    res, doc = run("--prometheus", prom_url, "--node-label", "instance")
    assert res.exit_code == 1 and causes(doc) == INCIDENT
    res, doc = run("--prometheus", prom_url, "--node-label", "job")
    assert {n for _, n in causes(doc)} <= {"dcgm", "node", "*"}  # "*": the fleet-wide exporter versions
    res, _ = run("--prometheus", prom_url, "--node-label", "bad label")
    assert res.exit_code == 3


def test_scoped_adds_matchers_to_every_selector_only():
    m = parse_selector('{cluster="a", job=~"dcgm.*"}')
    assert m == ('cluster="a"', 'job=~"dcgm.*"')
    s = 'cluster="a",job=~"dcgm.*"'
    cases = {
        "max_over_time(DCGM_FI_DEV_GPU_TEMP[1h]) > 80": f"max_over_time(DCGM_FI_DEV_GPU_TEMP{{{s}}}[1h]) > 80",
        '{__name__=~"a|b"}': f'{{__name__=~"a|b",{s}}}',
        "sum by (Hostname) (rate(x{a=\"b\",}[5m])) / on(Hostname) group_left(modelName) y":
            f"sum by (Hostname) (rate(x{{a=\"b\",{s}}}[5m])) / on(Hostname) group_left(modelName) y{{{s}}}",
        'label_replace(up, "steth_stat", "last", "", "")': f'label_replace(up{{{s}}}, "steth_stat", "last", "", "")',
        "(x > 0 or (x and on() vector(time()) > 5))[1h:30s]": f"(x{{{s}}} > 0 or (x{{{s}}} and on() vector(time()) > 5))[1h:30s]",
        "x offset 5m unless ignoring(a) y @ 123": f"x{{{s}}} offset 5m unless ignoring(a) y{{{s}}} @ 123",
        "count without(a)(x) + Inf": f"count without(a)(x{{{s}}}) + Inf",
    }
    for q, want in cases.items():
        assert scoped(q, m) == want
    for bad in ("cluster", '{cluster="a" job="b"}', '{__name__="x"}', "{}"):
        with pytest.raises(AccessError):
            parse_selector(bad)
    with pytest.raises(AccessError):
        parse_header("X-Scope-OrgID")


@needs_servers
def test_every_scoped_signal_query_is_valid_promql(prom_url):
    """The scoped form of every query a run sends parses and evaluates on the real server."""
    prom = Prom(prom_url, timeout=10, access=Access(selector=parse_selector('{job=~"dcgm|node"}')))
    report = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600,
                                 access=Access(selector=parse_selector('{job=~"dcgm|node"}')))
    assert report.verdict == "faulty", report.reason
    for f in report.coverage.files:
        assert 'job=~"dcgm|node"' in f.path
        prom.instant(f.path.replace('job=~"dcgm|node",', "").replace(',job=~"dcgm|node"', "").replace('{job=~"dcgm|node"}', ""), INCIDENT_AT)


# --- a second PromQL server -------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("victoria-metrics") is None, reason="victoria-metrics is absent (tests/setup_venv.sh installs Debian's)")
def test_victoriametrics_gives_the_findings_prometheus_gives(tmp_path):
    vm = VMServer(tmp_path)
    try:
        vm.wait_ready()
        vm.load(tmp_path)
        res, doc = run("--prometheus", vm.url, "--selector", '{job=~"dcgm|node"}')
        assert res.exit_code == 1, res.output
        assert causes(doc) == INCIDENT
    finally:
        vm.stop()

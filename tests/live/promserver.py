"""A real Prometheus for the live tests: TSDB blocks built from the recorded OpenMetrics
incidents with promtool, served on 127.0.0.1 by the ``prometheus`` binary (Debian's package,
installed by tests/setup_venv.sh), started and stopped by the tests themselves."""
from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_tsdb(folder: Path) -> Path:
    """Write the recordings (fixtures/series/make_series.py) and import them as blocks."""
    sys.path.insert(0, str(ROOT / "fixtures" / "series"))
    try:
        import make_series
    finally:
        sys.path.pop(0)
    data = folder / "data"
    for om in make_series.write(folder / "om"):
        subprocess.run([shutil.which("promtool") or "promtool", "tsdb", "create-blocks-from", "openmetrics",
                        str(om), str(data)], check=True, capture_output=True, timeout=120)
    return data


_UNVERIFIED = ssl.create_default_context()
_UNVERIFIED.check_hostname = False
_UNVERIFIED.verify_mode = ssl.CERT_NONE


class PromServer:
    def __init__(self, data: Path, folder: Path, scrape: tuple[str, str] | None = None, web_config: Path | None = None,
                 rules: Path | None = None):
        """``scrape``: (host:port, interval) of one target, job ``steth`` (else it scrapes nothing).
        ``web_config``: Prometheus' --web.config.file (TLS, basic auth): the URL is then https
        when it sets tls_server_config. ``rules``: a rule file it loads, evaluated every second."""
        self.port = free_port()
        tls = web_config is not None and "tls_server_config" in web_config.read_text()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        config = folder / "prometheus.yml"
        if scrape is None and rules is None:
            config.write_text("global:\n  scrape_interval: 1h\n")  # scrapes nothing: it serves the recording
        elif scrape is None:
            config.write_text(f"global:\n  scrape_interval: 1h\n  evaluation_interval: 1s\nrule_files: ['{rules}']\n")
        else:
            target, every = scrape
            config.write_text(f"global:\n  scrape_interval: {every}\n  evaluation_interval: {every}\n"
                              f"scrape_configs:\n  - job_name: steth\n    static_configs:\n      - targets: ['{target}']\n")
        self.log = (folder / "prometheus.log").open("wb")
        # retention counts back from the newest block: without 100y the 2024 recording is deleted at start
        self.proc = subprocess.Popen(
            [shutil.which("prometheus") or "prometheus", f"--storage.tsdb.path={data}",
             "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{self.port}",
             f"--config.file={config}", "--web.enable-lifecycle",
             *([f"--web.config.file={web_config}"] if web_config else [])],
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode}")
            try:  # readiness only: the certificate and the credentials are what the tests test
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1, context=_UNVERIFIED) as r:
                    if r.status == 200:
                        return
            except urllib.error.HTTPError as exc:
                if exc.code == 503:  # "Service Unavailable": it is up but not ready (still loading its TSDB blocks)
                    time.sleep(0.1)
                    continue
                return  # it answers (401 without credentials, 400 without a client certificate): it is up
            except ssl.SSLError:
                return  # it refused the handshake (it requires a client certificate): it is up
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("prometheus did not become ready")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class VMServer:
    """VictoriaMetrics single-node (Debian's ``victoria-metrics``) holding the same recordings,
    imported over its /api/v1/import/prometheus endpoint: a second PromQL server for the
    live tests."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (folder / "victoria-metrics.log").open("wb")
        # retention counts back from now: the 2024 recording needs 100y; no latency offset, no
        # cache, so that what was imported is what the queries see
        self.proc = subprocess.Popen(
            [shutil.which("victoria-metrics") or "victoria-metrics", f"-storageDataPath={folder / 'vmdata'}",
             "-retentionPeriod=100y", f"-httpListenAddr=127.0.0.1:{self.port}", "-search.latencyOffset=0s",
             "-search.disableCache"],  # its defaults otherwise: -search.maxQueryLen 16,384 bytes among them
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"victoria-metrics exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("victoria-metrics did not become ready")

    def load(self, folder: Path) -> None:
        """Import the recordings (OpenMetrics, seconds) as Prometheus text (milliseconds)."""
        sys.path.insert(0, str(ROOT / "fixtures" / "series"))
        try:
            import make_series
        finally:
            sys.path.pop(0)
        for om in make_series.write(folder / "om-vm"):
            lines = []
            for line in om.read_text().splitlines():
                if not line or line.startswith("#"):
                    continue
                head, value, ts = line.rsplit(" ", 2)
                lines.append(f"{head} {value} {int(float(ts) * 1000)}")
            req = urllib.request.Request(f"{self.url}/api/v1/import/prometheus", data="\n".join(lines).encode() + b"\n",
                                         method="POST")
            with urllib.request.urlopen(req, timeout=120) as r:
                assert r.status in (200, 204), r.status
        with urllib.request.urlopen(f"{self.url}/internal/force_flush", timeout=30):
            pass

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

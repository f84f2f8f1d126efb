"""A real Prometheus for the live tests: TSDB blocks built from the recorded OpenMetrics
incidents with promtool, served on 127.0.0.1 by the ``prometheus`` binary (Debian's package,
installed by tests/setup_venv.sh), started and stopped by the tests themselves."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
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


class PromServer:
    def __init__(self, data: Path, folder: Path, scrape: tuple[str, str] | None = None):
        """``scrape``: (host:port, interval) of one target, job ``steth`` (else it scrapes nothing)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = folder / "prometheus.yml"
        if scrape is None:
            config.write_text("global:\n  scrape_interval: 1h\n")  # scrapes nothing: it serves the recording
        else:
            target, every = scrape
            config.write_text(f"global:\n  scrape_interval: {every}\n  evaluation_interval: {every}\n"
                              f"scrape_configs:\n  - job_name: steth\n    static_configs:\n      - targets: ['{target}']\n")
        self.log = (folder / "prometheus.log").open("wb")
        # retention counts back from the newest block: without 100y the 2024 recording is deleted at start
        self.proc = subprocess.Popen(
            [shutil.which("prometheus") or "prometheus", f"--storage.tsdb.path={data}",
             "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{self.port}",
             f"--config.file={config}", "--web.enable-lifecycle"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        return
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

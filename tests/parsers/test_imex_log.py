"""The IMEX daemon's log (imex_log): its framing as NVIDIA's DRA driver docs show it, the bare
lines as people quote them (kubernetes-sigs/dra-driver-nvidia-gpu#948, fixture), and files of
level lines that are not IMEX's (fabric manager's own log stays fabric_manager_log's)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import fabric_manager_log as fm
from stethoscope.facts.parsers import imex_log as im
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "imex_log"

# the start-up banner (NVIDIA cloud-native-docs gpu-operator/dra-driver.rst)
BANNER = ("IMEX Log initializing at: 3/3/2025 17:26:19.102\n"
          "[Mar 03 2025 17:26:19] [INFO] [tid 38] IMEX version 570.00 is running with the following configuration options\n"
          "\n"
          "[Mar 03 2025 17:26:19] [INFO] [tid 38] Logging level = 4\n")


def _facts(text: str):
    return im.parse(Artefact(path="imex.log", text=text, node="n1")).facts


def test_banner_alone_is_read_and_quiet():
    assert im.detect(BANNER)
    r = im.parse(Artefact(path="imex.log", text=BANNER, node="n1"))
    assert r.facts == [] and r.lines_used == 3


@pytest.mark.parametrize(("line", "level", "category", "peer", "ts"), [
    ("[Mar 21 2025 20:45:38] [ERROR] [tid 39] No matching network interface found for any IP addresses in the node configuration file",
     "ERROR", "config", None, "Mar 21 2025 20:45:38"),
    ("[Aug 8 2025 14:23:12] [FATAL] [tid 39] Received import response from node id 2 with failure status 3",
     "FATAL", "memory_export_import", 2, "Aug 8 2025 14:23:12"),
    ("[ERROR] Failed to get new memory reference with rc: 87", "ERROR", "memory_export_import", None, None),
    ("[ERROR] Node disconnect event detected for node 1", "ERROR", "peer_connection", 1, None),
])
def test_error_lines(line, level, category, peer, ts):
    (f,) = _facts(BANNER + line + "\n")
    assert (f.level, f.category, f.peer_node, f.timestamp, f.evidence.line) == (level, category, peer, ts, 5)


def test_real_dra948_quoted_errors():
    text = (FIXTURES / "dra948_compute_domain_daemon_errors.log").read_text()
    assert im.detect(text) and not fm.detect(text)
    facts = _facts(text)
    assert [f.category for f in facts] == ["memory_export_import"] * 4
    assert [f.peer_node for f in facts] == [None, None, 0, 0]


@pytest.mark.parametrize("text", [
    # fabric manager's own log: the same framing, no IMEX word
    "[Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61\n",
    # another program's bare level lines
    "[ERROR] could not open config.yaml\n[INFO] retrying\n",
])
def test_not_imex(text):
    assert not im.detect(text)


def test_fabric_manager_leaves_the_imex_log_alone():
    text = BANNER + "[Mar 03 2025 17:26:20] [ERROR] [tid 38] No matching network interface found\n"
    assert im.detect(text) and not fm.detect(text)
    assert fm.detect("[Feb 27 2025 14:08:27] [INFO] [tid 1808] multicast group 0 is allocated.\n")


def test_level_line_without_message_is_a_parse_error():
    r = im.parse(Artefact(path="imex.log", text=BANNER + "[ERROR] \n", node="n1"))
    assert r.facts == [] and len(r.errors) == 1

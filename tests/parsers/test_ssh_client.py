"""OpenSSH's client failures as launchers pass them on (fixtures/artefacts/ssh_client, each from the thread its
README names; the openssh-portable format strings filled in for the forms no thread of ours shows)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ssh_client
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ssh_client"


def _facts(text: str):
    art = Artefact(path="launcher.log", node="n1", text=text)
    art.normalise()
    return ssh_client.parse(art).facts


@pytest.mark.parametrize("name, expected", [
    ("aksrdma30_resolve.log", [("name_resolution", "nccl-tests-worker-0.nccl-tests.default.svc", None, None, 4),
                                    ("name_resolution", "nccl-tests-worker-1.nccl-tests.default.svc", None, None, 5)]),
    ("mpiop464_permission_denied.log", [("auth_denied", "tensorflow-mnist-worker-1.tensorflow-mnist-worker", None, "root", 5)]),
    ("dsex894_pdsh_connection_refused.log", [("connection_refused", "localhost", 22, None, 1)]),
    ("mpich4712_hydra_host_key.log", [("host_key", None, None, None, 3)]),
    ("horovod110_password_denied.log", [("auth_denied", None, None, None, 6)]),
    ("radical1360_exchange_closed.log", [("connection_closed", None, None, None, 1)]),
])
def test_real_threads(name, expected):
    text = (FIX / name).read_text()
    assert ssh_client.detect(text)
    assert [(f.reason, f.host, f.port, f.user, f.evidence.line) for f in _facts(text)] == expected


@pytest.mark.parametrize("line, reason, detail", [
    ("ssh: connect to host 10.0.0.7 port 22: Connection timed out", "timed_out", "Connection timed out"),
    ("ssh: connect to host gpu-12 port 2222: No route to host", "no_route", "No route to host"),
    ("worker-3: ssh: connect to host worker-3 port 22: Network is unreachable", "no_route", "Network is unreachable"),
    ("kex_exchange_identification: read: Connection reset by peer", "connection_closed", "read: Connection reset by peer"),
    ("Connection timed out during banner exchange", "timed_out", None),
    ("ssh: Could not resolve hostname gpu-07: Temporary failure in name resolution", "name_resolution",
     "Temporary failure in name resolution"),
])
def test_format_strings_filled_in(line, reason, detail):
    (f,) = _facts(line + "\n")
    assert (f.reason, f.detail) == (reason, detail)


def test_strict_checking_and_its_verification_failure_are_one_fact():
    text = ("No ED25519 host key is known for worker-2 and you have requested strict checking.\n"
            "Host key verification failed.\n")
    (f,) = _facts(text)
    assert (f.reason, f.host, f.evidence.line) == ("host_key", "worker-2", 1)


def test_deepspeed_runner_check():
    text = ("RuntimeError: Using hostfile at /job/hostfile but host=worker-0 was not reachable via ssh. If you are running "
            "with a single node please remove /job/hostfile or setup passwordless ssh.\n")
    (f,) = _facts(text)
    assert (f.reason, f.host) == ("unknown", "worker-0")


@pytest.mark.parametrize("text", [
    "Warning: Permanently added 'worker-1,10.0.0.2' (ECDSA) to the list of known hosts.\n",
    "Permission denied, please try again.\n",
    "cat: /etc/shadow: Permission denied\n",
    "debug1: connect to address 10.0.0.7 port 22: Connection refused\n",  # ssh -v's per-address try: the summary line follows
    "mkdir: cannot create directory '/data': Permission denied (os error 13)\n",
])
def test_near_misses(text):
    assert not ssh_client.detect(text) and _facts(text) == []

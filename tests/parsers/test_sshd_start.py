"""An ssh server that could not start (facts/parsers/sshd_start.py), on real lines, with near misses."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py

from stethoscope.facts.parsers import sshd_start
from stethoscope.facts.parsers.base import Artefact


def test_no_host_keys():
    # CONSTRUCTED from OpenSSH's source: sshd.c do_log2(ll, "Unable to load host key: %s", ...) for each default host
    # key file (pathnames.h: SSHDIR "/ssh_host_rsa_key", ...), then logit("sshd: no hostkeys available -- exiting.")
    keys = "".join(f"Unable to load host key: /etc/ssh/ssh_host_{k}_key\n" for k in ("rsa", "ecdsa", "ed25519"))
    r = _parse(sshd_start, text=keys + "sshd: no hostkeys available -- exiting.\n")
    (f,) = r.facts
    assert (f.kind, f.reason, f.path, f.evidence.line) == ("sshd_not_started", "no_host_keys", None, 4)
    assert r.lines_used == 4 and r.errors == []


def test_worker_image_without_sshd():
    # NVIDIA/cloudai#720: an NGC PyTorch image as MPIJob worker
    r = _parse(sshd_start, "sshd_start/cloudai720_worker_no_sshd_binary.log")
    (f,) = r.facts
    assert (f.reason, f.path, f.evidence.line) == ("binary_missing", "/usr/sbin/sshd", 1)


def test_supervisord_cannot_find_sshd():
    # CONSTRUCTED from Supervisor's source: options.py check_execv_args "can't find command %r", logged by
    # process.py record_spawnerr as logger.info("spawnerr: %s"), under supervisord's "%(levelname)s %(message)s"
    (f,) = sshd_start.parse(Artefact(path="supervisord.log", text="INFO spawnerr: can't find command '/usr/sbin/sshd'\n",
                                     node="n1")).facts
    assert (f.reason, f.path) == ("binary_missing", "/usr/sbin/sshd")


@pytest.mark.parametrize("line, path", [
    ("/bin/bash: line 1: /usr/sbin/sshd: No such file or directory", "/usr/sbin/sshd"),  # NVIDIA/cloudai#720
    ("bash: /usr/sbin/sshd: No such file or directory", "/usr/sbin/sshd"),
    ("/bin/sh: 1: /usr/sbin/sshd: not found", "/usr/sbin/sshd"),
    ("sudo: unable to execute /usr/sbin/sshd: No such file or directory", "/usr/sbin/sshd"),
])
def test_shell_forms(line, path):
    assert sshd_start.detect(line + "\n")
    (f,) = sshd_start.parse(Artefact(path="w.log", text=line + "\n")).facts
    assert (f.reason, f.path) == ("binary_missing", path)


@pytest.mark.parametrize("text", [
    "Server listening on 0.0.0.0 port 22.\n",                                   # sshd started
    "bash: /etc/ssh/sshd_config: No such file or directory\n",                 # its config, not the binary
    "ssh: connect to host worker-0 port 22: Connection refused\n",             # the client's side: ssh_client's
    "/usr/sbin/sshd -De\n",                                                     # the command, no failure
])
def test_near_misses(text):
    assert not sshd_start.detect(text)
    assert sshd_start.parse(Artefact(path="w.log", text=text)).facts == []

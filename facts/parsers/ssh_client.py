"""OpenSSH's client failing to reach a host, in the output of whatever ran it: mpirun's rsh/ssh
launch agent (Open MPI's plm rsh, MPICH's hydra), DeepSpeed's pdsh runner (each line after the
target's name, ``host: ``), horovodrun, a script. ssh prints one line on stderr and exits 255; the
launcher then gives up on that node (ORTE's "unable to reliably start one or more daemons",
``pdsh@host: node: ssh exited with exit code 255``), so the line says why no process started there.

The forms, from openssh-portable (the same words since OpenSSH 5.x; the ``user@host:`` before
"Permission denied" since 7.x, the ``kex_`` spelling since 8.x)::

    ssh: Could not resolve hostname %s: %s                (ssh.c: the resolver's gai_strerror)
    ssh: connect to host %s port %s: %s                   (sshconnect.c ssh_connect_direct: strerror(errno))
    kex_exchange_identification: Connection closed by remote host     (sshd dropped it before its banner:
    ssh_exchange_identification: read: Connection reset by peer        MaxStartups, a TCP wrapper)
    Connection timed out during banner exchange
    No %s host key is known for %.200s and you have requested strict checking.
    Host key verification failed.                          (sshconnect.c check_host_key)
    %s@%s: Permission denied (%s).                         (sshconnect2.c: every method refused)

and DeepSpeed's own check of the first host before it starts pdsh (deepspeed/launcher/runner.py,
ssh's stderr sent to /dev/null): ``Using hostfile at %s but host=%s was not reachable via ssh.``

Sample lines (real, from the public threads named; fixtures/artefacts/ssh_client/)::

    ssh: Could not resolve hostname nccl-tests-worker-0.nccl-tests.default.svc: Name or service not known   (Azure/aks-rdma-infiniband#30)
    localhost: ssh: connect to host localhost port 22: Connection refused             (deepspeedai/DeepSpeedExamples#894, pdsh)
    Host key verification failed.                                                     (pmodels/mpich#4712, hydra)
    root@tensorflow-mnist-worker-1.tensorflow-mnist-worker: Permission denied (publickey,password).   (kubeflow/mpi-operator#464)
    ssh_exchange_identification: Connection closed by remote host                    (radical-cybertools/radical.pilot#1360)

ssh's warnings on the way (``Warning: Permanently added ... to the list of known hosts.``,
``Failed to add the host to the list of known hosts (...)``, a password prompt's ``Permission
denied, please try again.``) are read and give nothing: the session may still open.

Facts: ``ssh_connection_failed`` per failing line (one for a strict-checking line and the
verification failure after it): ``reason`` (name_resolution, connection_refused, timed_out,
no_route, connection_closed, host_key, auth_denied, unknown), the target host, port and user
where the line names them, ssh's own words in ``detail``. The fact's node is the file's (where
ssh ran). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import SshConnectionFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "ssh_client"

_HOST = r"[\w.:\[\]()<>%-]{1,253}"
# ssh: Could not resolve hostname nccl-tests-worker-0.nccl-tests.default.svc: Name or service not known
_RESOLVE = re.compile(rf"\bssh: Could not resolve hostname (?P<host>{_HOST}): (?P<detail>[^\n]{{1,120}}?)\s*$")
# localhost: ssh: connect to host localhost port 22: Connection refused
_CONNECT = re.compile(rf"\bssh: connect to host (?P<host>{_HOST}) port (?P<port>\d{{1,5}}): (?P<detail>[^\n]{{1,120}}?)\s*$")
# ssh_exchange_identification: Connection closed by remote host
# kex_exchange_identification: read: Connection reset by peer
_KEX = re.compile(r"\b(?:kex|ssh)_exchange_identification: (?P<detail>(?:read: )?Connection (?:closed by remote host|reset by peer)"
                  r"|No banner received)")
# Connection timed out during banner exchange
_BANNER_TIMEOUT = re.compile(r"\bConnection timed out during banner exchange\b")
# No ED25519 host key is known for github.com and you have requested strict checking.
_STRICT = re.compile(rf"\bNo \S{{1,40}} host key is known for (?P<host>{_HOST}) and you have requested strict checking\.")
# Host key verification failed.
_HOSTKEY = re.compile(r"(?:^|: |\s)Host key verification failed\.\s*$")
# root@tensorflow-mnist-worker-1.tensorflow-mnist-worker: Permission denied (publickey,password).
# Permission denied (publickey,password).                    (OpenSSH before 7.x: no user@host)
_DENIED = re.compile(rf"(?:^|\s)(?:(?P<user>[\w.$-]{{1,64}})@(?P<host>{_HOST}): )?Permission denied \((?P<detail>[\w,-]{{1,120}})\)\.\s*$")
# RuntimeError: Using hostfile at /job/hostfile but host=worker-0 was not reachable via ssh. If you are running ...
_DEEPSPEED = re.compile(rf"\bbut host=(?P<host>{_HOST}) was not reachable via ssh\b")

_GATES = ("Could not resolve hostname", "ssh: connect to host", "_exchange_identification:", "during banner exchange",
          "host key is known for", "Host key verification failed.", "Permission denied (", "was not reachable via ssh")

#: strerror(errno) of the connect -> the reason (Linux and BSD wording)
_CONNECT_REASONS = (("Connection refused", "connection_refused"), ("timed out", "timed_out"),
                    ("No route to host", "no_route"), ("Network is unreachable", "no_route"),
                    ("Connection reset", "connection_closed"))


def detect(head: str) -> bool:
    return any(_match(line) is not None for _start, line in lines_with(head, _GATES))


def _match(line: str) -> tuple[str, re.Match[str]] | None:
    if (m := _RESOLVE.search(line)) is not None:
        return "name_resolution", m
    if (m := _CONNECT.search(line)) is not None:
        return next((r for words, r in _CONNECT_REASONS if words in m["detail"]), "unknown"), m
    if (m := _KEX.search(line)) is not None:
        return "connection_closed", m
    if (m := _BANNER_TIMEOUT.search(line)) is not None:
        return "timed_out", m
    if (m := _STRICT.search(line)) is not None or (m := _HOSTKEY.search(line)) is not None:
        return "host_key", m
    if (m := _DENIED.search(line)) is not None:
        return "auth_denied", m
    if (m := _DEEPSPEED.search(line)) is not None:
        return "unknown", m
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    strict_at = -10  # the line of the last "No ... host key is known" (its verification failure follows)
    for n, line in iter_lines_with(_GATES, artefact):
        got = _match(line)
        if got is None:
            continue
        reason, m = got
        result.lines_used += 1
        fields = m.groupdict()
        if reason == "host_key":
            if m.re == _HOSTKEY and n - strict_at <= 3:
                continue  # the strict-checking line just above said which host
            if m.re == _STRICT:  # (==, not is: m.re is the compiled pattern, facts/lazy_re.py)
                strict_at = n
        fb.add(SshConnectionFailed, n, reason=reason, host=fields.get("host"), user=fields.get("user"),
               port=int(fields["port"]) if fields.get("port") else None, detail=fields.get("detail"))
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (r"ssh: Could not resolve hostname \S+: ", r"ssh: connect to host \S+ port \d+: ",
              r"(?:kex|ssh)_exchange_identification: ", r"Connection timed out during banner exchange",
              r"host key is known for \S+ and you have requested strict checking", r"Host key verification failed\.",
              r"Permission denied \([\w,-]+\)\.", r"but host=\S+ was not reachable via ssh")

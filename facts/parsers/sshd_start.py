"""An ssh server that could not start where a launcher needs one: the worker containers of an
MPIJob (kubeflow/mpi-operator runs ``/usr/sbin/sshd -De`` in each worker, and mpirun on the
launcher reaches the workers over ssh), an ssh-launched MPI or DeepSpeed job's nodes.

Sample content (real: from the public thread named, or from the program's source; fixtures/artefacts/sshd_start/)::

    Unable to load host key: /etc/ssh/ssh_host_rsa_key                 (OpenSSH sshd.c: do_log2(ll, "Unable to load
    Unable to load host key: /etc/ssh/ssh_host_ecdsa_key                 host key: %s", ...) per default key file of
    Unable to load host key: /etc/ssh/ssh_host_ed25519_key              pathnames.h, SSHDIR "/ssh_host_rsa_key" ...,
    sshd: no hostkeys available -- exiting.                              then logit("sshd: no hostkeys available -- exiting."))
    INFO spawnerr: can't find command '/usr/sbin/sshd'                  (supervisord, from its source: see below)
    /bin/bash: line 1: /usr/sbin/sshd: No such file or directory         (NVIDIA/cloudai#720, an NGC PyTorch image as MPIJob worker)

The shell's own words for a program that is not there (bash ``%s: line %d: %s: No such file or
directory``, dash ``%s: %d: %s: not found``, sudo ``unable to execute %s: No such file or
directory``) name the sshd path; OpenSSH's sshd.c prints ``sshd: no hostkeys available -- exiting.``
after an ``Unable to load host key: %s`` per key it could not read.

Facts: ``sshd_not_started`` per such line: ``reason`` binary_missing (the image has no
openssh-server) or no_host_keys, the sshd ``path`` where named. The "Unable to load host key"
lines before it count as read. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import SshdNotStarted  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "sshd_start"

# /bin/bash: line 1: /usr/sbin/sshd: No such file or directory
# bash: /usr/sbin/sshd: No such file or directory  /  /bin/sh: 1: /usr/sbin/sshd: not found
# sudo: unable to execute /usr/sbin/sshd: No such file or directory
# INFO spawnerr: can't find command '/usr/sbin/sshd'
#   (Supervisor supervisor/options.py check_execv_args: NotFound("can't find command %r" % filename), logged by
#   supervisor/process.py record_spawnerr: logger.info('spawnerr: %s' % msg); %r of a str quotes it in '')
_MISSING = re.compile(
    r"(?:^|[\s:])(?P<path>/[\w./-]{0,80}/sshd): (?:No such file or directory|not found|command not found)\s*$"
    r"|\bcan't find command '(?P<spath>/[\w./-]{0,80}/sshd)'",
    re.M,
)
# sshd: no hostkeys available -- exiting.
_NOKEYS = re.compile(r"\bsshd: no hostkeys available -- exiting\.", re.M)
# Unable to load host key: /etc/ssh/ssh_host_rsa_key
_HOSTKEY = re.compile(r"^\s*Unable to load host key: \S+\s*$", re.M)


def detect(head: str) -> bool:
    if "sshd" not in head:
        return False
    return _MISSING.search(head) is not None or _NOKEYS.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_MISSING, artefact):
        result.lines_used += 1
        fb.add(SshdNotStarted, n, reason="binary_missing", path=m["path"] or m["spath"],
               message=artefact.lines[n - 1].strip()[:300])
    for n, _m in iter_matches(_NOKEYS, artefact):
        result.lines_used += 1
        fb.add(SshdNotStarted, n, reason="no_host_keys", message=artefact.lines[n - 1].strip()[:300])
    result.lines_used += sum(1 for _ in iter_matches(_HOSTKEY, artefact)) if result.facts else 0
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)/sshd: (?:No such file or directory|not found|command not found)\s*$",
              r"can't find command '/[\w./-]{0,80}/sshd'", r"sshd: no hostkeys available -- exiting\.")

"""A Slurm daemon that gave up during its own start: ``slurmd initialization failed`` and the errors
before it, as slurmd prints them in the foreground (``slurmd -D``, a container's log, a unit's
journal) or writes them to its log file.

slurmd's main() (src/slurmd/slurmd/slurmd.c, the same text from 2.x to 25.x) ends a start whose
setup failed with ``error("slurmd initialization failed"); exit(1)``; what failed is logged just
before it, most often a plugin the configuration names (src/common/plugin.c plugin_context_create:
``"Couldn't load specified plugin name for %s: %s"`` with plugin_strerror's text, ``"Couldn't find
the specified plugin name for %s looking at all files"``, ``"cannot find %s plugin for %s"``; its
caller's ``"cannot create %s context for %s"``), the plugin's own reason before that. Sample content
(real, stackhpc/slurm-k8s-cluster#38, slurmd with cgroup/v2 in a Kubernetes pod with no D-Bus)::

    slurmd: error: cgroup_dbus_attach_to_scope: cannot connect to dbus system daemon: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory
    slurmd: error: _init_new_scope_dbus: scope and/or cgroup directory for slurmstepd could not be set.
    slurmd: error: Couldn't load specified plugin name for cgroup/v2: Plugin init() callback failed
    slurmd: error: cannot create cgroup context for cgroup/v2
    slurmd: error: Unable to initialize cgroup plugin
    slurmd: error: slurmd initialization failed

The prefix is Slurm's log to standard error (src/common/log.c: the program's name and ``: ``, then
``error: ``, ``fatal: ``, ``debug: ``...); its log file writes ``[<ISO time>] `` instead of the name.

Fact: ``slurm_daemon_start_failed`` on the ``initialization failed`` line: ``daemon``, ``first_error``
(the first ``error:``/``fatal:`` message of the same start before it: the chain's beginning, its line in
``first_error_line``), ``plugin`` and ``failure`` (``plugin_missing``: no such plugin is installed, a
Slurm built without it; ``plugin_init_failed``: it loaded and its init failed; ``other``). The chain's
other lines are read as that failure's own and make no fact. A text without the line is not this
reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import SlurmDaemonStartFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "slurm_daemon_start"

# slurmd: error: slurmd initialization failed                     (stackhpc/slurm-k8s-cluster#38, slurmd -D in a pod)
# [2022-11-24T17:19:12.609] error: slurmd initialization failed   (its log file: log.c's "[%s] " ISO time, no name)
_TIME = r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?\] "
_FAILED = re.compile(r"^(?:slurmd: |" + _TIME + r")error: (?P<daemon>slurmd) initialization failed[ \t]*\r?$", re.M)
# any line of the daemon's: its level, when one is printed, then the message
# slurmd: error: cannot create cgroup context for cgroup/v2
# slurmd: debug3: plugin_peek->_verify_syms: found Slurm plugin name:Cgroup v1 plugin type:cgroup/v1 version:0x180b00
_LINE = re.compile(r"^(?:slurmd: |" + _TIME + r")(?:(?P<level>error|fatal|debug\d?|info|verbose|warning): )?(?P<msg>\S[^\n]{0,600})$")
# plugin.c plugin_context_create, the plugin named:
# Couldn't find the specified plugin name for cgroup/v2 looking at all files      (none installed: Slurm built without it)
# cannot find cgroup plugin for cgroup/v2
# Couldn't load specified plugin name for cgroup/v2: Plugin init() callback failed (it loaded; its init() failed)
_MISSING = re.compile(r"^(?:Couldn't find the specified plugin name for (?P<a>[\w/.+-]{1,64}) looking at all files"
                      r"|cannot find [\w/.+-]{1,64} plugin for (?P<b>[\w/.+-]{1,64}))")
_INIT = re.compile(r"^Couldn't load specified plugin name for (?P<p>[\w/.+-]{1,64}): ")
# how far back a start's chain is looked for: slurmd's start logs a few dozen lines at most before giving up
_CHAIN = 60


def detect(head: str) -> bool:
    return "initialization failed" in head and _FAILED.search(head) is not None


def _chain(lines: list[str], end: int) -> tuple[int, int | None, str, str, str]:
    """The daemon's lines before line ``end`` (0-based) of the same start: (first line of the chain, the
    first error's index or None, its message, the plugin named, the failure)."""
    start, first, msg, plugin, failure = end, None, "", "", "other"
    i = end - 1
    while i >= 0 and end - i <= _CHAIN:
        m = _LINE.match(lines[i])
        if m is None or _FAILED.match(lines[i]):  # another program's line, or an earlier start's end
            break
        start = i
        if m["level"] in ("error", "fatal"):
            first, msg = i, m["msg"].strip()
        i -= 1
    for j in range(start, end):
        m = _LINE.match(lines[j])
        if m is None or m["level"] not in ("error", "fatal"):
            continue
        text = m["msg"]
        if (mm := _MISSING.match(text)) is not None:
            plugin, failure = mm["a"] or mm["b"], "plugin_missing"
            break
        if (mi := _INIT.match(text)) is not None:
            plugin, failure = mi["p"], "plugin_init_failed"
            break
    return start, first, msg, plugin, failure


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    used: set[int] = set()
    for n, line in enumerate(lines):
        if "initialization failed" not in line or (m := _FAILED.match(line)) is None:
            continue
        start, first, msg, plugin, failure = _chain(lines, n)
        b.add(SlurmDaemonStartFailed, n + 1, daemon=m["daemon"], first_error=msg[:300],
              first_error_line=first + 1 if first is not None else None, plugin=plugin, failure=failure)
        used.update(range(start, n + 1))
    result.lines_used += len(used)
    return result


#: the line signatures this reader owns
SIGNATURES = (_FAILED,)

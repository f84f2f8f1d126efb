"""LXC's log of a container start (``lxc info --show-log <name>`` of LXD, ``lxc.log``, ``lxc-start -l``), its
stderr lines, and LXD's report that the start failed.

LXC writes one line per event to the container's log file, src/lxc/log.c log_append_logfile::

    "%s%s%s %s %-8s %s - %s:%s:%d - "   log_prefix ("lxc"; a tool's name, "lxc-start"), " <container>",
                                       the UTC time "%Y%m%d%H%M%S.%3s", the priority, the category,
                                       file:function:line, then the message

and the same events of priority ERROR and above on stderr, log_append_stderr: ``"%s: %s%s" "%s: %s: %d "``
(``lxc-start: c1: conf.c: run_buffer: 322 Script exited with status 1``). LXD runs the start as a subprocess and says
``Error: Failed to run: <lxd> forkstart <name> <dir> <config>: `` when it fails, pointing at the log. A hook that
exits non-zero is reported by run_buffer (utils.c: ``"Script exited with status %d"``) and then by the step that ran
it (conf.c: ``"Failed to run mount hooks"``, ``"Failed to run pre-mount hooks"``, ``"Failed to run autodev hooks"``;
start.c: ``"Failed to run lxc.hook.pre-start for container \\"%s\\""``, ``lxc.hook.start``, ``lxc.hook.start-host``,
``lxc.hook.post-stop``). LXD's ``nvidia.runtime=true`` and LXC's own hooks/nvidia set a mount hook that runs
``nvidia-container-cli configure`` on the container's root file system, so its failure is a "mount hooks" failure
(the hook's output is logged at DEBUG only: ``Script ... produced output: ...``). Sample lines (real,
canonical/lxd#6262: LXD 3.x with nvidia.runtime true, the excerpt cut in the last line)::

    Error: Failed to run: /snap/lxd/current/bin/lxd forkstart template /var/snap/lxd/common/lxd/containers /var/snap/lxd/common/lxd/logs/template/lxc.conf:
    lxc template 20190930165510.723 ERROR    conf - conf.c:run_buffer:352 - Script exited with status 1
    lxc template 20190930165510.723 ERROR    conf - conf.c:lxc_setup:3653 - Failed to run mount hooks
    lxc template 20190930165510.723 ERROR    start - start.c:do_start:1321 - Failed to setup container "template"
    lxc template 20190930165510.723 ERROR    sync - sync.c:__sync_wait:62 - An error occurred in anoth

Facts: ``lxc_start_error`` per line of priority ERROR, CRIT, ALERT or FATAL and per LXD forkstart failure: the
``container``, the ``function`` that logged it (``forkstart`` for LXD's line), the ``message``, and ``hook`` (``mount``,
``pre-mount``, ``autodev``, ``pre-start``, ``start``, ``start-host``, ``post-stop``) where the line says a hook
step failed. Lines of lower priority are read and give nothing. Empty input, or no line of these forms: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import LxcStartError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "lxc_log"

_LEVELS = "TRACE|DEBUG|INFO|NOTICE|WARN|ERROR|CRIT|ALERT|FATAL"
# lxc template 20190930165510.723 ERROR    conf - conf.c:lxc_setup:3653 - Failed to run mount hooks   (canonical/lxd#6262)
# lxc c1 20230301193658.390 ERROR    conf - ../src/src/lxc/conf.c:run_buffer:322 - Script exited with status 1
#   (log.c's "%s%s%s %s %-8s %s - %s:%s:%d - ": the container's name is left out where none is set; a few blanks of
#   indentation allowed, as a paste under a list item has them; every part bounded)
_FILE_LINE = re.compile(r"^[ \t]{0,8}lxc(?:-[a-z]{1,20})?(?: (?P<name>[^ \n]{1,200}))? \d{14}\.\d{1,9} "
                        r"(?P<level>" + _LEVELS + r") {0,8}[\w.-]{1,60} - [^\s:]{1,200}:(?P<func>\w{1,100}):\d{1,7} - "
                        r"(?P<msg>[^\n]{0,1000})")
# lxc-start: c1: conf.c: run_buffer: 322 Script exited with status 1   (CONSTRUCTED from log.c log_append_stderr's
#   "%s: %s%s" "%s: %s: %d " and utils.c's message: the stderr copy of an ERROR or worse)
_STDERR_LINE = re.compile(r"^[ \t]{0,8}lxc(?:-[a-z]{1,20})?: (?:(?P<name>[^\s:]{1,200}): )?[^\s:]{1,200}\.c: "
                          r"(?P<func>\w{1,100}): \d{1,7} (?P<msg>[^\n]{0,1000})")
# Error: Failed to run: /snap/lxd/current/bin/lxd forkstart template /var/snap/lxd/common/lxd/containers ...   (canonical/lxd#6262)
_FORKSTART = re.compile(r"^[ \t]{0,8}(?:Error: )?Failed to run: [^\s]{0,200}/(?:lxd|incus) forkstart (?P<name>[^\s]{1,200}) "
                        r"(?P<msg>[^\n]{0,1000})")
# Failed to run mount hooks   Failed to run pre-mount hooks   Failed to run autodev hooks   (conf.c)
# Failed to run lxc.hook.pre-start for container "c1"   Failed to run lxc.hook.start-host   (start.c)
_HOOK = re.compile(r"Failed to run (?:(?P<conf>pre-mount|mount|autodev) hooks|lxc\.hook\.(?P<start>pre-start|start-host|start|post-stop)\b)")
_SERIOUS = ("ERROR", "CRIT", "ALERT", "FATAL")
_MARKERS = ("lxc", "forkstart ")


def detect(text: str) -> bool:
    return any(_FILE_LINE.match(line) or _STDERR_LINE.match(line) or _FORKSTART.match(line)
               for _s, line in lines_with(text, _MARKERS))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (m := _FILE_LINE.match(line)) is not None:
            result.lines_used += 1
            if m["level"] not in _SERIOUS:
                continue
            func = m["func"]
        elif (m := _STDERR_LINE.match(line)) is not None:
            result.lines_used += 1
            func = m["func"]
        elif (m := _FORKSTART.match(line)) is not None:
            result.lines_used += 1
            func = "forkstart"
        else:
            continue
        msg = line.strip() if func == "forkstart" else m["msg"].strip()
        h = _HOOK.search(msg) if func != "forkstart" else None
        fb.add(LxcStartError, n, container=m["name"], function=func, message=msg,
               hook=(h["conf"] or h["start"]) if h else None)
    return result


#: line signatures (facts/classify.py); (?m): one RE2 set over the whole text
SIGNATURES = (r"(?m)^[ \t]*lxc(?:-[a-z]+)?(?: [^ \n]+)? \d{14}\.\d+ (?:" + _LEVELS + r") ",
              r"(?m)^[ \t]*lxc(?:-[a-z]+)?: (?:[^\s:]+: )?[^\s:]+\.c: \w+: \d+ ",
              r"(?m)^[ \t]*(?:Error: )?Failed to run: \S*/(?:lxd|incus) forkstart ")

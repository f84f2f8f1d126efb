"""lxc_log: LXC's log of a container start, its stderr lines and LXD's forkstart failure, on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import lxc_log as r
import parser_rows

ROWS = [
    # canonical/lxd#6262 (LXD 3.x, LXC 3.x's "conf.c:run_buffer:352")
    ("lxc template 20190930165510.723 ERROR    conf - conf.c:lxc_setup:3653 - Failed to run mount hooks",
     ("template", "lxc_setup", "mount")),
    ("lxc template 20190930165510.723 ERROR    conf - conf.c:run_buffer:352 - Script exited with status 1",
     ("template", "run_buffer", None)),
    # CONSTRUCTED from log.c's "%s%s%s %s %-8s %s - %s:%s:%d - " with LXC 5's meson paths and start.c's message
    ('lxc c1 20230301193658.390 ERROR    start - ../src/src/lxc/start.c:__lxc_start:2107 - Failed to run lxc.hook.pre-start for container "c1"',
     ("c1", "__lxc_start", "pre-start")),
    # no container name set (log_container_name NULL: the blank and the name left out)
    ("lxc 20230301193658.390 ERROR    conf - ../src/src/lxc/conf.c:lxc_setup:4441 - Failed to run autodev hooks",
     (None, "lxc_setup", "autodev")),
    # CONSTRUCTED from log.c log_append_stderr's "%s: %s%s" "%s: %s: %d " (an ERROR's copy on stderr)
    ("lxc-start: c1: conf.c: run_buffer: 322 Script exited with status 1", ("c1", "run_buffer", None)),
    # LXD's client (canonical/lxd#6262)
    ("Error: Failed to run: /snap/lxd/current/bin/lxd forkstart template /var/snap/lxd/common/lxd/containers "
     "/var/snap/lxd/common/lxd/logs/template/lxc.conf: ", ("template", "forkstart", None)),
    # prose naming the tool is no log line
    ("sudo lxc start template then it shows:", None),
    ("lxc-start: cannot start container", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    assert parser_rows.line_fields(r, line, ("container", "function", "hook")) == ([want] if want else [])


@pytest.mark.parametrize("line", [
    # CONSTRUCTED from log.c's format and LXC's messages below ERROR (idmap_utils.c INFO("newuidmap binary is missing"),
    # utils.c run_script_argv's INFO("Executing script \"%s\" for container \"%s\"", ...); a WARN the same way)
    "lxc gpu1 20240105101500.114 INFO     idmap_utils - ../src/lxc/idmap_utils.c:lxc_map_ids:165 - newuidmap binary is missing",
    'lxc gpu1 20240105101500.120 INFO     utils - ../src/lxc/utils.c:run_script_argv:588 - Executing script "/usr/share/lxc/hooks/nvidia" for container "gpu1"',
    "lxc gpu1 20240105101500.121 WARN     cgfsng - ../src/lxc/cgroups/cgfsng.c:cgfsng_setup_limits:3302 - Invalid argument - Ignoring cgroup limit",
])
def test_lines_below_error_are_read_without_a_fact(line):
    assert parser_rows.read_without_fact(r, line)


def test_lxd6262_the_mount_hook_and_what_gave_up_after_it():
    res = parser_rows.read_fixture(r, "lxd6262_nvidia_runtime_mount_hooks_failed.txt", "lxc.log")
    assert [(f.function, f.hook, f.evidence.line) for f in res.facts] == [
        ("run_buffer", None, 12), ("lxc_setup", "mount", 13), ("do_start", None, 14), ("__sync_wait", None, 15)]
    assert res.facts[3].message == "An error occurred in anoth"  # the excerpt's cut line, an error all the same


@pytest.mark.parametrize("text", ["", "Name: template\nStatus: Stopped\nLog:\n\n", "lxc profile set default nvidia.runtime true\n"])
def test_not_this_kind(text):
    assert not r.detect(text)

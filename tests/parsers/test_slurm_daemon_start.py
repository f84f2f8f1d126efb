"""slurm_daemon_start: slurmd's start that failed, on a real paste and on the forms of Slurm's source."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import slurm_daemon_start as sds
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/slurm_daemon_start"


def parse_text(text: str):
    return sds.parse(Artefact(path="slurmd.log", text=text, node="n1"))


def test_k8s_pod_cgroup_v2_without_dbus():
    """stackhpc/slurm-k8s-cluster#38: seven slurmd error lines, the first the D-Bus connection, the last the exit."""
    text = (FIX / "slurmk8s38_cgroup_v2_no_dbus.log").read_text()
    assert sds.detect(text)
    r = sds.parse(Artefact(path="slurmd.log", text=text, node="n1"))
    (f,) = r.facts
    assert (f.evidence.line, f.daemon, f.first_error_line, f.plugin, f.failure) == (7, "slurmd", 1, "cgroup/v2", "plugin_init_failed")
    assert f.first_error.startswith("cgroup_dbus_attach_to_scope: cannot connect to dbus system daemon")
    assert r.lines_used == 7 and r.errors == []


def test_log_file_form_with_debug_lines_and_a_missing_plugin():
    # CONSTRUCTED from slurmd's log file form (log.c's "[%s] " ISO time) and plugin.c's strings: a Slurm
    # built without cgroup_v2.so, a debug line of the loader inside the chain, an earlier start's end before it
    text = ("[2022-11-24T17:10:00.100] error: slurmd initialization failed\n"
            "[2022-11-24T17:19:12.600] error: Couldn't find the specified plugin name for cgroup/v2 looking at all files\n"
            "[2022-11-24T17:19:12.601] debug3: plugin_peek->_verify_syms: found Slurm plugin name:Cgroup v1 plugin type:cgroup/v1\n"
            "[2022-11-24T17:19:12.609] error: cannot find cgroup plugin for cgroup/v2\n"
            "[2022-11-24T17:19:12.609] error: Unable to initialize cgroup plugin\n"
            "[2022-11-24T17:19:12.609] error: slurmd initialization failed\n")
    r = parse_text(text)
    first, second = r.facts
    assert (first.evidence.line, first.first_error, first.first_error_line) == (1, "", None)
    assert (second.evidence.line, second.first_error_line, second.plugin, second.failure) == (6, 2, "cgroup/v2", "plugin_missing")


def test_a_running_slurmd_and_other_programs_are_not_read():
    # CONSTRUCTED: a running slurmd's errors with no failed start, and the words in prose
    for text in ("slurmd: error: Unable to initialize cgroup plugin\nslurmd: error: cannot create cgroup context for cgroup/v2\n",
                 "the docs say slurmd initialization failed when cgroup.conf is wrong\n",
                 "slurmstepd: error: slurmd initialization failed\n"):
        assert not sds.detect(text), text
        assert parse_text(text).facts == []

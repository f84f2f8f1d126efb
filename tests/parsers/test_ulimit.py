"""ulimit: process resource limits from ulimit -a / -l (bash, busybox, zsh, dash) and /proc/<pid>/limits."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import libibverbs, ulimit
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/ulimit"


def facts(text: str):
    return ulimit.parse(Artefact(path="t.txt", text=text, node="node1")).facts


def memlock(text: str):
    return [(f.evidence.line, f.value, f.unlimited, f.limit_bytes, f.source) for f in facts(text) if f.resource == "memlock"]


def test_bash_ulimit_a_table():
    # every limit line of bash's table, after the `ulimit -l` answer (tensorflow/tensorflow#11392)
    text = (FIX / "tf11392_ulimit_l_and_a_unlimited.txt").read_text()
    got = {f.resource: (f.value, f.limit_bytes) for f in facts(text) if f.source == "bash"}
    assert got["memlock"] == ("unlimited", None)
    assert got["nofile"] == ("4096", None)
    assert got["msgqueue"] == ("819200", 819200)
    assert len(got) == 16


def test_ulimit_l_answer_and_unlimited_table():
    text = (FIX / "tf11392_ulimit_l_and_a_unlimited.txt").read_text()
    assert ulimit.detect(text)
    assert memlock(text) == [(2, "unlimited", True, None, "ulimit_l"), (9, "unlimited", True, None, "bash")]


def test_single_line_kbytes():
    assert memlock((FIX / "gardenlinux170_containerd_64mb.txt").read_text()) == [(1, "65536", False, 67108864, "bash")]


# the format strings of each shell's source (facts/parsers/ulimit.py's docstring)
@pytest.mark.parametrize("line,want", [
    ("max locked memory (kb)          (-l) 64", ("64", False, 65536, "ash")),  # busybox "%-32s(-%c) "
    ("-l: locked-in-memory size (kbytes) 64", ("64", False, 65536, "zsh")),  # zsh "-%c: %-32s"
    ("locked memory(kbytes) 8192", ("8192", False, 8388608, "dash")),  # dash "%-20s "
    ("-l: locked memory(kbytes)   unlimited", ("unlimited", True, None, "dash")),
    ("Max locked memory         65536                65536                bytes     ", ("65536", False, 65536, "proc_limits")),
])
def test_other_shells_and_proc_limits(line, want):
    assert ulimit.detect(line + "\n")
    assert memlock(line + "\n") == [(1, *want)]


def test_a_bare_number_is_not_a_limit():
    assert not ulimit.detect("64\nunlimited\n")
    assert facts("ulimit -n\n1024\n") == []  # only -l's answer is read without its table


def test_libibverbs_memlock_warning_is_a_resource_limit():
    text = "libibverbs: Warning: RLIMIT_MEMLOCK is 32768 bytes.\n    This will severely limit memory registrations.\n"
    got = libibverbs.parse(Artefact(path="t.txt", text=text, node="node1")).facts
    lim = [f for f in got if f.kind == "resource_limit"]
    assert [(f.resource, f.limit_bytes, f.source, f.evidence.line) for f in lim] == [("memlock", 32768, "libibverbs", 1)]
    assert [f.what for f in got if f.kind == "verbs_warning"] == ["memlock_limit"]

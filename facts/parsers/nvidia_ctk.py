"""The NVIDIA Container Toolkit CLI's own log (``nvidia-ctk cdi generate``, ``nvidia-ctk runtime
configure``, the ``nvidia-container-toolkit-cdi-generator`` service's journal).

nvidia-ctk logs through logrus: on a terminal ``LEVEL[seconds] message`` (``INFO[0000]``,
``WARN[0000]``, ``ERRO[0000]``), in a journal ``time=".." level=warning msg=".."``. A command that
fails returns its error to main, which logs it at ERRO. Sample content (real:
NVIDIA/nvidia-container-toolkit#972 on WSL, #396; the journal error: #1376)::

    INFO[0000] Using /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.120
    WARN[0000] Ignoring error in locating libnvidia-sandboxutils.so.1: pattern libnvidia-sandboxutils.so.1 not found
    libnvidia-sandboxutils.so.1: not found
    INFO[0000] Auto-detected mode as 'wsl'
    WARN[0000] Could not locate /dev/dri/controlD64: pattern /dev/dri/controlD64 not found
    WARN[0000] Ignoring 32-bit libraries for libcuda.so: [/lib/i386-linux-gnu/libcuda.so.545.29.06]
    Oct 23 10:22:21 ubuntu nvidia-ctk[64294]: time="2025-10-23T10:22:21+08:00" level=error msg="invalid discovery mode: cdi"

The warnings it gives on every host for what a driver release may lack (nvidia-container-toolkit
internal/lookup and pkg/nvcdi: ``Could not locate %v: %v`` for an optional device node or
library, ``Ignoring error in locating %v: %v``, ``Ignoring 32-bit libraries for %v: %v``,
``Failed to evaluate symlink %v; ignoring``) are read and give nothing, with the error text's
second line (``libnvidia-sandboxutils.so.1: not found``). Facts: ``container_toolkit_error``
(stage ``nvidia-ctk``) for an ERRO/FATA line (``failed to generate CDI spec: ...``: no spec, so
CDI requests for the GPUs fail); ``cdi_device_listed`` per device name ``nvidia-ctk cdi list`` prints
after ``Found N CDI devices`` (a spec on the host names it); ``text_error_line`` for any other WARN/ERRO line, so a warning
this reader does not know stays visible. INFO lines are read past. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import CdiDeviceListed, ContainerToolkitError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.steth import TextErrorLine  # noqa: F401
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_ctk"

# WARN[0000] Could not locate /dev/dri/controlD64: pattern /dev/dri/controlD64 not found       (logrus TTY)
# Jun 17 21:11:58 source-server nvidia-ctk[6690]: time="2026-06-17T21:11:58-04:00" level=warning msg="Ignoring error in locating libnvidia-sandboxutils.so.1: ..."
_LINE = re.compile(r"^(?:[ \t]*(?P<tty>INFO|WARN|ERRO|FATA|DEBU|TRAC|PANI)\[\d{4,}\] (?P<msg>(?:[^\n]*[^ \t\r\n])?)"
                   r"|.*?\blevel=(?P<lvl>[a-z]{4,7}) msg=\"(?P<qmsg>(?:[^\"\\\n]|\\.)*)\"(?:[^\n]*[^ \t\r\n])?)[ \t\r]*$", re.M)
# what only nvidia-ctk says (detect and SIGNATURES): its mode, device and library selection, its CDI spec and
# runtime configuration, the warnings below
_OWN = (r"Auto-detected mode as |Selecting /\S+ as /|Using driver version \d|Generated CDI spec with version"
        r"|Ignoring error in locating |Could not locate /|Ignoring 32-bit libraries for |failed to generate CDI spec: "
        r"|Wrote updated config to /|It is recommended that (?:docker|containerd|crio) daemon be restarted"
        r"|Found \d+ CDI devices")
_SIGNATURE = re.compile(r"(?:^|\n)[ \t]*(?:INFO|WARN|ERRO|FATA)\[\d{4,}\] (?:" + _OWN + r")|\blevel=[a-z]{4,7} msg=\"(?:" + _OWN + r")")
# the warnings nvidia-ctk gives for what a host may lack and goes on without (internal/lookup, pkg/nvcdi):
# Could not locate /dev/dri/controlD64: pattern /dev/dri/controlD64 not found
# Ignoring error in locating libnvidia-sandboxutils.so.1: pattern libnvidia-sandboxutils.so.1 not found
# Ignoring 32-bit libraries for libcuda.so: [/lib/i386-linux-gnu/libcuda.so.545.29.06]
# Failed to evaluate symlink /dev/dri/by-path/pci--card; ignoring                                  (ssst0n3/fake-nvidia#4)
_BENIGN = re.compile(r"^(?:Could not locate \S+: |Ignoring error in locating \S+: |Ignoring 32-bit libraries for \S+: "
                     r"|Failed to evaluate symlink \S+; ignoring$)")
# the second line of a benign warning's error text: "libnvidia-sandboxutils.so.1: not found"
_CONTINUED = re.compile(r"^\S+: not found[ \t\r]*$")
# nvidia-ctk cdi list: the devices of the CDI specs it reads (/etc/cdi, /var/run/cdi), one fully-qualified name a line
# after its count (cmd/nvidia-ctk/cdi/list: "Found %d CDI devices"):    (NVIDIA/nvidia-container-toolkit#1940)
# INFO[0000] Found 3 CDI devices
# nvidia.com/gpu=0
_CDI_FOUND = re.compile(r"^Found (?P<n>\d{1,4}) CDI devices$")
_CDI_NAME = re.compile(r"^[ \t]*(?P<name>[\w.-]+/[\w.-]+=[\w.:-]+)[ \t\r]*$")
_ERROR_LEVELS = frozenset({"ERRO", "FATA", "PANI", "error", "fatal", "panic"})
_WARN_LEVELS = frozenset({"WARN", "warning"})


def detect(head: str) -> bool:
    return _SIGNATURE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    benign_before = False
    listed = 0  # device names still to come after "Found N CDI devices"
    for n, line in enumerate(lines, 1):
        m = _LINE.match(line)
        if m is None:
            if listed and (d := _CDI_NAME.match(line)) is not None:
                b.add(CdiDeviceListed, n, device=d["name"])
                result.lines_used += 1
                listed -= 1
                continue
            listed = 0
            if benign_before and _CONTINUED.match(line):
                result.lines_used += 1
            benign_before = False
            continue
        listed = 0
        level = m["tty"] or m["lvl"]
        msg = m["msg"] if m["tty"] else m["qmsg"].replace("\\n", "\n").split("\n")[0]
        benign_before = False
        result.lines_used += 1
        if (f := _CDI_FOUND.match(msg)) is not None:
            listed = int(f["n"])
        elif level in _ERROR_LEVELS:
            b.add(ContainerToolkitError, n, stage="nvidia-ctk", message=msg[:500])
        elif level in _WARN_LEVELS:
            if _BENIGN.match(msg):
                benign_before = True
            else:
                b.add(TextErrorLine, n, message=line.strip()[:400])
    return result


SIGNATURES = (_SIGNATURE,)

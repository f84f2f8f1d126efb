"""A Go program's crash as its runtime prints it on stderr (``kubectl logs --previous`` of a crashed
pod, a journal, a terminal), pasted without a log its own reader knows: a panic, a fatal error or a
fatal signal, then the goroutines' stacks. Sample content (real: NVIDIA/k8s-device-plugin#338's
device plugin, koordinator-sh/koordinator#678's koordlet, NVIDIA/dcgm-exporter#412's exporter)::

    panic: Unable to load resource managers to manage plugin devices: error building device map: ...
    goroutine 1 [running]:
    main.(*migStrategyNone).GetPlugins(0xc00011c278)
            /build/cmd/nvidia-device-plugin/mig-strategy.go:57 +0x1a5
    k8s.io/apimachinery/pkg/util/runtime.logPanic({0x203d960, 0x3961100})
    	/go/pkg/mod/k8s.io/apimachinery@v0.22.6/pkg/util/runtime/runtime.go:74 +0x85
    github.com/koordinator-sh/koordinator/pkg/koordlet/statesinformer.(*statesInformer).updateDevice.func1.1(0x0, 0x26fd9c8)
    	/go/src/github.com/koordinator-sh/koordinator/pkg/koordlet/statesinformer/states_device_linux.go:102 +0x34
    SIGSEGV: segmentation violation
    PC=0x7f5bb75066aa m=11 sigcode=1 addr=0x4
    signal arrived during cgo execution
    goroutine 1 gp=0xc0000061c0 m=11 mp=0xc000680008 [syscall]:

The formats are the runtime's (Go src/runtime): printpanics ``panic: <value>`` (a runtime error's
``[signal SIGSEGV: segmentation violation code=... addr=... pc=...]`` under it), fatalthrow ``fatal
error: <msg>``, sighandler's signal name line then ``PC=%x m=%d sigcode=%d`` and, for a signal in C
code, ``signal arrived during cgo execution``; traceback's ``goroutine <id> [<status>]:`` (1.23+ also
``gp= m= mp=``), each frame a ``<package path>.<function>(<args>)`` line over a ``<file>:<line> +0x..``
line, and ``created by <function>``. A panic or fatal error counts only with a goroutine header within
its next 4 lines (a sentence quoting ``panic:`` is not a crash).

Which program crashed is read from the frames, not guessed from the file: the innermost frame whose
function has a module path (``github.com/<org>/<repo>/...``, ``k8s.io/<repo>/...``) and whose file is
not under the module cache (``/pkg/mod/``) or ``vendor/`` (a dependency the program was built with),
else the ``created by`` line's. A ``main.`` frame names no module.

Facts: ``go_program_crash`` per crash (its kind, message, module, that frame's function, and
``in_cgo``). Runs only on a file no other reader recognised (dcgm-exporter's log reads the same
lines as the exporter's end; the device plugin's reader its own panic). Empty input, or no crash
line: not recognised.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import GoProgramCrash  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "go_runtime_crash"
#: run only on files that no other parser recognised (facts/registry.py)
FALLBACK = True

# panic: runtime error: invalid memory address or nil pointer dereference     (runtime/panic.go printpanics)
# panic: Unable to load resource managers to manage plugin devices: error building device map: ...   (NVIDIA/k8s-device-plugin#338)
# fatal error: unexpected signal during runtime execution                      (runtime/panic.go fatalthrow)
# and a Kubernetes component's panic as k8s.io/apimachinery's HandleCrash logs it through klog before it panics on
# (ReallyCrash, the default), its stack on the next lines:
# E1008 23:33:56.306763 2220922 runtime.go:78] Observed a panic: "invalid memory address or nil pointer dereference" (runtime error: invalid memory address or nil pointer dereference)
#   (koordinator-sh/koordinator#678: koordlet; logPanic's klog.Errorf("Observed a panic: %#v (%v)\n%s", ...))
# E0616 20:43:20.582735       1 panic.go:336] "Observed a panic" worker=1 panic="runtime error: invalid memory address or nil pointer dereference" panicGoValue=...
#   (llm-d-incubation/llm-d-fast-model-actuation#572: structured klog, apimachinery 0.30+)
# (the panic's text ends on a non-space: a lazy run that may end on a blank scanned a run of blanks before the line's
# last word to its end once per step into it, 1.6 s on bench/redos.py's 120,000-character line; now linear)
_PANIC = re.compile(r"^\s*(?:(?P<kind>panic|fatal error): (?P<msg>\S(?:.*\S)?)"
                    r"|[IWEF]\d{4} [\d:.]{8,20} +\d{1,10} [\w.-]{1,60}:\d{1,6}\] (?:Observed a panic: (?P<old>\S(?:.{0,2000}?\S)?)"
                    r"|\"Observed a panic\"(?: \w{1,30}=(?:\d{1,10}|\"[^\"]{0,200}\"))*? panic=\"(?P<new>[^\"]{1,2000})\"(?: .*)?))\s*$")
# SIGSEGV: segmentation violation                  (NVIDIA/dcgm-exporter#412, #318: runtime/signal_unix.go sighandler
# PC=0x7f5bb75066aa m=11 sigcode=1 addr=0x4         prints sigtable[sig].name, then "PC=", " m=", " sigcode=")
# signal arrived during cgo execution
_SIGNAL = re.compile(r"^\s*(?P<sig>SIG[A-Z]{2,8}): (?P<what>[a-z][a-z -]{2,60}[a-z])\s*$")
_PC = re.compile(r"^\s*PC=0x[0-9a-f]{1,16} m=\d{1,6} sigcode=")
_CGO = "signal arrived during cgo execution"
# goroutine 1 [running]:                                        (NVIDIA/k8s-device-plugin#338)
# goroutine 1 gp=0xc0000061c0 m=11 mp=0xc000680008 [syscall]:   (NVIDIA/dcgm-exporter#412, Go 1.23)
_GOROUTINE = re.compile(r"^\s*goroutine \d{1,9} (?:gp=0x[0-9a-f]{1,16} m=\S{1,6} mp=\S{1,20} )?\[[^\]\n]{1,60}\]:\s*$")
# github.com/koordinator-sh/koordinator/pkg/koordlet/statesinformer.(*statesInformer).updateDevice.func1.1(0x0, 0x26fd9c8)
# github.com/NVIDIA/go-dcgm/pkg/dcgm._Cfunc_dcgmGetCpuHierarchy(0x7fff      (NVIDIA/dcgm-exporter#412, cut by the paste)
# created by main.initializeK8sConnector in goroutine 1                      (runtime/traceback.go "created by ")
# (the package path: a host with a dot, then path elements; the function after the last element's first dot)
_FRAME = re.compile(r"^\s*(?P<created>created by )?(?P<func>(?P<host>[a-z0-9.-]{1,60}\.[a-z]{2,10})/(?P<path>[\w.~-]{1,100}"
                    r"(?:/[\w.~-]{1,100}){0,20}?)\.[\w.()*\[\]-]{1,200}?)(?:\(|\s+in goroutine \d|\s*$)")
#         /go/pkg/mod/k8s.io/apimachinery@v0.22.6/pkg/util/runtime/runtime.go:74 +0x85    (koordinator#678: a dependency)
#         /home/runner/go/pkg/mod/go.uber.org/zap@v1.27.0/sugar.go:378 +0x65             (leptonai/gpud#412)
#         /build/vendor/github.com/urfave/cli/v2/app.go:322 +0x953                      (NVIDIA/k8s-device-plugin#338)
_DEP_FILE = re.compile(r"^\s+\S*(?:/pkg/mod/|/vendor/)\S*:\d{1,7}\b")
#: hosts whose module path is <host>/<owner>/<repo>; others (k8s.io, go.uber.org) are <host>/<repo>
_THREE = ("github.com", "gitlab.com", "bitbucket.org")


def detect(text: str) -> bool:
    lines = text.splitlines()
    return any(crash_at(lines, i) is not None for i, line in enumerate(lines)
               if ("panic" in line or "fatal error: " in line or "SIG" in line))


def crash_at(lines: list[str], i: int) -> tuple[str, str, bool] | None:
    line = lines[i]
    if "SIG" in line and (m := _SIGNAL.match(line)) is not None:
        if i + 1 < len(lines) and _PC.match(lines[i + 1]):
            return "signal", f"{m['sig']}: {m['what']}", any(_CGO in x for x in lines[i + 1:i + 3])
        return None
    if "panic" not in line and "fatal error: " not in line:
        return None
    if (m := _PANIC.match(line)) is not None and any(_GOROUTINE.match(x) for x in lines[i + 1:i + 5]):
        if m["kind"] is None:
            return "panic", (m["old"] or m["new"]), False
        return ("panic" if m["kind"] == "panic" else "fatal_error"), m["msg"], False
    return None


def _module(host: str, path: str) -> str:
    parts = path.split("/")
    keep = 2 if host in _THREE else 1
    return "/".join([host, *parts[:keep]]).lower()


def _program(lines: list[str], start: int) -> tuple[str | None, str | None]:
    """The module and function of the program's own innermost frame in the stack after ``start``."""
    created: tuple[str, str] | None = None
    for j in range(start, min(len(lines), start + 400)):
        line = lines[j]
        if j > start + 1 and (_PANIC.match(line) or _SIGNAL.match(line)):
            break
        if (m := _FRAME.match(line)) is None:
            continue
        dep = j + 1 < len(lines) and _DEP_FILE.match(lines[j + 1]) is not None
        if m["created"]:
            created = created or (_module(m["host"], m["path"]), m["func"])
            continue
        if not dep:
            return _module(m["host"], m["path"]), m["func"]
    return created if created else (None, None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    for i, line in enumerate(lines):
        if not ("panic" in line or "fatal error: " in line or "SIG" in line):
            continue
        if (got := crash_at(lines, i)) is None:
            continue
        crash, msg, cgo = got
        module, function = _program(lines, i + 1)
        result.lines_used += 1
        fb.add(GoProgramCrash, i + 1, crash=crash, message=msg[:400], module=module,
               function=function[:300] if function else None, in_cgo=cgo)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)^\s*(?:panic|fatal error): \S", r"(?m)^\s*SIG[A-Z]{2,8}: [a-z]", r"\] (?:Observed a panic: |\"Observed a panic\")")

"""dcgm-exporter's own log (``kubectl logs nvidia-dcgm-exporter-...``, ``journalctl -u dcgm-exporter``).

Sample content: logrus's text form of releases up to 3.x (NVIDIA/dcgm-exporter#202; its
``logrus.Info("Starting dcgm-exporter")`` in pkg/cmd/app.go), logrus on a terminal (its
TextFormatter's TTY form, with the messages of pkg/cmd/app.go) and log/slog's text form of 4.x
(NVIDIA/dcgm-exporter#612,
``slog.Info("Starting dcgm-exporter", slog.String("Version", version))``; through Go's ``log``
package when no handler is set, NVIDIA/dcgm-exporter#450, 4.1.1)::

    time="2023-10-30T17:03:32Z" level=info msg="Starting dcgm-exporter"
    time="2023-10-30T17:03:34Z" level=info msg="DCGM successfully initialized!"
    INFO[0000] Starting dcgm-exporter
    ERRO[0000] Encountered a failure.
    time=2026-01-13T14:23:40.195Z level=INFO msg="Starting dcgm-exporter" Version=4.4.1-4.6.0
    2025/02/27 02:51:27 ERROR Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND

Facts: ``dcgm_exporter_error`` per line at error, fatal or panic level, with its message and
whether the exporter ends there (fatal and panic exit; ``Encountered a failure.`` is what its
main prints before it exits) and whether DCGM answered that the nv-hostengine connection is gone
(``Host engine connection invalid/disconnected``, which also makes a log of error lines alone the
exporter's: NVIDIA/gpu-monitoring-tools#188). An NVML failure, on its own line (``Error: Failed to initialize NVML``) or as the
exporter's message (4.x's ``Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND``), is
:mod:`nvml_init`'s. Lines at other levels are read as
used, with no fact: a log of them only (the exporter started) checks no GPU.

The exporter logs some failures twice: the function that failed logs the error with its context and returns
it, and main ends on the same error (pkg/dcgmexporter's ``logrus.Errorf("Could not read metrics file '%s':
%v\\n", ...)`` / 4.x ``slog.Error(fmt.Sprintf("Could not read metrics file '%s'; err: %v", ...))``, then
``logrus.Fatal(err)``). An error line that ends with the message of the exiting line right after it is that
one failure: one fact, at the exiting line, with the error's fuller message (NVIDIA/DCGM#232)::

    dcgm_exporter  | time="2025-05-22T03:57:31Z" level=error msg="Could not read metrics file '/etc/dcp-metrics-included.csv': record on line 3: wrong number of fields\\n"
    dcgm_exporter  | time="2025-05-22T03:57:31Z" level=fatal msg="record on line 3: wrong number of fields"
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import (  # noqa: F401 - the fact classes live in facts/kinds
    DcgmExporterError,
)
from stethoscope.facts.parsers import go_runtime_crash, nvml_init
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dcgm_exporter_log"

# time="2020-10-27T20:31:42Z" level=fatal msg="Error watching fields: This request is serviced by a module of DCGM that is not currently loaded"
# time=2026-01-13T14:23:40.195Z level=INFO msg="Starting dcgm-exporter" Version=4.4.1-4.6.0
# time="2024-04-26T09:16:13Z" level=error msg="Encountered a failure." stacktrace="goroutine 1 [running]: ..."
_TEXT = re.compile(r'\btime="?[\dT:.+\-Z]+"? level=(?P<level>[A-Za-z]+)(?:[+-]\d+)? msg=(?:"(?P<q>(?:[^"\\]|\\.)*)"|(?P<bare>\S+))')
# INFO[0000] Starting dcgm-exporter
# ERRO[0000] Encountered a failure.
_TTY = re.compile(r"^\s*(?P<level>DEBU|INFO|WARN|ERRO|FATA|PANI)\[\d{4,}\] (?P<msg>(?:.*\S)?)\s*$")
# 2025/02/27 02:51:27 ERROR Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND   (4.1: slog through Go's log package)
_GOLOG = re.compile(r"^\s*\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?P<level>DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? (?P<msg>(?:.*\S)?)\s*$")
# time="2020-07-09T15:01:09Z" level=fatal msg="could not parse \":9400\" as int value for flag port: strconv.ParseInt: parsing \":9400\": invalid syntax"
#   (NVIDIA/gpu-monitoring-tools#94: the manifest's DCGM_EXPORTER_LISTEN=":9400" given to the int flag "port")
# the exporter's own messages: one of them makes a logrus/slog text the exporter's (other Go tools log so too)
#   and DCGM's errorString of DCGM_ST_CONNECTION_NOT_VALID with go-dcgm's wrapping of a field read, which only a
#   DCGM client prints (a log cut to its error lines has no start-up message: NVIDIA/gpu-monitoring-tools#188)
_OWN = re.compile(r"Starting dcgm-exporter|DCGM successfully initialized|Error starting nv-hostengine|"
                  # the 1.x exporter script and the nv-hostengine it starts (below)
                  r"Starting NVIDIA host engine\.\.\.|Got error \d+ while waiting for SIGUSR1 from child process|"
                  r"Attemping to connect to remote hostengine|Not collecting DCP metrics|Collecting DCP Metrics|"
                  r"Error watching fields|libdcgm\.so[.\d]* library was not found|"
                  r"Host engine connection invalid/disconnected|[Ee]rror getting the latest value for fields|"
                  # urfave/cli (the exporter's flags) refusing a value from the flag's environment variable, before
                  # the exporter logs anything else: "could not parse %q as int value for flag %s: %s" (flag_int.go)
                  r"could not parse \S{1,200} as \w{1,16} value for flag [\w-]{1,64}: |"
                  # the metrics pipeline's transform failing (pkg/dcgmexporter: "failed to transform metrics for
                  # transform '%s'; err: %w"), its only transforms the exporter's own (podMapper, the Kubernetes pod labels)
                  r"failed to transform metrics for transform '\w{1,40}'")
_LEVELS = {"debu": "debug", "erro": "error", "fata": "fatal", "pani": "panic", "warning": "warn"}
_EXITS = ("fatal", "panic")
# ERRO[0000] Encountered a failure.     (pkg/cmd/app.go's recover(): logrus/slog .Error("Encountered a failure."),
#   then its error goes to main's logrus.Fatal: the exporter exits)
_FAILURE = "Encountered a failure."
# logrus's TTY form pads the message ("%-44s") and prints the entry's fields after it:
# ERRO[0000] Encountered a failure.                        stacktrace="goroutine 1 [running]:\nruntime/debug.Stack()\n..."
#   (NVIDIA/dcgm-exporter#360: 3.3.6 on Debian 12, the recover()'s stack as the field)
_TTY_FIELDS = re.compile(r"^(?P<msg>\S(?:.*?\S)?) {2,}(?=[A-Za-z_][\w.-]{0,40}=)")

# The Go runtime ending the exporter, in its log (facts/parsers/go_runtime_crash.py reads the forms: runtime/signal_unix.go
# sighandler, runtime/panic.go): a fatal signal, with cgo's note where it arrived in C code (go-dcgm's call into
# libdcgm: the fault is in DCGM's library, or in the driver below it, not in the exporter's Go code), or a panic:
# SIGSEGV: segmentation violation                      (NVIDIA/dcgm-exporter#318: 3.3.5-3.4.1, after the exporter's
# PC=0x7f98af7d96aa m=5 sigcode=1                       "Initializing system entities of type: CPU")
# signal arrived during cgo execution
# The exporter asked DCGM to watch fields that this node's DCGM cannot serve: DCGM_ST_MODULE_NOT_LOADED's
# errorString (the profiling / DCP module is not loaded: a GPU without DCP metrics, or a DCGM without the
# module) or DCGM_ST_NOT_SUPPORTED's. DCP metric support is GPU-specific (DCGM's dcgmi profile reference); exporters
# before NVIDIA/dcgm-exporter#86 watched the DCP fields of their list whatever the GPU: a field list that does not
# fit the node.
# time="2020-10-27T20:31:42Z" level=fatal msg="Error watching fields: This request is serviced by a module of DCGM that is not currently loaded"
# DCGM_ST_NOT_SUPPORTED's errorString is "Feature not supported" (NVIDIA/DCGM dcgmlib/src/dcgm_errors.c): a
# field of the list this GPU model lacks (NVIDIA/dcgm-exporter#86, whose fix skips the Tensor IMMA/HMMA fields then):
# FATA[0001] Error watching fields: Feature not supported
_WATCH_UNSUPPORTED = re.compile(r"Error watching fields: (?:This request is serviced by a module of DCGM that is not currently loaded"
                                r"|This request is not supported by the current device|Feature not supported\b)")

# A DCGM call returned DCGM_ST_VER_MISMATCH, whose errorString is "API version mismatch" (NVIDIA/DCGM
# dcgmlib/src/dcgm_errors.c): the versioned structure the exporter's go-dcgm bindings pass is one the
# loaded libdcgm or the remote nv-hostengine does not accept (dcgm-exporter's own dcgmerrors.ClassifyCode:
# "Verify dcgm-exporter, go-dcgm, and the runtime DCGM library are from compatible DCGM versions").
# The exporter wraps it after what it was doing:
# FATA[0001] Error retrieving DCGM MIG hierarchy: API version mismatch      (NVIDIA/gpu-monitoring-tools#168)
# ERRO[0002] Failed to collect metrics with error: Failed to collect metrics with error: Error getting device information: API version mismatch
#   (NVIDIA/gpu-monitoring-tools#102)
_VER_MISMATCH = re.compile(r": API version mismatch\.?\s*$")

# The exporter lost, or never reached, its nv-hostengine: DCGM_ST_CONNECTION_NOT_VALID's errorString (NVIDIA/DCGM
# dcgmlib/src/dcgm_errors.c), in the message:
# time="2021-05-12T17:31:12Z" level=error msg="Failed to collect metrics with error: Failed to collect metrics with error: Error getting the latest value for fields: Host engine connection invalid/disconnected"
#   (NVIDIA/gpu-monitoring-tools#188: 2.1.8 with DCGM_REMOTE_HOSTENGINE_INFO, after nv-hostengine was restarted)
_HOSTENGINE_LOST = "Host engine connection invalid/disconnected"

# The pod mapper (Kubernetes mode, -k) lists the kubelet's pod-resources API for the pod labels of each GPU's series;
# its failure (kubernetes.go "failure getting pod resources %v", wrapped by the transform and the HTTP handler) fails
# the whole metrics request, in the message or in logrus's error= field (NVIDIA/dcgm-exporter#408, 3.3.8-3.6.0):
# time="2024-10-29T09:58:01Z" level=error msg="Failed to write response." error="failed to transform metrics for transform 'podMapper'; err: failure getting pod resources; err: rpc error: code = ResourceExhausted desc = grpc: received message larger than max (4724376 vs. 4194304)"
# time="2024-10-29T09:58:26Z" level=error msg="Failed to collect metrics; err: failed to transform metrics for transform 'podMapper'; err: failure getting pod resources; err: rpc error: code = ResourceExhausted desc = grpc: received message larger than max (4724552 vs. 4194304)"
_POD_RESOURCES = "failure getting pod resources"
# logrus's error field after the message (bounded: a field of one line)
_ERROR_FIELD = re.compile(r'\berror="(?P<e>(?:[^"\\\n]|\\.){1,600})"')
# Go's net/http noting the handler's second WriteHeader after that failure (server.go:124 writes the error after the
# status was sent): read as used, no fact - the error line before it is the failure
# 2024/10/29 09:58:01 http: superfluous response.WriteHeader call from github.com/NVIDIA/dcgm-exporter/pkg/dcgmexporter.(*MetricsServer).Metrics (server.go:124)
_SUPERFLUOUS = re.compile(r"^\s*\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? http: superfluous response\.WriteHeader call from \S{1,300}dcgm")


# The 1.x exporter (NVIDIA/gpu-monitoring-tools exporters/prometheus-dcgm/dcgm-exporter, a bash script) starts
# nv-hostengine itself, echoes its steps, and ends with "Done" (exit 0: the container restarts) when its dcgmi dmon
# stops. nv-hostengine's own console lines (NVIDIA/DCGM hostengine/src/main.cpp) say it did not start:
#   Got error 11 while waiting for SIGUSR1 from child process.    (NVIDIA/gpu-monitoring-tools#212: the parent waits
#     for its daemon's SIGUSR1 once DCGM is initialised; errno 11, EAGAIN, is the 120 s wait running out: the daemon
#     hung or died while it initialised DCGM)
#   Err: Failed to start DCGM Server: -7                           (dcgmEngineRun failed: the port or socket)
_HE_FAILED = re.compile(r"^\s*(?:Got error (?P<errno>\d+) while waiting for SIGUSR1 from child process"
                        r"|Err: Failed to start DCGM Server: (?P<ret>-?\d+))")
# the script's steps, and nv-hostengine's answers to --term (hostengine/src/main.cpp: "Host engine successfully
# terminated.", "Unable to terminate host engine, it may not be running."): read as used, no fact
_SCRIPT = re.compile(r"^\s*(?:Starting NVIDIA host engine\.\.\.|Collecting metrics at \S+ every \d+ms\.\.\."
                     r"|Collecting DCP metrics as well\.|Stopping NVIDIA host engine\.\.\."
                     r"|Unable to terminate host engine, it may not be running\.|Host engine successfully terminated\."
                     r"|Done|Caught signal, terminating\.\.\.)\s*$")
# The script collects with `dcgmi dmon ... | awk ... &` then `wait $!`: dmon runs until it fails or a signal comes (its
# trap echoes "Caught signal, terminating..."), so its "Stopping NVIDIA host engine..." (with -e) or "Done" after
# "Collecting metrics at ..." with no signal between is the collection ending by itself: the exporter exits 0 and
# exports nothing until it is restarted (NVIDIA/gpu-monitoring-tools#56, a Tesla K80, DCGM 1.x image):
#   Collecting metrics at /run/prometheus/dcgm.prom every 1000ms...
#   Stopping NVIDIA host engine...
#   Unable to terminate host engine, it may not be running.
#   /usr/local/bin/dcgm-exporter: line 154: kill: (38698) - No such process
#   Done
_COLLECTING = re.compile(r"^\s*Collecting metrics at \S+ every \d+ms\.\.\.\s*$")
_SCRIPT_END = re.compile(r"^\s*(?:Stopping NVIDIA host engine\.\.\.|Done)\s*$")
_SIGNALLED = "Caught signal, terminating..."
_HE_NOT_RUNNING = "Unable to terminate host engine, it may not be running."
# bash's own error as the script's `kill -SIGTERM "${pid}"` finds the pid of /run/nvhostengine.pid gone (the host engine
# already ended): read as used, part of that stop
_SCRIPT_KILL = re.compile(r"\bdcgm-exporter: line \d+: kill: \(\d+\) - No such process\s*$")


def _line(line: str) -> tuple[str, str] | None:
    if (m := _TEXT.search(line)) is not None:
        msg = m["q"] if m["q"] is not None else m["bare"]
        return m["level"].lower(), msg.replace('\\"', '"')
    if (m := _TTY.match(line) or _GOLOG.match(line)) is not None:
        return m["level"].lower(), m["msg"]
    return None


def _go_crash(lines: list[str], n: int) -> str | None:
    """The Go runtime's report of the exporter's end at line ``n`` (1-based), as a message."""
    got = go_runtime_crash.crash_at(lines, n - 1)
    if got is None:
        return None
    kind, msg, cgo = got
    if kind == "signal":
        return msg + (" (signal arrived during cgo execution: in a C library the exporter called, DCGM's or the driver's)"
                      if cgo else "")
    return f"{'panic' if kind == 'panic' else 'fatal error'}: {msg}"


def detect(head: str) -> bool:
    if ("dcgm" not in head.lower() and _HOSTENGINE_LOST not in head and "SIGUSR1 from child" not in head
            and "for transform '" not in head) \
            or _OWN.search(head) is None:
        return False
    return any(_line(line) is not None or _HE_FAILED.match(line) or _SCRIPT.match(line)
               for line in head.splitlines() if _OWN.search(line))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        got = _line(line)
        if got is None and (crash := _go_crash(artefact.lines, n)) is not None:
            b.add(DcgmExporterError, n, level="panic", message=crash[:400], exiting=True)
            result.lines_used += 1
            continue
        if got is None:
            if (m := _HE_FAILED.match(line)) is not None:
                why = ("its daemon never reported that DCGM initialised" if m["errno"] is not None
                       else "it could not serve its port or socket")
                b.add(DcgmExporterError, n, level="error", message=f"nv-hostengine did not start ({why}): {line.strip()}"[:400],
                      exiting=True)
                result.lines_used += 1
            elif (_SCRIPT.match(line) is not None or _SUPERFLUOUS.match(line) is not None
                  or _SCRIPT_KILL.search(line) is not None):
                result.lines_used += 1
            continue
        level, msg = got
        level = _LEVELS.get(level, level)
        if (f := _TTY_FIELDS.match(msg)) is not None and _TTY.match(line) is not None:
            msg = f["msg"]  # the entry's fields (stacktrace=...) after the padded message
        result.lines_used += 1
        if level in ("error", *_EXITS) and not any(sig.search(msg) for sig in nvml_init.SIGNATURES):
            if _POD_RESOURCES in line and _POD_RESOURCES not in msg and (e := _ERROR_FIELD.search(line)) is not None:
                msg = f"{msg.strip()} error: {e['e']}"  # "Failed to write response." says why only in its error field
            b.add(DcgmExporterError, n, level=level, message=msg.strip()[:400], hostengine_lost=_HOSTENGINE_LOST in msg,
                  pod_resources_failed=_POD_RESOURCES in msg,
                  exiting=level in _EXITS or msg.strip() == _FAILURE,
                  watch_unsupported=_WATCH_UNSUPPORTED.search(msg) is not None,
                  version_mismatch=_VER_MISMATCH.search(msg) is not None)
    _merge_logged_twice(result)
    _script_stopped(artefact, b, result)
    return result


def _script_stopped(artefact: Artefact, b: FactBuilder, result: ParseResult) -> None:
    """The 1.x script's collection ending by itself (above), where no line of the file already says the exporter ended."""
    if any(isinstance(f, DcgmExporterError) and f.exiting for f in result.facts):
        return
    lines = artefact.lines
    start = next((i for i, line in enumerate(lines) if _COLLECTING.match(line)), None)
    if start is None:
        return
    for i in range(start + 1, len(lines)):
        if _SIGNALLED in lines[i]:
            return
        if _SCRIPT_END.match(lines[i]):
            gone = any(_HE_NOT_RUNNING in line for line in lines[i:i + 4])
            b.add(DcgmExporterError, i + 1, level="error", exiting=True,
                  message="the 1.x exporter's collection (dcgmi dmon) ended by itself and the exporter stopped"
                          + ("; its nv-hostengine was not running by then (Unable to terminate host engine, it may not be running.)"
                             if gone else ""))
            return


def _merge_logged_twice(result: ParseResult) -> None:
    """An error fact whose message ends with the next fact's, that one exiting on the next log line: one failure."""
    out: list = []
    for f in result.facts:
        prev = out[-1] if out else None
        if (isinstance(f, DcgmExporterError) and isinstance(prev, DcgmExporterError) and f.exiting
                and prev.level == "error" and not prev.exiting and f.evidence.line - prev.evidence.line <= 2
                and len(f.message) >= 8 and prev.message.removesuffix("\\n").rstrip().endswith(f.message.strip())):
            out[-1] = f.model_copy(update={"message": prev.message.removesuffix("\\n").rstrip()[:400]})
            continue
        out.append(f)
    result.facts[:] = out


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_OWN,)

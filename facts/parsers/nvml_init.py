"""NVML initialisation failures as nvidia-smi, exporters and plugins print them.

Sample content (``nvidia-smi`` on a host whose kernel module is older than the libraries;
illinois-scicomp/machine-shop-maintenance#60, k4yt3x/video2x#1226)::

    idf2@koelsch:~$ nvidia-smi
    Failed to initialize NVML: Driver/library version mismatch
    NVML library version: 565.57

and the same failure from other tools (NVIDIA/k8s-device-plugin#170, #182; the Go bindings'
newer form; nvidia-docker 1.x, NVIDIA/nvidia-docker#270 and #74; nvidia-smi without a loaded driver; a GPU
that nvidia-smi cannot list)::

    2020/05/14 02:11:19 Failed to initialize NVML: could not load NVML library.
    nvidia-docker | 2016/12/17 05:23:46 Error: nvml: Driver/library version mismatch
      Error: Could not load NVML library
    E0121 12:04:24.666244       1 factory.go:87] Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND.
    NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.
    nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory
    NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.
    No devices were found

``nvidia-smi -L`` says the same in its own words, each task of a step behind its label where the
tasks label their output (NVIDIA/deepops#1102; the label is the fact's ``task``)::

    PROCID=2: No devices found.

A GPU that NVML initialised around but cannot reach is a per-device failure: nvidia-smi's
``Unable to determine the device handle`` line (the GPU named by bus id, by index, or both, per
driver generation; rwth-i6/returnn#1486 and public samples), and a monitoring tool's NVML query
that returned a lost-device error for one GPU (leptonai/gpud#604)::

    Unable to determine the device handle for GPU0000:03:00.0: Unknown Error
    Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error
    Unable to determine the device handle for GPU 0000:05:00.0: GPU is lost.  Reboot the system to recover this GPU
    failed to get remapped rows for GPU-ac896b35-5782-c478-4b2a-a661de07770f: failed to get device remapped rows: ERROR_GPU_IS_LOST

Programs that call NVML themselves often print its return code as a number: after "NVML" and
"error"/"error code" (a miner's stats thread on a lost GPU, trexminer/T-Rex#828; Claymore's,
nanopool/Claymore-Dual-Miner#246), or after nvmlErrorString's text in parentheses. The number is
read through nvml.h's nvmlReturn_t (15 GPU_IS_LOST, 12 LIBRARY_NOT_FOUND, ...); a GPU named by
index before it ("GPU #0", "GPU2") makes it a device error, else the process's NVML failed::

    20211113 15:06:44 WARN: NVML: can't get fan speed for GPU #0, error code 15
    NVML: cannot get current temperature, error 15

Slurm's slurmstepd prints its GPU accounting query's return the same way (LSSI-ETH/plmfit#40), and
pynvml raises one exception class per return, its name the return's, its text nvmlErrorString's
(rossumai/nvgpu#6, Python 2; Python 3 puts the module before it, wookayin/gpustat#90); neither names
the GPU::

    slurmstepd: error: NVML: Failed to get usage(15): GPU is lost
    NVMLError_GpuIsLost: GPU is lost

vLLM's platform probe logs the pynvml failure's text alone (kserve/kserve#4722, a predictor pod)::

    DEBUG 10-01 12:03:47 [__init__.py:93] CUDA platform is not available because: NVML Shared Library Not Found

An exporter that runs nvidia-smi reports nvidia-smi's exit status, which is the NVML return that stopped it
(utkuozdemir/nvidia_gpu_exporter#64, v0.4.0; the v0 form read only where the text shows that exporter; 9, 12 and 15
read, SMI_EXIT_REASONS)::

    ts=2022-03-05T12:15:01.058Z caller=exporter.go:157 level=error error="command failed. stderr:  err: exit status 12"

Facts emitted: ``nvml_device_error`` per such line (``pci_bus_id``, ``gpu_index``, ``gpu_uuid``
where printed; ``reason`` as below; ``query``: what was asked, "device handle" for nvidia-smi);
``nvml_init_failure`` per failure line: ``reason`` is the NVML error class read
from the message (``driver_library_mismatch``, ``library_not_found``, ``driver_not_loaded``,
``insufficient_permissions``, ``os_blocked``, ``gpu_lost``, ``unknown_error``, ``no_devices``, ``other``),
``message`` as printed, ``library_version`` from an ``NVML library version:`` line that follows
within three lines, ``container`` where an NVML library's failure line was printed inside a
container (dcgm-exporter's own form, or a text that holds the exporter's start line or a pod's
``CrashLoopBackOff``); ``nvml_library_version`` for each such line (the user-space driver's
version). ``nvidia-container-cli`` lines are :mod:`nvidia_container_cli`'s. Empty input, or
text without these lines, yields nothing: it says nothing about the driver.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    NvmlDeviceError, NvmlInitFailure, NvmlLibraryVersion,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvidia_smi_list import TASK_LABEL

KIND = "nvml_init"

# Failed to initialize NVML: Driver/library version mismatch
# 2020/05/14 02:11:19 Failed to initialize NVML: could not load NVML library.
# Failed to start nvml with error:  could not load NVML library      (k8s-device-plugin 1.8)
# time=2026-09-19T20:06:59.547Z level=ERROR msg="Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND"
#   (dcgm-exporter 4.x's "Cannot init NVML library; err: %v" of go-nvml's error: NVIDIA/dcgm-exporter#612, #450)
# [Bug]: NVIDIA bug `Failed to initialize NVML: Unknown Error` reproducible on AWS
#   (dstackai/dstack#2860, an issue title: quoted as markdown inline code, the closing backtick ends the message)
# I0604 10:00:00.000000       1 server.go:255] Failed to start health check: failed to initialize NVML: Driver/library version mismatch; continuing with health checks disabled
#   (CONSTRUCTED from the format strings: Go's error chains start lower-case. NVIDIA/k8s-device-plugin v0.12 on,
#   internal/rm/nvml_manager.go NewNVMLResourceManagers and internal/rm/health.go checkHealth:
#   fmt.Errorf("failed to initialize NVML: %v", ret), go-nvml's Return printed by nvml.ErrorString: nvmlErrorString's
#   text, or the ERROR_* name where the library lacks it; main.go prints the startup chain after "error starting plugins: "
#   (k8s_device_plugin hands an NVML failure in it to this reader), internal/plugin/server.go the health check's as
#   klog.Infof("Failed to start health check: %v; continuing with health checks disabled", err). Other Go collectors
#   word it the same: fmt.Errorf("failed to initialize NVML: %s", nvml.ErrorString(ret)). A pasted
#   "Driver/library version mismatch — failed to initialize NVML" (pando85/homelab#4110, a PR's summary) is prose, not read)
# Impossible to initialize nvidia nvml : Driver/library version mismatch
#   (nvtop, the GPU monitor: src/extract_gpuinfo_nvidia.c fprintf(stderr, "Impossible to initialize nvidia nvml : %s\n",
#   nvmlErrorString(retval)), a space before the colon; real, NixOS/nixpkgs#98328's title)
# Error: error creating driver: error enumerating all possible devices: error enumerating GPUs and MIG devices: error initializing NVML: ERROR_LIBRARY_NOT_FOUND
#   (kubernetes-sigs/dra-driver-nvidia-gpu#1272, the gpu-kubelet-plugin crash-looping: its device library's
#   fmt.Errorf("error initializing NVML: %w", ret), go-nvml's Return naming itself where the library never loaded. NVIDIA's
#   Go tools share the wording: the DRA driver's older enumerateAllPossibleDevices and GpuStatus, mig-parted's DeviceFilter
#   and IsMigCapable, "error initializing NVML: %v" of nvml.ErrorString(ret) or of the Return)
_FAILED = re.compile(r"(?:[Ff]ailed to initialize NVML:|Failed to start nvml with error:|Cannot init NVML library; err:"
                     r"|Impossible to initialize nvidia nvml :|\b[Ee]rror initializing NVML:)"
                     r"[ \t]*(?P<msg>[^\n\\\"`;]*)")  # ';' ends it: the health check's "%v; continuing ..." (no NVML text has one)
# error starting plugins: error creating plugin manager: unable to create plugin manager: nvml init failed: ERROR_LIBRARY_NOT_FOUND
#   (k8s-device-plugin 0.16: fmt.Errorf("nvml init failed: %v", ret), go-nvml's Return named; NVIDIA/k8s-device-plugin#856,
#   quoted in a sentence as markdown inline code: the closing backtick ends the message; other Go and C tools print
#   "NVML init failed: %s" with nvmlErrorString's text)
_INIT_FAILED = re.compile(r"\b(?i:nvml init failed): (?P<msg>[^\n\\\"`]{1,200})")
# Error: Failed to initialize NVML      (dcgm-exporter's embedded nv-hostengine, no error text after it:
#   NVIDIA/gpu-monitoring-tools#96, the line before 'level=fatal msg="Error starting nv-hostengine: DCGM initialization error"')
# 2021-11-23 00:15:28.951 ERROR [82:82] Cannot initialize the hostengine: Error: Failed to initialize NVML [/workspaces/dcgm-rel_dcgm_2_3-postmerge/dcgmlib/src/DcgmHostEngineHandler.cpp:3647] [DcgmHostEngineHandler::Init]
#   (the host engine's own log, DcgmHostEngineHandler::Init: DCGM's logger ends each line with its source
#   "[<file>:<line>] [<function>]"; NVIDIA/gpu-operator#498)
_BARE = re.compile(r"(?:^|\bError: )Failed to initialize NVML(?:[ \t]*$| \[/[^\]\n]+:\d+\] \[)", re.M)
# nvidia-docker | 2016/12/17 05:23:46 Error: nvml: Driver/library version mismatch     (NVIDIA/nvidia-docker#270, 1.x;
#   its Go NVML bindings word every failure "nvml: <nvmlErrorString>", and the tool logs a fatal one as "Error: <err>")
_GO_ERROR = re.compile(r"\bError: nvml: (?P<msg>[^\n\\]*)")
# Error: Could not load NVML library      (nvidia-docker 1.x, NVIDIA/nvidia-docker#74: the same bindings return
#   errors.New("could not load NVML library") for NVML_ERROR_LIBRARY_NOT_FOUND, without the "nvml: " of every other
#   error, since nvmlErrorString cannot run without the library; the tool logs it as "Error: <err>")
_GO_NO_LIBRARY = re.compile(r"\bError: (?P<msg>[Cc]ould not load NVML library)\b")
# NVML library version: 565.57
# Failed to properly shut down NVML: GPU access blocked by the operating system   (microsoft/WSL#41062, after
#   "Failed to initialize NVML: GPU access blocked by the operating system": nvidia-smi's "Failed to properly shut down
#   NVML: %s" with nvmlErrorString of nvmlShutdown's return)
_SHUTDOWN = re.compile(r"Failed to properly shut down NVML: (?P<msg>[^\n\\]{1,200})")
_LIB_VERSION = re.compile(r"NVML library version: (?P<version>\d+\.\d+(?:\.\d+)?)")
# NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that ...
_SMI_NO_DRIVER = re.compile(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver[^\n]*")
# nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory
_NO_LIBRARY = re.compile(r"libnvidia-ml\.so(?:\.1)?: cannot open shared object file[^\n\\]*")
# NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.
#   (nvidia-smi's own words when its dlopen of NVML fails: the binary is there, libnvidia-ml.so is not, or not in the
#   loader's path or cache; a container whose injected driver library links are broken, warmshao/FasterLivePortrait#8,
#   fixed by re-making the libnvidia-ml.so.1 link. Its second line, "Please also try adding directory that contains
#   libnvidia-ml.so to your system PATH.", is advice)
_SMI_NO_LIBRARY = re.compile(r"NVIDIA-SMI couldn't find libnvidia-ml\.so library in your system\.?")
# No devices were found                 (nvidia-smi)
# PROCID=2: No devices found.           (nvidia-smi -L, a task's label before it: NVIDIA/deepops#1102)
_NO_DEVICES = re.compile(r"^\s*" + TASK_LABEL + r"No devices (?:were )?found\.?\s*$", re.M)
_BDF = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"
# DEBUG 10-01 12:03:47 [__init__.py:93] CUDA platform is not available because: NVML Shared Library Not Found
#   (kserve/kserve#4722, vLLM in a KServe predictor pod. vllm/platforms/__init__.py cuda_platform_plugin: pynvml.nvmlInit()
#   raised, and an exception whose class is not an NVML one is raised again, so on a host that is not a Jetson this line
#   carries str() of pynvml's NVMLError: nvmlErrorString's text. The "Exception happens when checking CUDA platform: %s"
#   line before it says the same for any exception; this one is read, once. vLLM then runs on no GPU: "No platform
#   detected, vLLM is running on UnspecifiedPlatform")
_VLLM_PLATFORM = re.compile(r"\bCUDA platform is not available because: (?P<msg>[^\n\\]{1,200})")
# nvidia-smi's exit status as an exporter that runs it reports it (utkuozdemir/nvidia_gpu_exporter, each form as its
# source writes it; nvidia-smi exits with the NVML return that stopped it, nvidia-smi(1) RETURN VALUE):
# ts=2022-03-05T12:15:01.058Z caller=exporter.go:157 level=error error="command failed. stderr:  err: exit status 12"
#   (v0.1-0.4 internal/exporter/exporter.go: fmt.Errorf("command failed. stderr: %s err: %w", stderr.String(), err),
#   the exec error's "exit status N"; nvidia_gpu_exporter#64, stderr empty. The line names no command: read only in a
#   text that shows the exporter, _EXPORTER_V0_MARK)
_SMI_EXIT_V0 = re.compile(r"\bcommand failed\. stderr: (?P<stderr>[^\n]{0,400}?) err: exit status (?P<code>\d{1,3})\b")
# v0.5-1.2 exporter.go: fmt.Errorf("%w: command failed. code: %d | command: %s | stdout: %s | stderr: %s", err, exitCode, ...)
# v1.3 on internal/nvidiasmi/query.go: "command failed: code: %d | command: %s | stdout: %s | stderr: %s: %w"
#   (fields.go the same with %q: the command quoted). The command named: read where it is nvidia-smi
_SMI_EXIT_CODED = re.compile(r"\bcommand failed[.:] code: (?P<code>\d{1,3}) \| command: \"?[^\s|\"]{0,200}nvidia-smi(?:\.exe)?\b")
# the exporter's own warning, v0.x (exporter.go: level.Warn ... "Failed to auto-determine query field names, falling back
# to the built-in list"; v1.x resolve.go the same in lower case), or its name: the v0 line above is its
_EXPORTER_V0_MARK = re.compile(r"(?i:auto-determine query field names|nvidia[_-]gpu[_-]exporter)")
#: nvidia-smi's exit status -> reason, for the statuses that say why NVML could not start (nvidia-smi(1), RETURN VALUE:
#: "Return code 12 - NVML Shared Library couldn't be found or loaded", as influxdata/telegraf#4388 quotes it from the
#: nvidia-smi 367.38 manual; 9 "NVIDIA driver is not loaded"; 15 "The GPU has fallen off the bus or has otherwise become
#: inaccessible": the nvmlReturn_t of the same number). Others (2 a bad argument, 3 not supported, 6 not found, 255
#: "Other error or internal driver error occurred", telegraf#6106) are not read: they say nothing of NVML's start
SMI_EXIT_REASONS: dict[int, str] = {9: "driver_not_loaded", 12: "library_not_found", 15: "gpu_lost"}
# Unable to determine the device handle for GPU0000:03:00.0: Unknown Error              (older drivers)
# Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error           (index, then bus id)
# Unable to determine the device handle for GPU 0000:05:00.0: GPU is lost.  Reboot the system to recover this GPU
_DEVICE_HANDLE = re.compile(
    rf"Unable to determine the device handle for [Gg][Pp][Uu] ?(?:(?P<bdf>{_BDF})|(?P<index>\d+)(?:: (?P<bdf2>{_BDF}))?)"
    r"(?::[ \t]*(?P<msg>[^\n\\]*))?"
)
#: the NVML returns that say a device cannot be reached (nvml.h nvmlReturn_t names, as the Go
#: bindings print them, and nvmlErrorString's texts); other returns (NOT_SUPPORTED, NO_DATA) on a
#: device query are a feature the device lacks, no failure
_LOST_RETURNS = (r"ERROR_(?:GPU_IS_LOST|UNKNOWN|RESET_REQUIRED|IRQ_ISSUE|INSUFFICIENT_POWER|GPU_NOT_FOUND)\b"
                 r"|GPU is lost|Unknown Error|GPU requires reset")
# failed to get remapped rows for GPU-ac896b35-5782-c478-4b2a-a661de07770f: failed to get device remapped rows: ERROR_GPU_IS_LOST
_TOOL_QUERY = re.compile(
    rf"(?:failed to get (?P<what>[\w -]{{1,80}}?) )?(?:for|of|on) (?:GPU |device )?(?P<dev>GPU-[0-9a-fA-F]{{8}}(?:-[0-9a-fA-F]{{4}}){{3}}-[0-9a-fA-F]{{12}}|{_BDF})"
    # bounded: an unbounded lazy run to the ': ERROR_' of the line is quadratic in a long line that
    # names many devices (a 146 kB line took 12 s); the real ones are within 60 characters
    rf"\b[^\n]{{0,300}}?: (?P<msg>(?:{_LOST_RETURNS})[^\n\\]*)"
)
# 20211113 15:06:44 WARN: NVML: can't get fan speed for GPU #0, error code 15      (trexminer/T-Rex#828)
# NVML: cannot get current temperature, error 15                                     (nanopool/Claymore-Dual-Miner#246)
# (an nvmlReturn_t printed as a number after "NVML" and "error"/"error code"; a miner's own wording around it)
_NVML_CODE = re.compile(r"\bNVML\b[^\n]{0,100}?\berror(?:,? code)?[ \t]*[:=]?[ \t]*(?P<code>\d{1,3})\b")
# hwmc GPU2: unable to get fan speed - GPU is lost (15)       (nvmlErrorString's text, then the code in parentheses)
_CODED_TEXT = re.compile(r"(?P<msg>GPU is lost|GPU requires reset|Unknown Error|Driver Not Loaded"
                         r"|NVML Shared Library Not Found|Insufficient Permissions) \((?P<code>\d{1,3})\)")
# slurmstepd: error: NVML: Failed to get usage(15): GPU is lost      (LSSI-ETH/plmfit#40)
# (Slurm's gpu/nvml plugin as slurmstepd polls a step's GPUs for accounting, gpu_nvml.c of Slurm 23.02 on:
#   "NVML: Failed to get usage(%d): %s", "NVML: Failed to get %s running process count(%d): %s",
#   "NVML: Failed to get process count for gpu utilization(%d): %s"; the nvmlReturn_t as a number, then
#   nvmlErrorString's text. The GPU is not named: the process's NVML calls fail, as in Claymore's form)
_SLURM_QUERY = re.compile(r"\bNVML: Failed to get (?P<what>[A-Za-z][\w ]{0,60}?)\((?P<code>\d{1,3})\): (?P<msg>[^\n\\]{1,200})")
# NVMLError_GpuIsLost: GPU is lost          (rossumai/nvgpu#6: pynvml's exception, the last line of a Python 2 traceback)
# pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found      (wookayin/gpustat#90, Python 3: module, then class)
# (nvidia-ml-py's pynvml raises one NVMLError subclass per nvmlReturn_t, named by _extractNVMLErrorsAsClasses as
#   "NVMLError_" + string.capwords(<the NVML_ERROR_ suffix>, "_").replace("_", ""); str() is nvmlErrorString's text.
#   The class says which return it was; a subclass absent from _PYNVML_CODES (NotSupported, NoData, ...) is a
#   feature the device lacks, not read, as for the numeric forms)
_PYNVML = re.compile(r"(?:^|[\s:\]\)])(?:[A-Za-z_][\w.]{0,60}\.)?NVMLError_(?P<name>[A-Z][A-Za-z]{1,40}): (?P<msg>\S[^\n\\]{0,200})",
                     re.M)
#: pynvml's exception class name -> nvmlReturn_t (nvml.h), for the returns NVML_RETURN_REASONS reads
_PYNVML_CODES = {"Uninitialized": 1, "NoPermission": 4, "InsufficientPower": 8, "DriverNotLoaded": 9, "IrqIssue": 11,
                 "LibraryNotFound": 12, "FunctionNotFound": 13, "GpuIsLost": 15, "ResetRequired": 16,
                 "OperatingSystem": 17, "LibRmVersionMismatch": 18, "GpuNotFound": 28, "Unknown": 999}
# nvmlInit_v2 err: 18
# time=2024-02-14T22:41:55.630Z level=INFO source=gpu.go:300 msg="Unable to load CUDA management library /nix/store/...-nvidia-x11-545.29.06-6.1.77/lib/libnvidia-ml.so.545.29.06: nvml vram init failure: 18"
#   (abysssol/ollama-flake#4: Ollama's GPU discovery, OLLAMA_DEBUG on. gpu/gpu_info_nvml.c (and gpu_info_cuda.c before it)
#   LOG(verbose, "nvmlInit_v2 err: %d\n", ret) and snprintf "nvml vram init failure: %d" of nvmlInit_v2's nvmlReturn_t,
#   which gpu.go logs after "Unable to load CUDA management library %s: " (later "Unable to load NVML management
#   library %s: "). Other releases of the same files print "nvml vram init failure: nvml error %d" and, with
#   nvmlErrorString's text, "nvmlInit_v2 err: %s (%d)" / "nvml vram init failure: %s (%d)". The number is read
#   through NVML_RETURN_REASONS like every numeric form; the CUDA runtime's "cudart init failure: %d" is a cudaError_t, not read)
_OLLAMA_INIT = re.compile(r"\b(?:nvmlInit_v2 err|nvml vram init failure): (?:nvml error )?"
                          r"(?:(?P<text>[^\n\\\"(]{1,80}) \()?(?P<code>\d{1,3})\b")
# the GPU a tool names by index before the code: "GPU #0", "GPU2", "GPU 1"
_GPU_INDEX = re.compile(r"\bGPU ?#?(?P<index>\d{1,2})\b")
#: nvml.h nvmlReturn_t -> reason; codes absent here (NOT_SUPPORTED, NO_DATA, INVALID_ARGUMENT, ...)
#: are a feature or a call the device lacks, no failure: such a line is not read
NVML_RETURN_REASONS: dict[int, str] = {
    1: "other",  # NVML_ERROR_UNINITIALIZED (nvmlInit did not succeed)
    4: "insufficient_permissions",  # NVML_ERROR_NO_PERMISSION
    8: "insufficient_power",  # NVML_ERROR_INSUFFICIENT_POWER
    9: "driver_not_loaded",  # NVML_ERROR_DRIVER_NOT_LOADED
    11: "irq_issue",  # NVML_ERROR_IRQ_ISSUE
    12: "library_not_found",  # NVML_ERROR_LIBRARY_NOT_FOUND
    13: "other",  # NVML_ERROR_FUNCTION_NOT_FOUND (library older than the caller)
    15: "gpu_lost",  # NVML_ERROR_GPU_IS_LOST
    16: "reset_required",  # NVML_ERROR_RESET_REQUIRED
    17: "os_blocked",  # NVML_ERROR_OPERATING_SYSTEM
    18: "driver_library_mismatch",  # NVML_ERROR_LIB_RM_VERSION_MISMATCH
    28: "gpu_not_found",  # NVML_ERROR_GPU_NOT_FOUND
    999: "unknown_error",  # NVML_ERROR_UNKNOWN
}
#: nvmlErrorString's text -> its code, for the "<text> (<code>)" form: text and number must agree
_TEXT_CODES = {"GPU is lost": 15, "GPU requires reset": 16, "Unknown Error": 999, "Driver Not Loaded": 9,
               "NVML Shared Library Not Found": 12, "Insufficient Permissions": 4}
# Printed inside a container. dcgm-exporter runs as a container (its image, DaemonSet and Helm chart), and
# its image holds no driver: NVML's library there is only what the runtime injects or a mount brings.
# time=2026-09-19T20:06:59.543Z level=INFO msg="Starting dcgm-exporter" Version=4.8.4       (its start line,
#   pkg/cmd/app.go; NVIDIA/dcgm-exporter#612) - an NVML failure of the same log is the exporter's
_EXPORTER_START = "Starting dcgm-exporter"
# ... or a Kubernetes pod that keeps restarting: only a pod's container crash-loops (kubectl's status
# CrashLoopBackOff, or the same words in a report), so the NVML failure beside it is its container's
# the `dcgm-exporter` pod is in `CrashLoopBackOff` with the following error:      (NVIDIA/gpu-monitoring-tools#96)
# dcgm-exporter-8k4s5     0/1     CrashLoopBackOff   27         117m                  (gpu-monitoring-tools#120, kubectl get pods)
# Crash loop backoff with `Error: Failed to initialize NVML` on GKE                     (an issue title, harvest 1004)
_POD_RESTARTING = re.compile(r"\bcrash ?loop ?back-?off\b", re.I)
_ANY = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern)  # one alternation: the group names go
                           for p in (_FAILED, _INIT_FAILED, _BARE, _GO_ERROR, _GO_NO_LIBRARY, _LIB_VERSION, _SHUTDOWN, _SMI_NO_DRIVER, _SMI_NO_LIBRARY, _NO_LIBRARY,
                                     _DEVICE_HANDLE, _TOOL_QUERY, _NVML_CODE, _CODED_TEXT, _NO_DEVICES, _SLURM_QUERY, _PYNVML,
                                     _VLLM_PLATFORM, _SMI_EXIT_V0, _SMI_EXIT_CODED, _OLLAMA_INIT)),
                 re.M)

#: lowercased fragments of NVML's error strings (nvmlErrorString, the Go bindings' ERROR_* names,
#: nvidia-smi's own wording) -> reason; the first that occurs wins
REASONS: tuple[tuple[str, str], ...] = (
    ("version mismatch", "driver_library_mismatch"),  # NVML_ERROR_LIB_RM_VERSION_MISMATCH
    ("could not load nvml library", "library_not_found"),  # gpu-monitoring-tools bindings (dlopen)
    ("library_not_found", "library_not_found"),
    ("shared library not found", "library_not_found"),  # NVML_ERROR_LIBRARY_NOT_FOUND
    ("cannot open shared object file", "library_not_found"),
    ("driver not loaded", "driver_not_loaded"),  # NVML_ERROR_DRIVER_NOT_LOADED
    ("driver_not_loaded", "driver_not_loaded"),
    ("couldn't communicate with the nvidia driver", "driver_not_loaded"),
    ("insufficient permissions", "insufficient_permissions"),  # NVML_ERROR_NO_PERMISSION
    ("no_permission", "insufficient_permissions"),
    ("gpu is lost", "gpu_lost"),  # NVML_ERROR_GPU_IS_LOST
    ("gpu_is_lost", "gpu_lost"),
    ("gpu requires reset", "reset_required"),  # NVML_ERROR_RESET_REQUIRED
    ("reset_required", "reset_required"),
    ("insufficiently powered", "insufficient_power"),  # NVML_ERROR_INSUFFICIENT_POWER (nvidia-smi's text)
    ("insufficient_power", "insufficient_power"),
    ("issue with gpu interrupts", "irq_issue"),  # NVML_ERROR_IRQ_ISSUE (nvidia-smi's text)
    ("interrupt request issue", "irq_issue"),
    ("irq_issue", "irq_issue"),
    ("gpu_not_found", "gpu_not_found"),  # NVML_ERROR_GPU_NOT_FOUND
    ("blocked by the operating system", "os_blocked"),  # NVML_ERROR_OPERATING_SYSTEM (WSL2, Windows)
    ("error_operating_system", "os_blocked"),
    ("in use by another client", "in_use"),  # NVML_ERROR_IN_USE (a reset or MIG change refused)
    ("error_in_use", "in_use"),
    ("not supported", "not_supported"),  # NVML_ERROR_NOT_SUPPORTED
    ("error_not_supported", "not_supported"),
    ("unknown error", "unknown_error"),  # NVML_ERROR_UNKNOWN
    ("error_unknown", "unknown_error"),
)


def nvml_reason(message: str) -> str:
    low = message.lower()
    return next((reason for frag, reason in REASONS if frag in low), "other")


def detect(head: str) -> bool:
    # one literal per branch of _ANY ("NVML" alone is in every nvidia-smi -q: not a gate)
    if not ("ailed to initialize NVML" in head or "rror initializing NVML" in head or "initialize nvidia nvml" in head or "Failed to start nvml" in head or "NVML library version" in head
            or "Cannot init NVML library" in head or "nvml init failed" in head.lower()
            or "Error: nvml: " in head or "ould not load NVML library" in head
            or "NVIDIA-SMI has failed" in head or "No devices " in head or "libnvidia-ml.so" in head
            or "device handle" in head or "ERROR_" in head or "GPU is lost" in head or "Unknown Error" in head
            or "GPU requires reset" in head or "NVML: " in head or "NVML error" in head or "NVMLError_" in head
            or "CUDA platform is not available because: " in head or "command failed" in head
            or "nvmlInit_v2 err: " in head or "nvml vram init failure: " in head):
        return False
    return _ANY.search(head) is not None


def _coded(line: str) -> tuple[int, str, str] | None:
    """(code, reason, text before the code) of an NVML return printed as a number, or None."""
    if "NVML" in line and (m := _NVML_CODE.search(line)) is not None:
        code = int(m["code"])
    elif (m := _CODED_TEXT.search(line)) is not None and _TEXT_CODES[m["msg"]] == int(m["code"]):
        code = int(m["code"])
    else:
        return None
    reason = NVML_RETURN_REASONS.get(code)
    return None if reason is None else (code, reason, line[:m.start("code")])


def _smi_exit(line: str, exporter_v0: bool) -> int | None:
    """nvidia-smi's exit status in an exporter's "command failed" line, where it says why NVML did not start."""
    m = _SMI_EXIT_CODED.search(line) or (_SMI_EXIT_V0.search(line) if exporter_v0 else None)
    return int(m["code"]) if m is not None and int(m["code"]) in SMI_EXIT_REASONS else None


def _exit_message(line: str) -> str:
    """The error as the exporter logged it: from "command failed" on, its logfmt quote and the rest of a long
    command line left off (the v1 form quotes every query field)."""
    msg = line[line.index("command failed"):].rstrip().rstrip('"')
    return msg if len(msg) <= 200 else msg[:200] + "..."


def _clean(msg: str) -> str:
    return msg.strip().rstrip(".").strip()


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    exporter = _EXPORTER_START in artefact.text or _POD_RESTARTING.search(artefact.text) is not None
    exporter_v0 = "command failed. stderr: " in artefact.text and _EXPORTER_V0_MARK.search(artefact.text) is not None
    versions: dict[int, str] = {}
    for n, line in enumerate(lines, 1):
        if "NVML library version" in line and (m := _LIB_VERSION.search(line)):
            versions[n] = m["version"]
    for n, line in enumerate(lines, 1):
        if "nvidia-container-cli" in line:
            continue  # nvidia_container_cli's
        lib = next((versions[k] for k in range(n + 1, n + 4) if k in versions), None)
        if (m := _FAILED.search(line) or _INIT_FAILED.search(line) or _GO_ERROR.search(line)
                or _GO_NO_LIBRARY.search(line)) is not None:
            msg = _clean(m["msg"])
            if not msg:
                b.error(n, "NVML failure without its error text")
                continue
            b.add(NvmlInitFailure, n, reason=nvml_reason(msg), message=msg, source="nvml", library_version=lib,
                  container=exporter or "Cannot init NVML library" in line)
        elif _BARE.search(line) is not None:
            # the tool printed no NVML error string: the failure is known, its reason is not
            b.add(NvmlInitFailure, n, reason="other", message=line.strip(), source="nvml", library_version=lib,
                  container=exporter)
        elif (m := _SMI_NO_DRIVER.search(line)) is not None:
            b.add(NvmlInitFailure, n, reason="driver_not_loaded", message=m[0].strip(), source="nvidia-smi",
                  library_version=lib)
        elif (m := _SMI_NO_LIBRARY.search(line)) is not None:
            b.add(NvmlInitFailure, n, reason="library_not_found", message=m[0].strip(), source="nvidia-smi",
                  library_version=lib)
        elif (m := _NO_LIBRARY.search(line)) is not None:
            b.add(NvmlInitFailure, n, reason="library_not_found", message=line.strip(), source="loader")
        elif "device handle" in line and (m := _DEVICE_HANDLE.search(line)) is not None:
            msg = _clean(m["msg"] or "")
            bus = try_pci_bus_id(m["bdf"] or m["bdf2"])
            b.add(NvmlDeviceError, n, reason=nvml_reason(msg) if msg else "other", message=msg or "(no error text)",
                  source="nvidia-smi", gpu=bus or f"GPU{m['index']}", query="device handle", pci_bus_id=bus,
                  gpu_index=int(m["index"]) if m["index"] else None)
        elif (m := _TOOL_QUERY.search(line)) is not None:
            dev, msg = m["dev"], _clean(m["msg"])
            uuid = dev if dev.startswith("GPU-") else None
            bus = None if uuid else try_pci_bus_id(dev)
            b.add(NvmlDeviceError, n, reason=nvml_reason(msg), message=msg, source="tool", gpu=bus or dev,
                  query=(m["what"] or "").strip() or None, pci_bus_id=bus,
                  gpu_uuid=uuid)
        elif "NVML: Failed to get" in line and (m := _SLURM_QUERY.search(line)) is not None:
            reason = NVML_RETURN_REASONS.get(int(m["code"]))
            said = _TEXT_CODES.get(_clean(m["msg"]))
            if reason is None or (said is not None and said != int(m["code"])):
                continue  # a return that is no failure (NOT_SUPPORTED, NO_DATA), or text and number disagree
            b.add(NvmlInitFailure, n, reason=reason, message=m[0].strip(), source="slurm")
        elif "NVMLError_" in line and (m := _PYNVML.search(line)) is not None:
            code = _PYNVML_CODES.get(m["name"])
            if code is None:
                continue
            b.add(NvmlInitFailure, n, reason=NVML_RETURN_REASONS[code], message=_clean(m["msg"]), source="pynvml")
        elif "CUDA platform is not available because: " in line and (m := _VLLM_PLATFORM.search(line)) is not None:
            msg = _clean(m["msg"])
            b.add(NvmlInitFailure, n, reason=nvml_reason(msg), message=msg, source="vllm")
        elif ("nvmlInit_v2 err: " in line or "nvml vram init failure: " in line) and (
                (m := _OLLAMA_INIT.search(line)) is not None and int(m["code"]) in NVML_RETURN_REASONS):
            msg = line[m.start():].strip().rstrip('"')
            b.add(NvmlInitFailure, n, reason=NVML_RETURN_REASONS[int(m["code"])], message=msg, source="ollama")
        elif "command failed" in line and (code := _smi_exit(line, exporter_v0)) is not None:
            b.add(NvmlInitFailure, n, reason=SMI_EXIT_REASONS[code], message=_exit_message(line), source="nvidia-smi")
        elif ("NVML" in line or " (" in line) and (coded := _coded(line)) is not None:
            code, reason, before = coded
            idx = _GPU_INDEX.search(before)
            msg = line.strip()
            if idx is not None:
                b.add(NvmlDeviceError, n, reason=reason, message=msg, source="tool", gpu=f"GPU{idx['index']}",
                      gpu_index=int(idx["index"]))
            else:
                b.add(NvmlInitFailure, n, reason=reason, message=msg, source="nvml")
        elif (m := _NO_DEVICES.match(line)) is not None:
            said = line[m.end("task") + 2:] if m["task"] else line  # as printed, after the task's label
            b.add(NvmlInitFailure, n, reason="no_devices", message=said.strip(), source="nvidia-smi", task=m["task"])
        elif n in versions:
            b.add(NvmlLibraryVersion, n, version=versions[n])
        elif "Failed to properly shut down NVML" in line and (m := _SHUTDOWN.search(line)) is not None:
            if not any(f.kind == "nvml_init_failure" for f in result.facts):
                # alone it is the failure the tool met (nothing before it says more)
                msg = _clean(m["msg"])
                b.add(NvmlInitFailure, n, reason=nvml_reason(msg), message=msg, source="nvidia-smi")
            # after the init's failure: nvidia-smi's shutdown of the NVML it never initialised, the same failure
        else:
            continue
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_ANY,)

"""CUDA's smoke-test samples as operators paste them to show that a node's driver and GPUs work:
``deviceQuery`` (NVIDIA/cuda-samples Samples/1_Utilities/deviceQuery) and ``vectorAdd``
(Samples/0_Introduction/vectorAdd), which the NVIDIA GPU operator's cuda-validation init container
runs (``kubectl logs nvidia-cuda-validator-... -c cuda-validation``) and k8s quick starts run in the
``cuda-sample:vectoradd`` pod.

Sample content (real: canonical/lxd#5618, a deviceQuery in an LXD container, cut after the first
device; tensorflow/tensorflow#990, a failed one; NVIDIA/gpu-operator#346, vectorAdd's pod log;
NVIDIA/gpu-operator#1900, the cuda-validation container's lines with its name in front, stderr
before stdout)::

    ./deviceQuery Starting...
     CUDA Device Query (Runtime API) version (CUDART static linking)
    Detected 2 CUDA Capable device(s)
    Device 0: "GeForce GT 730"
      CUDA Driver Version / Runtime Version          9.1 / 9.0

    cudaGetDeviceCount returned 35
    -> CUDA driver version is insufficient for CUDA runtime version
    Result = FAIL

    [Vector addition of 50000 elements]
    Copy input data from the host memory to the CUDA device
    CUDA kernel launch with 196 blocks of 256 threads
    Copy output data from the CUDA device to the host memory
    Test PASSED

    cuda-validation Failed to allocate device vector A (error code no CUDA-capable device is detected)!
    cuda-validation [Vector addition of 50000 elements]

The forms are the samples' printf formats (cuda-samples c94ff366; the CUDA 7.0 and 9.0 runs pasted above print
the same words): deviceQuery.cpp ``%s Starting...``, `` CUDA Device Query (Runtime API) version (CUDART static
linking)``, ``cudaGetDeviceCount returned %d\\n-> %s`` (cudaGetErrorString) then ``Result = FAIL``,
``There are no available device(s) that support CUDA`` (a count of 0, and the run still ends ``Result =
PASS``), ``Detected %d CUDA Capable device(s)``, ``Device %d: "%s"``, ``  CUDA Driver Version / Runtime
Version          %d.%d / %d.%d``, the closing ``deviceQuery, CUDA Driver = CUDART, CUDA Driver Version =
%s, CUDA Runtime Version = %s, NumDevs = %d`` and ``Result = PASS``; vectorAdd.cu ``[Vector addition of
%d elements]``, its three step lines, ``Test PASSED``, ``Done``, ``Failed to <step> (error code %s)!``
(allocate device vector A/B/C, copy vector A/B from host to device, launch vectorAdd kernel, copy
vector C from device to host, free device vector A/B/C; cudaGetErrorString) and ``Result verification
failed at element %d!``.

Facts: one ``cuda_sample_run`` per run (``Starting...`` or the banner starts a deviceQuery run, ``[Vector
addition`` a vectorAdd run; a failure line before its run's header, as ``kubectl logs`` shows stderr
first, belongs to that run): the sample, its result (None where the paste ends before it), the device
count and names, the driver's and runtime's CUDA versions, the failed step, the error's text and its
knowledge/cuda_errors.yaml name (by the text: CUDA 10.0 and older numbered the codes differently,
``returned 30`` was 'unknown error'), vectorAdd's wrong element. The error lines themselves are
cuda_app's too (its ``cuda_error``); the rules say a failure once. A deviceQuery's property lines are
read as context. Empty input, or text without these lines, yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.bench import CudaSampleRun  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cuda_samples"

# ./deviceQuery Starting...          (tensorflow/tensorflow#990; brian-team/brian2cuda#160's renamed build: cudaDeviceQuery Starting...)
_DQ_START = re.compile(r"^\S{0,300}[dD]eviceQuery Starting\.\.\.\s*$")
#  CUDA Device Query (Runtime API) version (CUDART static linking)
_DQ_BANNER = re.compile(r"^\s{0,4}CUDA Device Query \(Runtime API\) version \(CUDART static linking\)\s*$")
# cudaGetDeviceCount returned 35
_DQ_COUNT_FAILED = re.compile(r"^cudaGetDeviceCount returned (?P<code>-?\d{1,4})\s*$")
# -> CUDA driver version is insufficient for CUDA runtime version
_DQ_ARROW = re.compile(r"^-> (?P<text>\S[^\n]{0,200})$")  # (greedy to the end: a lazy run before \s*$ rescanned long lines)
# Result = FAIL          /   Result = PASS
_DQ_RESULT = re.compile(r"^Result = (?P<result>PASS|FAIL)\s*$")
# Detected 2 CUDA Capable device(s)          /   There are no available device(s) that support CUDA
_DQ_DETECTED = re.compile(r"^(?:Detected (?P<n>\d{1,4}) CUDA Capable device\(s\)|(?P<none>There are no available device\(s\) that support CUDA))\s*$")
# Device 0: "GeForce GT 730"
_DQ_DEVICE = re.compile(r"^Device (?P<idx>\d{1,4}): \"(?P<name>[^\"\n]{1,120})\"\s*$")
#   CUDA Driver Version / Runtime Version          9.1 / 9.0
_DQ_VERSIONS = re.compile(r"^\s{1,4}CUDA Driver Version / Runtime Version\s{1,40}(?P<drv>\d{1,3}\.\d{1,2}) / (?P<rt>\d{1,3}\.\d{1,2})\s*$")
# deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = 12.4, NumDevs = 1   (deviceQuery.cpp sProfileString)
_DQ_SUMMARY = re.compile(r"^deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = (?P<drv>\d{1,3}\.\d{1,2}), "
                         r"CUDA Runtime Version = (?P<rt>\d{1,3}\.\d{1,2}), NumDevs = (?P<n>\d{1,4})")
#   CUDA Capability Major/Minor version number:    3.5     /   ( 2) Multiprocessors, (192) CUDA Cores/MP:     384 CUDA Cores
#      < Default (multiple host threads can use ::cudaSetDevice() with device simultaneously) >     /   > Peer access from ... : Yes
_DQ_PROPERTY = re.compile(r"^(?:\s{2,6}\S|> Peer access from )")

# a container's name in front of its lines (NVIDIA/gpu-operator#1900: "cuda-validation Failed to allocate ...")
_PREFIX = r"^(?:[a-z0-9][a-z0-9.-]{0,62} )?"
# [Vector addition of 50000 elements]          /   cuda-validation [Vector addition of 50000 elements]
_VA_START = re.compile(_PREFIX + r"\[Vector addition of (?P<n>\d{1,12}) elements\]\s*$")
# Copy input data from the host memory to the CUDA device   /   CUDA kernel launch with 196 blocks of 256 threads   /   Done
_VA_STEP = re.compile(_PREFIX + r"(?:Copy input data from the host memory to the CUDA device|CUDA kernel launch with \d{1,12} blocks of \d{1,6} threads"
                      r"|Copy output data from the CUDA device to the host memory|Done)\s*$")
# Test PASSED
_VA_PASSED = re.compile(_PREFIX + r"Test PASSED\s*$")
# Failed to allocate device vector A (error code no CUDA-capable device is detected)!      (NVIDIA/gpu-operator#1900)
_VA_FAILED = re.compile(_PREFIX + r"Failed to (?P<step>allocate device vector [ABC]|copy vector [ABC] from (?:host to device|device to host)"
                        r"|launch vectorAdd kernel|free device vector [ABC]) \(error code (?P<text>[^\n]{1,200}?)\)!\s*$")
# Result verification failed at element 17!      (vectorAdd.cu's format; no thread pasted one)
_VA_WRONG = re.compile(_PREFIX + r"Result verification failed at element (?P<el>\d{1,12})!\s*$")

_DETECT = re.compile(r"CUDA Device Query \(Runtime API\) version|^cudaGetDeviceCount returned -?\d{1,4}\s*$|\[Vector addition of \d{1,12} elements\]"
                     r"|Failed to (?:allocate device vector [ABC]|launch vectorAdd kernel) \(error code ", re.M)


def detect(head: str) -> bool:
    return ("CUDA Device Query" in head or "cudaGetDeviceCount returned" in head or "Vector addition of" in head
            or "(error code " in head) and _DETECT.search(head) is not None


def _error(text: str, code: int | None) -> str | None:
    e = catalogue.resolve(name=text, text=text) or (catalogue.by_code(code) if code is not None and not text else None)
    return e.name if e else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    run: dict | None = None

    def close() -> None:
        nonlocal run
        if run is not None:
            line = run.pop("line")
            names = run.pop("names")
            if names:
                run["gpu_names"] = ", ".join(names)
            if run.get("result") == "PASS" and run.get("device_count") != 0:
                run["checked"] = "gpu" if run["sample"] == "vectorAdd" else "driver"
            run.pop("header", None)
            fb.add(CudaSampleRun, line, **run)
        run = None

    def start(sample: str, n: int) -> dict:
        close()
        return {"sample": sample, "line": n, "names": [], "header": True}

    for n, line in enumerate(artefact.lines, 1):
        if _DQ_START.match(line):
            run = start("deviceQuery", n)
        elif _DQ_BANNER.match(line):
            if run is None or run["sample"] != "deviceQuery" or run["line"] < n - 3:
                run = start("deviceQuery", n)
        elif m := _VA_START.match(line):
            if run is not None and run["sample"] == "vectorAdd" and not run["header"]:
                run["header"] = True  # its failure came first (stderr before stdout)
            else:
                run = start("vectorAdd", n)
        elif m := _VA_FAILED.match(line):
            if run is None or run["sample"] != "vectorAdd" or run.get("result"):
                run = start("vectorAdd", n)
                run["header"] = False
            run.update(result="FAIL", line=n, failed_step=m["step"], error_text=m["text"].strip(),
                       catalogue_name=_error(m["text"].strip(), None))
        elif m := _VA_WRONG.match(line):
            if run is None or run["sample"] != "vectorAdd" or run.get("result"):
                run = start("vectorAdd", n)
                run["header"] = False
            run.update(result="FAIL", line=n, failed_step="verify result", wrong_element=int(m["el"]))
        elif run is not None and run["sample"] == "vectorAdd" and _VA_PASSED.match(line):
            run.update(result="PASS", line=n)
        elif run is not None and run["sample"] == "vectorAdd" and _VA_STEP.match(line):
            pass
        elif (m := _DQ_COUNT_FAILED.match(line)) and (run is None or run["sample"] == "deviceQuery"):
            if run is None:
                run = start("deviceQuery", n)
            code = int(m["code"])
            run.update(failed_step="cudaGetDeviceCount", printed_code=code, line=n, catalogue_name=_error("", code))
        elif run is not None and run["sample"] == "deviceQuery" and run.get("failed_step") and (m := _DQ_ARROW.match(line)):
            text = m["text"].rstrip()
            run.update(error_text=text, catalogue_name=_error(text, None) or run.get("catalogue_name"))
        elif run is not None and run["sample"] == "deviceQuery" and (m := _DQ_RESULT.match(line)):
            run.update(result=m["result"], line=n)
        elif run is not None and run["sample"] == "deviceQuery" and (m := _DQ_DETECTED.match(line)):
            run["device_count"] = 0 if m["none"] else int(m["n"])
            if m["none"]:
                run["catalogue_name"] = "cudaErrorNoDevice"
        elif run is not None and run["sample"] == "deviceQuery" and (m := _DQ_DEVICE.match(line)):
            run["names"].append(m["name"].strip())
        elif run is not None and run["sample"] == "deviceQuery" and (m := _DQ_VERSIONS.match(line) or _DQ_SUMMARY.match(line)):
            run.update(driver_cuda=m["drv"], runtime_cuda=m["rt"])
            if "n" in m.groupdict() and m["n"] is not None and run.get("device_count") is None:
                run["device_count"] = int(m["n"])
        elif run is not None and run["sample"] == "deviceQuery" and _DQ_PROPERTY.match(line):
            pass
        else:
            continue
        result.lines_used += 1
    close()
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

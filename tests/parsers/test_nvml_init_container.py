"""nvml_init: an NVML failure printed inside a container, known by the pod that keeps restarting."""
from __future__ import annotations

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py

from stethoscope.facts.parsers import nvml_init


def test_nvml_failure_beside_a_crash_looping_pod_is_a_containers():
    # NVIDIA/gpu-monitoring-tools#96: the report names the pod's CrashLoopBackOff, then the bare NVML failure
    (f,) = _parse(nvml_init, "nvml_init/gpu_monitoring_tools96_pod_crashloop_sentence.txt").facts
    assert (f.kind, f.reason, f.container) == ("nvml_init_failure", "other", True)
    # kubectl's listing form (gpu-monitoring-tools#120's line) beside the same failure
    text = "dcgm-exporter-8k4s5     0/1     CrashLoopBackOff   27         117m\nError: Failed to initialize NVML\n"
    assert [g.container for g in _parse(nvml_init, text=text).facts] == [True]
    # without a pod's state or the exporter's start line the failure is not placed in a container
    assert [g.container for g in _parse(nvml_init, text="Error: Failed to initialize NVML\n").facts] == [False]


def test_go_nvml_init_failed_in_a_sentence():
    # NVIDIA/k8s-device-plugin#856: the plugin's "nvml init failed: %v" quoted as inline code beside its CrashLoopBackOff
    (f,) = _parse(nvml_init, "nvml_init/k8s_device_plugin856_nvml_init_failed_sentence.txt").facts
    assert (f.reason, f.message, f.container) == ("library_not_found", "ERROR_LIBRARY_NOT_FOUND", True)
    # other tools' "NVML init failed: <nvmlErrorString>" (C and Python loggers); a word ending in "nvml" is no such line
    assert [g.reason for g in _parse(nvml_init, text="NVML init failed: Driver Not Loaded\n").facts] == ["driver_not_loaded"]
    assert not nvml_init.detect("pynvml init failed: see above\n")


def test_nvml_failure_quoted_as_inline_code_ends_at_the_backtick():
    # dstackai/dstack#2860's title: the closing backtick ends NVML's error text (the prose after it is not)
    (f,) = _parse(nvml_init, text="[Bug]: NVIDIA bug `Failed to initialize NVML: Unknown Error` reproducible on AWS\n").facts
    assert (f.reason, f.message) == ("unknown_error", "Unknown Error")


def test_vllm_platform_probe_says_nvml_failed():
    # kserve/kserve#4722: vLLM's "CUDA platform is not available because: <nvmlErrorString>" in a predictor pod; the
    # "Exception happens when checking CUDA platform" line before it says the same and is not read twice
    (f,) = _parse(nvml_init, "nvml_init/kserve4722_vllm_platform_nvml_library_not_found.txt").facts
    assert (f.evidence.line, f.reason, f.message, f.source) == (2, "library_not_found", "NVML Shared Library Not Found", "vllm")
    # vLLM's other reasons for no CUDA platform are no NVML failure
    for text in ("DEBUG 05-13 14:12:19 [__init__.py:50] CUDA platform is not available because no GPU is found.\n",
                 "DEBUG 05-13 14:12:19 [__init__.py:55] CUDA platform is not available because vLLM is built with CPU.\n"):
        assert not nvml_init.detect(text)


def test_nvidia_gpu_exporter_reports_nvidia_smi_exit_status():
    # utkuozdemir/nvidia_gpu_exporter#64 (v0.4.0): "command failed. stderr: %s err: %w", nvidia-smi's exit status 12
    # (NVML Shared Library couldn't be found or loaded); the text shows the exporter (its auto-determine warning)
    res = _parse(nvml_init, "nvml_init/nvidia_gpu_exporter64_nvidia_smi_exit_status_12.log")
    assert [(f.evidence.line, f.reason, f.source) for f in res.facts] == [(4, "library_not_found", "nvidia-smi"),
                                                                            (5, "library_not_found", "nvidia-smi")]
    assert res.facts[0].message == "command failed. stderr:  err: exit status 12"
    # the v0 line alone names no command: without the exporter in the text it is not read
    line = 'ts=2022-03-05T12:15:01.058Z caller=exporter.go:157 level=error error="command failed. stderr:  err: exit status 12"\n'
    assert _parse(nvml_init, text=line).facts == []
    # v1.3+ (internal/nvidiasmi/query.go "command failed: code: %d | command: %s | ..."): the command names nvidia-smi.
    # nvidia_gpu_exporter#354's real line (cut in the query list): status 255, "Other error", is not read
    real = ('nvidia-gpu-exporter.shark02.loc  | time=2025-09-08T07:56:38.823Z level=ERROR source=exporter.go:203 '
            'msg="failed to collect metrics" err="command failed: code: 255 | command: nvidia-smi --query-gpu=timestamp,'
            'driver_version,vgpu_driver_capability.heterogenous_multivGPU,count,name,serial,uuid,pci.bus_id\n')
    assert _parse(nvml_init, text=real).facts == []
    # constructed: the same form with status 9 (NVIDIA driver is not loaded), and v0.5's "%w: command failed. code: %d"
    # with status 12; another program's "command failed: code: 12" is not nvidia-smi's
    v1 = real.replace("code: 255", "code: 9")
    assert [f.reason for f in _parse(nvml_init, text=v1).facts] == ["driver_not_loaded"]
    v05 = 'level=error error="exit status 12: command failed. code: 12 | command: /usr/bin/nvidia-smi --query-gpu=index | stdout:  | stderr: "\n'
    assert [f.reason for f in _parse(nvml_init, text=v05).facts] == ["library_not_found"]
    assert not nvml_init.detect('error="command failed: code: 12 | command: ipmitool sdr | stdout: "\n')


def test_ollama_gpu_discovery_prints_nvml_init_return():
    # abysssol/ollama-flake#4: Ollama's gpu_info_nvml.c "nvmlInit_v2 err: %d" and gpu.go's "... nvml vram init failure: %d"
    # (18 NVML_ERROR_LIB_RM_VERSION_MISMATCH); the dlsym lines before them are no failure
    res = _parse(nvml_init, "nvml_init/ollama_flake4_nvmlinit_err_18.log")
    assert [(f.evidence.line, f.reason, f.source) for f in res.facts] == [(15, "driver_library_mismatch", "ollama"),
                                                                            (16, "driver_library_mismatch", "ollama")]
    assert res.facts[0].message == "nvmlInit_v2 err: 18"
    # CONSTRUCTED from the other releases' format strings: "nvml error %d", and nvmlErrorString's text with the code
    for text, reason in (("nvml vram init failure: nvml error 9\n", "driver_not_loaded"),
                         ("nvmlInit_v2 err: RM has detected an NVML/RM version mismatch. (18)\n", "driver_library_mismatch")):
        assert [f.reason for f in _parse(nvml_init, text=text).facts] == [reason]
    # a return that is no failure of NVML's start (3 NOT_SUPPORTED) is not read
    assert _parse(nvml_init, text="nvml vram init failure: 3\n").facts == []

"""cuda_samples: CUDA's deviceQuery and vectorAdd (the GPU operator's cuda-validation) -> cuda_sample_run
(fixtures/artefacts/cuda_samples, real pastes; the other forms from the samples' printf formats, cuda-samples c94ff366)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import cuda_samples
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2] / "fixtures/artefacts"


def _parse(rel: str):
    text = (ROOT / rel).read_text()
    assert cuda_samples.detect(text)
    return cuda_samples.parse(Artefact(path=rel, text=text, node="node1"))


def _run(res):
    [f] = res.facts
    return f


def test_tf990_devicequery_fail_35_resolved_by_its_arrow_text():
    res = _parse("cuda_samples/tf990_devicequery_returned_35_fail.txt")
    f = _run(res)
    assert (f.sample, f.result, f.failed_step, f.printed_code, f.catalogue_name, f.checked, f.evidence.line) == (
        "deviceQuery", "FAIL", "cudaGetDeviceCount", 35, "cudaErrorInsufficientDriver", None, 7)
    assert f.error_text == "CUDA driver version is insufficient for CUDA runtime version"
    assert res.lines_used == 5 and res.errors == []


def test_lxd5618_devices_and_versions_of_a_cut_run():
    f = _run(_parse("cuda_samples/lxd5618_devicequery_two_gpus_cut.txt"))
    assert (f.result, f.device_count, f.gpu_names, f.driver_cuda, f.runtime_cuda, f.checked) == (
        None, 2, "GeForce GT 730", "9.1", "9.0", None)  # cut before its result: checks nothing


def test_gpuoperator1900_validation_failure_before_its_header():
    res = _parse("cuda_samples/gpuoperator1900_cuda_validation_no_device.txt")
    f = _run(res)  # stderr's failure first, then stdout's header: one run
    assert (f.sample, f.result, f.failed_step, f.catalogue_name, f.evidence.line) == (
        "vectorAdd", "FAIL", "allocate device vector A", "cudaErrorNoDevice", 1)
    assert res.lines_used == 2


def test_gpuoperator346_vectoradd_passed_checks_the_gpu():
    f = _run(_parse("cuda_samples/gpuoperator346_vectoradd_pod_passed.txt"))
    assert (f.sample, f.result, f.checked, f.evidence.line) == ("vectorAdd", "PASS", "gpu", 6)


def test_old_numbering_30_is_named_by_the_text_and_zero_devices_by_no_device():
    # CONSTRUCTED from deviceQuery.cpp's formats: CUDA <= 10.0 numbered cudaErrorUnknown 30 (canonical/lxd#5618's title)
    text = ("./deviceQuery Starting...\n\n CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
            "cudaGetDeviceCount returned 30\n-> unknown error\nResult = FAIL\n")
    f = _run(cuda_samples.parse(Artefact(path="x", text=text, node="n")))
    assert (f.printed_code, f.catalogue_name, f.result) == (30, "cudaErrorUnknown", "FAIL")
    text = ("./deviceQuery Starting...\n\n CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
            "There are no available device(s) that support CUDA\n\n"
            "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = 12.4, NumDevs = 0\nResult = PASS\n")
    f = _run(cuda_samples.parse(Artefact(path="x", text=text, node="n")))
    assert (f.result, f.device_count, f.catalogue_name, f.checked, f.driver_cuda) == ("PASS", 0, "cudaErrorNoDevice", None, "12.4")


def test_wrong_sum_and_test_passed_without_vectoradd():
    # CONSTRUCTED from vectorAdd.cu's formats
    text = "[Vector addition of 50000 elements]\nCopy input data from the host memory to the CUDA device\nResult verification failed at element 3!\n"
    f = _run(cuda_samples.parse(Artefact(path="x", text=text, node="n")))
    assert (f.result, f.failed_step, f.wrong_element) == ("FAIL", "verify result", 3)
    # another program's "Test PASSED" is no vectorAdd run
    assert not cuda_samples.detect("Test PASSED\nDone\n")


def test_a_pass_is_health_evidence_and_hides_no_other_fault(ruleset, tmp_path):
    import shutil

    from stethoscope.engine.pipeline import diagnose_bundle

    def verdict(*rels: str):
        b = tmp_path / f"b{len(list(tmp_path.iterdir()))}"
        b.mkdir()
        for rel in rels:
            shutil.copy(ROOT / rel, b / Path(rel).name)
        return diagnose_bundle(b, ruleset, jobs=1)

    rep = verdict("cuda_samples/gpuoperator346_vectoradd_pod_passed.txt")
    assert rep.verdict == "healthy", rep.reason  # vectorAdd's kernel ran and its sum was checked
    rep = verdict("cuda_samples/gpuoperator346_vectoradd_pod_passed.txt", "cuda_samples/tf990_devicequery_returned_35_fail.txt")
    assert rep.verdict == "faulty" and {f.cause for f in rep.findings} >= {"cuda_driver_too_old"}
    rep = verdict("cuda_samples/lxd5618_devicequery_two_gpus_cut.txt")
    assert rep.verdict == "inconclusive", rep.reason  # cut before its result: no claim

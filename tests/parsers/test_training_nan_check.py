"""training_throughput's reading of c10d's NaN check on a collective's input (TORCH_NCCL_NAN_CHECK, wild sweep 67):
the check kernel's device-side assert and the host's line, every version's wording; cuda_app marks the same assert
nan_check so that the CUDA catalogue does not judge it a kernel fault."""
from stethoscope.facts.parsers import cuda_app, training_throughput
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _nonfinite(text: str):
    r = training_throughput.parse(Artefact(path="train.log", node="n1", text=text))
    assert r.errors == []
    return [(f.what, f.value, f.rank) for f in r.facts if f.kind == "training_loss_not_finite"]


def test_real_utils_cu_assert_wrapped_as_pasted():
    r = _parse(training_throughput, "training_throughput/c10d_nancheck125726_paste.log")
    got = [(f.what, f.value, f.rank) for f in r.facts if f.kind == "training_loss_not_finite"]
    assert got == [("collective_input", "nan", None)]


def test_real_nancheck_cu_assert_and_cuda_app_form():
    r = _parse(training_throughput, "training_throughput/c10d_nancheck174736_paste.log")
    assert [(f.what, f.value) for f in r.facts if f.kind == "training_loss_not_finite"] == [("collective_input", "nan")]
    c = _parse(cuda_app, "training_throughput/c10d_nancheck174736_paste.log")
    assert [(f.catalogue_name, f.form) for f in c.facts if f.kind == "cuda_error"] == [("cudaErrorAssert", "nan_check")]


def test_host_line_names_the_rank_in_the_line_or_its_label():
    line = "[rank0]:[E507 17:31:56.885473996 Utils.cu:30] CUDA error during checkForNan: device-side assert triggered\n"
    assert _nonfinite(line) == [("collective_input", "nan", 0)]
    assert _nonfinite(line.replace("[rank0]", "[rank5]")) == [("collective_input", "nan", 5)]


def test_other_device_asserts_are_not_the_nan_check():
    # an index assert, and a NaN-probability assert of another kernel: no collective input read
    assert _nonfinite("Indexing.cu:1308: indexSelectLargeIndex: block: [106,0,0], thread: [15,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n") == []
    assert _nonfinite("checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `val >= zero` failed.\n") == []
    c = cuda_app.parse(Artefact(path="app.log", node="n1", text="Indexing.cu:1308: indexSelectLargeIndex: block: [106,0,0], thread: [15,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"))
    assert [f.form for f in c.facts if f.kind == "cuda_error"] == ["device_assert"]


def _spikes(text: str):
    r = training_throughput.parse(Artefact(path="train.log", node="n1", text=text))
    assert r.errors == []
    return [(f.value, f.iteration, f.rank, f.device, f.host) for f in r.facts if f.kind == "training_loss_spike"]


def test_megatron_spiky_loss_both_forms_one_fact_per_rank_and_iteration():
    r = _parse(training_throughput, "training_throughput/megatron_spiky_loss_forms.log")
    got = [(f.value, f.iteration, f.rank, f.device, f.host) for f in r.facts if f.kind == "training_loss_spike"]
    assert got == [(23.5, 1201, 3, 3, "gpu-node-07")]
    assert _spikes("Unexpected result tensor(1.2e+02, device='cuda:0') on rank 7 at iteration #9 invocation #2 (message='Spiky loss')\n") == [(120.0, 9, 7, None, None)]


def test_other_rejections_and_nan_are_no_spike():
    assert _spikes("Unexpected result nan on rank 3 at iteration #3 invocation #2 (message='Spiky loss')\n") == []
    assert _spikes("Unexpected result 23.5 on rank 3 at iteration #3 invocation #2 (message='found NaN in local grad norm')\n") == []


# Megatron's own counter of the iterations whose loss was NaN or Inf (megatron/training/training.py training_log:
# " number of nan iterations: {:3d} |"), wild sweep rP8
MEGATRON_NAN_ITERS = (  # CONSTRUCTED from the format: every even public paste found shows the counter at 0
    " iteration      700/  500000 | consumed samples:         5600 | elapsed time per iteration (ms): 1551.2 | learning rate: 2.737E-05 |"
    " global batch size:     8 | loss scale: 1.0 | grad norm: 2.961 | number of skipped iterations:   3 | number of nan iterations:   3 |\n")


def test_megatron_nan_iterations_count_is_a_non_finite_loss():
    assert _nonfinite(MEGATRON_NAN_ITERS) == [("loss", "nan or inf", None)]
    assert training_throughput.detect(MEGATRON_NAN_ITERS)
    # two digits and more, and the first metric that says nan names it: "grad norm: nan" before the counter
    assert _nonfinite(MEGATRON_NAN_ITERS.replace("iterations:   3 |", "iterations:  12 |")) == [("loss", "nan or inf", None)]
    assert _nonfinite(MEGATRON_NAN_ITERS.replace("grad norm: 2.961", "grad norm: nan")) == [("grad_norm", "nan", None)]


def test_megatron_nan_iterations_zero_is_the_counter_at_rest():
    # real lines with the counter at 0: Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge#4024), Megatron-LM (NVIDIA/Megatron-LM#314)
    for name in ("megatron_bridge4024_iterations_nan_count_zero.log", "megatron314_save_traceback_cut.log"):
        r = _parse(training_throughput, f"training_throughput/{name}")
        assert [f for f in r.facts if f.kind == "training_loss_not_finite"] == []
    assert _nonfinite(MEGATRON_NAN_ITERS.replace("nan iterations:   3", "nan iterations:   0")) == []

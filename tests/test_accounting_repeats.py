"""A line that repeats an explained error word for word on the same node is explained with it
(engine/accounting.py unexplained): every rank and every retry prints its own copy."""
from __future__ import annotations

from pathlib import Path

import small_bundle

ROOT = Path(__file__).resolve().parent.parent


def _report(tmp_path: Path, text: str, ruleset):
    return small_bundle.diagnose(tmp_path, {"VM-0-16-ubuntu/nccl.log": text}, ruleset)


def test_repeated_cuda_failures_are_explained_once(tmp_path, ruleset):
    text = (ROOT / "fixtures/artefacts/nccl_log/cuda_oom_repeated_trtllm1670.log").read_text()
    rep = _report(tmp_path, text, ruleset)
    assert [f.cause for f in rep.findings if f.rule == "unexplained_error"] == []
    assert rep.findings[0].cause == "cuda_out_of_memory"


def test_a_different_message_on_the_same_node_stays_unexplained(tmp_path, ruleset):
    text = (ROOT / "fixtures/artefacts/nccl_log/cuda_oom_repeated_trtllm1670.log").read_text()
    text += "VM-0-16-ubuntu:392:494 [2] enqueue.cc:99 NCCL WARN Something nobody has seen before\n"
    rep = _report(tmp_path, text, ruleset)
    assert [f.summary for f in rep.findings if f.rule == "unexplained_error"] == [
        "VM-0-16-ubuntu: an error that no rule explains (nccl_warn): Something nobody has seen before"]


def _bundle(tmp_path: Path, files: dict[str, str], ruleset):
    return small_bundle.diagnose(tmp_path, {f"gpu1/{name}": text for name, text in files.items()}, ruleset)


def test_a_free_text_line_that_restates_an_explained_one_is_explained_with_it(tmp_path, ruleset):
    # gpu-feature-discovery#24: the ticket's title quotes the GFD error a rule explains (case aside), and
    # dra-driver-nvidia-gpu#814's title holds the kubelet's err: no unexplained error for them
    gfd = (ROOT / "fixtures/artefacts/k8s_device_plugin/gfd24_mig_single_strategy_nvml_not_found.log").read_text()
    rep = _bundle(tmp_path, {"gfd.log": gfd, "title.txt": "Failed to construct MIG resource labeler\n"}, ruleset)
    # (the title is the reporter's claim, an info finding, never an error of its own: issue 11, round rV2)
    assert [f.rule for f in rep.findings] == ["gpu_feature_discovery_mig_strategy_failed", "reported_symptom_unjudged"]


def test_a_free_text_line_that_says_more_stays_unexplained(tmp_path, ruleset):
    kubelet = (ROOT / "fixtures/artefacts/k8s_dra_prepare/dra_gpu814_kubelet_compute_domain_not_registered.log").read_text()
    rep = _bundle(tmp_path, {"kubelet.txt": kubelet,
                             "notes.txt": "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver "
                                          "compute-domain.nvidia.com is not registered\n"
                                          "Error: the IMEX daemon could not start on this node\n"}, ruleset)
    assert [f.summary.split(": ", 2)[-1] for f in rep.findings if f.rule == "unexplained_error"] == [
        "Error: the IMEX daemon could not start on this node"]


def test_a_titles_noun_phrase_is_the_reporters_claim_never_healthy(tmp_path, ruleset):
    # ecmwf/WeatherGenerator#360's title alone: a reported symptom (inconclusive), not an unexplained error nor healthy
    rep = _bundle(tmp_path, {"title.txt": "NCCL Timeout During Multi-Node Training\n"}, ruleset)
    assert {f.rule for f in rep.findings} == {"reported_symptom_unjudged"}  # (ticket_prose's remark beside it)
    assert rep.verdict == "inconclusive"


def test_a_programs_line_beside_a_titles_noun_phrase_still_counts(tmp_path, ruleset):
    rep = _bundle(tmp_path, {"title.txt": "NCCL Timeout During Multi-Node Training\n",
                             "notes.txt": "Aborted (core dumped)\n"}, ruleset)
    assert rep.verdict == "faulty"
    assert rep.findings[0].severity == "warning" and rep.findings[0].evidence[0].path.endswith("notes.txt")


def test_a_title_naming_a_module_a_reader_knows_is_still_the_reporters_claim(tmp_path, ruleset):
    # pytorch/pytorch#88000's title: torch_log would recognise the file by "ProcessGroupNCCL"; a title goes to the
    # readers of a reporter's words only (round rV2): the claim ("not working") is quoted, the verdict inconclusive
    rep = _bundle(tmp_path, {"title.txt": "ProcessGroupNCCL watchdog timeout not working\n"}, ruleset)
    assert [(f.rule, f.summary.split("'")[1]) for f in rep.findings] == [("reported_symptom_unjudged", "not working")]
    assert rep.verdict == "inconclusive" and "torch_log" not in rep.reason


def test_a_title_that_quotes_an_explained_lines_tail_is_explained_with_it(tmp_path, ruleset):
    # google/flax#4942: the title names where the exception came from, then quotes the tail of XLA's status, which the
    # log's explained line holds ("INTERNAL: NCCL operation ncclAllReduce( ...) failed: invalid argument ...")
    log = (ROOT / "fixtures/artefacts/xla_nccl/flax4942_allreduce_nested_call_invalid_argument.log").read_text()
    rep = _bundle(tmp_path, {"log.txt": log,
                             "title.txt": "in nnx.jit: jaxlib._jax.XlaRuntimeError: INTERNAL: NCCL operation ncclAllReduce\n"},
                  ruleset)
    assert [f.rule for f in rep.findings] == ["xla_nccl_error_no_detail", "reported_symptom_unjudged"]
    # a title is the reporter's claim whatever it quotes (round rV2): one naming another call is no error of its own
    # either (CONSTRUCTED: the same title naming another call)
    rep = _bundle(tmp_path / "2", {"log.txt": log,
                                   "title.txt": "in nnx.jit: jaxlib._jax.XlaRuntimeError: INTERNAL: NCCL operation ncclBroadcast\n"},
                  ruleset)
    assert [f.rule for f in rep.findings] == ["xla_nccl_error_no_detail", "reported_symptom_unjudged"]


def test_a_title_that_quotes_an_explained_line_with_its_blanks_collapsed_is_explained_with_it(tmp_path, ruleset):
    # utkuozdemir/nvidia_gpu_exporter#64: the title 'command failed. stderr: err: exit status 12' quotes the log's
    # 'command failed. stderr:  err: exit status 12' (an empty stderr between two blanks) with one blank
    log = (ROOT / "fixtures/artefacts/nvml_init/nvidia_gpu_exporter64_nvidia_smi_exit_status_12.log").read_text()
    rep = _bundle(tmp_path, {"log.txt": log, "title.txt": "command failed. stderr: err: exit status 12\n"}, ruleset)
    assert [f.rule for f in rep.findings] == ["nvml_init_failed", "reported_symptom_unjudged"]
    # other words are the reporter's claim too, no error (round rV2; CONSTRUCTED: the same title with another status)
    rep = _bundle(tmp_path / "2", {"log.txt": log, "title.txt": "command failed. stderr: err: exit status 13\n"}, ruleset)
    assert [f.rule for f in rep.findings] == ["nvml_init_failed", "reported_symptom_unjudged"]


def test_a_title_quoting_a_body_line_is_not_a_second_error(tmp_path, ruleset):
    # google/nccl-fastsocket#4: the title quotes the WARN the flow-placement rule explains; read as a WARN of the title's
    # node, it was an unexplained error of its own
    log = (ROOT / "fixtures/artefacts/nccl_log/fastsocket4_flow_placement_retries_exhausted.log").read_text()
    rep = _bundle(tmp_path, {"nccl.log": log, "title.txt": 'What does "NCCL WARN Cannot get incoming CPU" mean?\n'}, ruleset)
    assert [f.rule for f in rep.findings if f.rule == "unexplained_error"] == []
    assert {f.rule for f in rep.findings} == {"net_plugin_flow_placement_failed", "reported_symptom_unjudged"}


def test_a_title_quoting_another_warn_is_the_reporters_claim(tmp_path, ruleset):
    # a title's WARN the body does not hold was an error of its own; a title is the reporter's claim whatever it quotes
    # (round rV2): no unexplained error, the claim quoted (CONSTRUCTED title, NCCL's net.cc form)
    log = (ROOT / "fixtures/artefacts/nccl_log/fastsocket4_flow_placement_retries_exhausted.log").read_text()
    rep = _bundle(tmp_path, {"nccl.log": log, "title.txt": 'What does "NCCL WARN Could not connect to peer" mean?\n'}, ruleset)
    assert [f.rule for f in rep.findings if f.rule == "unexplained_error"] == []
    assert "reported_symptom_unjudged" in {f.rule for f in rep.findings}


def test_a_title_alone_quoting_a_programs_line_is_a_claim_never_a_fault(tmp_path, ruleset):
    # Arthur151/ROMP#80's title alone read faulty (PyTorch's NCCL error, nccl_call_failed) before round rV2
    rep = _bundle(tmp_path, {"title.txt": "RuntimeError: NCCL Error 2: unhandled system error\n"}, ruleset)
    assert [f.rule for f in rep.findings] == ["reported_symptom_unjudged"] and rep.verdict == "inconclusive"
    # the same line in the body is the program's: read as before (ROMP#80's description, verbatim)
    rep = _bundle(tmp_path / "2", {"out.txt": "RuntimeError: NCCL Error 2: unhandled system error。\n"}, ruleset)
    assert rep.verdict == "faulty"


# Ray's wrapper of a task's exception (python/ray/exceptions.py: f"RayTaskError({cause_cls.__name__})"), pasted as the
# issue's title apart from the worker's traceback (verl-project/verl#2044)
_VERL2044_TITLE = ("ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.ref_init_model() (pid=3829666, "
                   "ip=192.168.4.25, actor_id=3d6e5c6ffd510f1a1f6e1dc101000000, repr=<verl.single_controller.ray.base.WorkerDi\n")


def test_rays_wrapper_of_an_explained_exception_is_not_a_second_error(tmp_path, ruleset):
    body = (ROOT / "fixtures/artefacts/torch_log/verl2044_barrier_nccl_cuda_invalid_argument.log").read_text()
    rep = _bundle(tmp_path, {"traceback.txt": body, "title.txt": _VERL2044_TITLE}, ruleset)
    assert [f.rule for f in rep.findings if f.rule == "unexplained_error"] == []
    assert rep.verdict == "faulty" and rep.findings[0].rule == "nccl_cuda_failure_catalogue"


def test_rays_wrapper_of_another_class_stays_unexplained(tmp_path, ruleset):
    # ray-project/ray#22764's driver traceback (ray.util.collective's cupy NcclError, its message cut by the paste: the
    # wrapper is the chain's last line) beside verl#2044's DistBackendError: the wrapper names a failure the body
    # does not show
    body = (ROOT / "fixtures/artefacts/torch_log/verl2044_barrier_nccl_cuda_invalid_argument.log").read_text()
    driver = (ROOT / "fixtures/artefacts/ray_worker_death/ray22764_collective_ncclerror_wrapper_cut.txt").read_text()
    rep = _bundle(tmp_path, {"traceback.txt": body, "driver.txt": driver}, ruleset)
    left = [f.evidence[0].text for f in rep.findings if f.rule == "unexplained_error"]
    assert any(t.startswith("ray.exceptions.RayTaskError(NcclError): ") for t in left)

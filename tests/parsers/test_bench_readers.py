"""The benchmark readers (issue 15) on real output: gpu-burn, nvbandwidth, STREAM, fio, iperf3,
perftest, training throughput lines, and dcgmi diag's run level and versions."""
import pytest

from stethoscope.facts.parsers import dcgmi_diag, fio, gpu_burn, iperf3, nvbandwidth, perftest, stream, training_throughput
from stethoscope.facts.parsers.base import Artefact

from parse_helper import FIX
from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _results(r, **where):
    return [f for f in r.facts if f.kind == "bench_result" and all(getattr(f, k) == v for k, v in where.items())]


def _value(r, **where):
    (f,) = _results(r, **where)
    return f.value


def test_gpu_burn_rates_per_gpu_and_ok_verdicts():
    r = _parse(gpu_burn, "gpu_burn/superbench_a100x8_ok.log")
    rates = _results(r, metric="gflops")
    assert [f.entity for f in rates] == [f"gpu{i}" for i in range(8)] and {f.test for f in rates} == {"fp64_tc"}
    assert _value(r, entity="gpu0") == 16942.0 and r.errors == []
    verdicts = [f for f in r.facts if f.kind == "gpu_burn_verdict"]
    assert [(v.gpu, v.status, v.errors, v.gpus_tested) for v in verdicts][:2] == [(0, "OK", 0, 8), (1, "OK", 0, 8)]


def test_gpu_burn_faulty_with_warning_counts():
    r = _parse(gpu_burn, "gpu_burn/gpu_burn12_16gpu_faulty.txt")
    verdicts = {v.gpu: v for v in r.facts if v.kind == "gpu_burn_verdict"}
    assert len(verdicts) == 16 and all(v.status == "FAULTY" for v in verdicts.values())
    assert verdicts[1].errors == 524288000 and verdicts[0].errors == 0 and verdicts[0].evidence.line == 5
    assert _value(r, entity="gpu10") == 6660.0


def test_gpu_burn_progress_only_gives_rates_and_no_verdict():
    r = _parse(gpu_burn, "gpu_burn/gpu_burn48_gtx1080_x2.txt")
    assert _value(r, entity="gpu1") == 6743.0 and not [f for f in r.facts if f.kind == "gpu_burn_verdict"]
    assert "GTX 1080" in _results(r, entity="gpu0")[0].detail


def test_gpu_burn_died_flag():
    text = ("30.0%  proc'd: -1 (0 Gflop/s) - 21 (9000 Gflop/s)   errors: -533715488  (DIED!)- 0   temps: 30 C - 30 C \n"
            "Tested 2 GPUs:\n\tGPU 0: FAULTY\n\tGPU 1: OK\n")
    r = _parse(gpu_burn, text=text)
    v = {f.gpu: f for f in r.facts if f.kind == "gpu_burn_verdict"}
    assert v[0].died and not v[1].died and [f.entity for f in _results(r)] == ["gpu1"]


def test_gpu_burn_worker_that_could_not_start_its_test():
    # wilicc/gpu-burn#52 (a K80 host): GPU 0's worker could not load compare.ptx, the parent's progress shows it -1 and
    # "(DIED!)" with a garbage count, the excerpt cut inside its last record (the capture's end, not a problem)
    r = _parse(gpu_burn, "gpu_burn/gpu_burn52_k80_load_module_died.txt")
    (f,) = [f for f in r.facts if f.kind == "gpu_burn_worker_failure"]
    assert (f.stage, f.step, f.error, f.died, f.evidence.line) == ("test_init", "load module", None, "0", 9)
    assert not r.errors and [h.limit for h in r.limits] == ["cut_short"]
    # the 2023+ form (file and line, CUDA's own words), the no-step form, a reason of gpu-burn's own, the parent's
    # last words, and the verdict of the GPU that never started (CONSTRUCTED from gpu_burn-drv.cpp's formats)
    text = ("GPU 0: Tesla K80 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
            "GPU 1: Tesla K80 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n"
            "Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:244): device kernel image is invalid\n"
            "Couldn't init a GPU test: Error: CUDA_ERROR_UNKNOWN\n"
            "Couldn't init a GPU test: Low mem for result. aborting.\n"
            "100.0%  proc'd: -1 (0 Gflop/s) - 636 (2085 Gflop/s)   errors: 77  (DIED!)- 0   temps: 33 C - 30 C \n"
            "\n\nNo clients are alive!  Aborting\n\nTested 2 GPUs:\n\tGPU 0: FAULTY\n\tGPU 1: OK\n")
    r = _parse(gpu_burn, text=text)
    got = [(f.stage, f.step, f.error, f.died) for f in r.facts if f.kind == "gpu_burn_worker_failure"]
    assert got == [("test_init", "load module", "device kernel image is invalid", "0"),
                   ("test_init", None, "CUDA_ERROR_UNKNOWN", "0"), ("test_init", None, None, "0"),
                   ("no_workers", None, None, "0")]
    v = {f.gpu: f for f in r.facts if f.kind == "gpu_burn_verdict"}
    assert v[0].never_started and not v[1].never_started
    # must not: a GPU that computed before it died is no worker that never started (CONSTRUCTED)
    died_late = text.replace("proc'd: -1 (0 Gflop/s)", "proc'd: 512 (2000 Gflop/s)")
    v = {f.gpu: f for f in _parse(gpu_burn, text=died_late).facts if f.kind == "gpu_burn_verdict"}
    assert not v[0].never_started


def test_gpu_burn_runs_pasted_one_after_the_other_and_an_ok_that_compared_nothing(tmp_path):
    """Wild sweep J3 (wilicc/gpu-burn#124, a control read HEALTHY): an A500's run (progress to 100 %, errors 0, cut
    before its verdicts) and then an A2000's that printed no progress line and closed "GPU 0: OK" were read as one GPU
    0, OK: gpu-burn prints OK wherever no error was counted (gpu_burn-drv.cpp), so an OK whose run shows no progress
    record for the GPU compared nothing. Each run starts at nvidia-smi -L's listing; the OK keeps processed None, which
    knowledge/coverage.yaml does not count as a check: the paste is not evidence of a healthy GPU."""
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    path = "gpu_burn/gpu_burn124_a500_then_a2000_no_progress.txt"
    r = _parse(gpu_burn, path)
    (a500,) = _results(r, metric="gflops")
    assert "A500" in a500.detail and a500.evidence.line == 15
    (ok,) = [f for f in r.facts if f.kind == "gpu_burn_verdict"]
    assert (ok.status, ok.processed, ok.errors, ok.evidence.line) == ("OK", None, None, 32)
    (tmp_path / "burn.txt").write_text((FIX / path).read_text())
    rep = diagnose_bundle(tmp_path, load_rules(), jobs=1)
    assert rep.verdict == "inconclusive", rep.verdict
    # must not: a run whose progress shows the GPU's work keeps its OK a check (superbench's 8 x A100), and a
    # FAULTY stays one whatever its progress showed
    verdicts = [f for f in _parse(gpu_burn, "gpu_burn/superbench_a100x8_ok.log").facts if f.kind == "gpu_burn_verdict"]
    assert len(verdicts) == 8 and all(v.processed and v.processed > 0 for v in verdicts)
    (tmp_path / "burn.txt").write_text((FIX / "gpu_burn/superbench_a100x8_ok.log").read_text())
    assert diagnose_bundle(tmp_path, load_rules(), jobs=1).verdict == "healthy"
    text = ("GPU 0: NVIDIA A100 (UUID: GPU-0)\n10.0%  proc'd: 0 (0 Gflop/s)   errors: 5  (WARNING!)   temps: 30 C \n"
            "Tested 1 GPUs:\n\tGPU 0: FAULTY\n")
    (v,) = [f for f in _parse(gpu_burn, text=text).facts if f.kind == "gpu_burn_verdict"]
    assert (v.status, v.processed, v.errors) == ("FAULTY", 0, 5)


def test_gpu_burn_record_split_by_a_long_run_of_blanks_is_linear():
    # a real progress line (superbench's) split by 30,000 blanks (bench/redos.py's variant): the blanks before
    # "errors:" are bounded, so the lazy figures' run does not scan the whole run at each step (0.35 s before)
    import time
    line = "11.7%  proc'd: 2947 (7124 Gflop/s) - 2664 (6963 Gflop/s)   errors: 0 - 0   temps: 56 C - 7"
    hostile = line[:46] + " " * 30_000 + line[46:]
    t = time.process_time()
    assert gpu_burn._RECORD.search(hostile) is None and gpu_burn._RECORD.search(line)["errors"] == "0 - 0"
    assert time.process_time() - t < 0.1

def test_nvbandwidth_text_matrices_sums_and_latency():
    r = _parse(nvbandwidth, "nvbandwidth/superbench_gh200_v0.6.txt")
    assert _value(r, test="host_to_device_memcpy_ce", entity="cpu1->gpu2") == 312.11
    assert _value(r, test="device_to_host_memcpy_ce", entity="cpu0<-gpu1") == 312.11
    assert _value(r, test="host_to_device_memcpy_ce", metric="sum") == 1985.6
    (lat,) = _results(r, test="host_device_latency_sm", metric="latency")
    assert (lat.value, lat.unit, lat.higher_is_better, lat.tool_version) == (772.58, "ns", False, "v0.6")
    assert not _results(r, metric="sum", unit="GB/s", test="host_device_latency_sm")


def test_nvbandwidth_paste_named_by_its_sum_line_skips_na():
    r = _parse(nvbandwidth, "nvbandwidth/nvbandwidth50_a6000x6_v0.8.txt")
    cells = _results(r, metric="bandwidth")
    assert len(cells) == 30 and {f.test for f in cells} == {"device_to_device_memcpy_read_ce"}
    assert _value(r, entity="gpu3->gpu0") == 21.82 and not _results(r, entity="gpu0->gpu0")


def test_nvbandwidth_device_local_copy_and_the_v08_banner_are_read():
    # NVIDIA/nvbandwidth#48 (v0.8, 8 x H20-3e): the one-row "memcpy local GPU(column)" matrix was no matrix to the reader
    # (its description has no row), and the banner, host name and Device lines nobody's: an unread_run limit called the
    # tool's own lines "another program's output" (wild sweep rN4, a control)
    r = _parse(nvbandwidth, "nvbandwidth/nvbandwidth48_h20_3e_device_local_copy_v0.8.txt")
    cells = _results(r, metric="bandwidth")
    assert [(f.entity, f.value) for f in cells][:3] == [("gpu0", 1116.30), ("gpu1", 1116.30), ("gpu2", 1115.72)]
    assert len(cells) == 8 and {(f.test, f.detail, f.tool_version) for f in cells} == {("device_local_copy", "memcpy local", "v0.8")}
    assert _value(r, test="device_local_copy", metric="sum") == 8930.99 and r.errors == []
    assert r.lines_used == 19  # every line but the shell's prompt (blank lines are no lines to read)
    # must not: a host name is the line right before Device 0 only; a Device line without nvbandwidth's bus id is no
    # device line of it (CUDA's deviceQuery: 'Device 0: "Tesla V100-SXM2-16GB"'), a version line of another tool stays
    text = "nvbandwidth Version: v0.8\nmyhost\n\nDevice 0: NVIDIA A100 (00000000:34:00)\n" \
           'Device 1: "Tesla V100-SXM2-16GB"\nNVRM version: NVIDIA UNIX x86_64 Kernel Module\n'
    assert _parse(nvbandwidth, text=text).lines_used == 2


def test_nvbandwidth_json():
    # nvbandwidth v0.5 --json on one GPU, as DCGM's nvbandwidth plugin tests carry it: waived
    # device-to-device cases (one GPU) give no figure, the latency case is in ns, lower is better
    r = _parse(nvbandwidth, "nvbandwidth/dcgm_nvbandwidth_plugin_v0.5_1gpu.json")
    assert r.errors == []
    assert _value(r, test="host_to_device_memcpy_ce", entity="cpu0->gpu0") == 12.3964
    assert _value(r, test="device_to_host_memcpy_ce", metric="sum") == 13.200093726
    (lat,) = _results(r, test="host_device_latency_sm", metric="latency")
    assert (lat.value, lat.unit, lat.higher_is_better, lat.tool_version, lat.evidence.line) == (649.879, "ns", False, "v0.5", 294)
    assert not _results(r, test="device_to_device_memcpy_read_ce")


def test_nvbandwidth_row_of_the_wrong_width_is_a_parse_error():
    text = "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n           0         1\n 0       N/A     26.34     1.0\n"
    r = _parse(nvbandwidth, text=text)
    assert r.facts == [] and len(r.errors) == 1 and r.errors[0].line == 3


def test_stream_four_kernels():
    r = _parse(stream, "stream/superbench_zen_5.10.txt")
    assert [(f.test, f.value) for f in _results(r)] == [("Copy", 342008.3), ("Scale", 342409.6), ("Add", 343827.7), ("Triad", 363208.7)]
    assert _results(r, test="Triad")[0].detail == "32 threads; array 400000000 elements; solution validates"
    r2 = _parse(stream, "stream/daizhiyuan_centos7_5.10.txt")
    assert _value(r2, test="Triad") == 98350.8 and _results(r2, test="Copy")[0].evidence.line == 5


def test_fio_json_read_and_write():
    r = _parse(fio, "fio/superbench_randrw_fio3.16.json")
    assert _value(r, test="rand_read_write read", metric="iops") == 85138.9
    lat = _results(r, test="rand_read_write write", metric="lat_mean")[0]
    assert (lat.value, lat.unit, lat.higher_is_better, lat.entity) == (1560.749, "usec", False, "/dev/nvme0n1")


def test_fio_terse_v3_fields():
    r = _parse(fio, "fio/terse_v3_fio3.32_seqread.txt")
    assert [(f.metric, f.value) for f in _results(r)] == [("bandwidth", 13209.0), ("iops", 3302.0), ("lat_mean", 302.055)]
    assert _results(r)[0].tool_version == "fio-3.32" and _results(r)[0].evidence.line == 5


def test_fio_short_terse_line_is_a_parse_error():
    r = _parse(fio, text="3;fio-3.32;name;0;0;132160;13209\n")
    assert r.facts == [] and len(r.errors) == 1


def test_iperf3_text_and_json_summaries():
    r = _parse(iperf3, "iperf3/iperf734_text_10s.txt")
    assert [(f.metric, f.value) for f in _results(r)] == [("sender_bitrate", 0.0881), ("receiver_bitrate", 0.0876)]
    r = _parse(iperf3, "iperf3/iperf306_summary.txt")
    assert _value(r, metric="sender_bitrate") == 8.114
    r = _parse(iperf3, "iperf3/cloudpilot_tcp_iperf3.9.json")
    s = _results(r, metric="sender_bitrate")[0]
    assert (s.value, s.entity, s.test, s.tool_version) == (0.4645, "169.44.160.3", "tcp", "iperf 3.9")


def test_iperf3_sum_rows_stand_for_parallel_streams():
    text = ("[  5]   0.00-10.00  sec  5.00 GBytes  4.29 Gbits/sec    3             sender\n"
            "[  7]   0.00-10.00  sec  5.00 GBytes  4.30 Gbits/sec    1             sender\n"
            "[SUM]   0.00-10.00  sec  10.0 GBytes  8.59 Gbits/sec    4             sender\n")
    r = _parse(iperf3, text=text)
    assert [(f.value, f.detail) for f in _results(r)] == [(8.59, "2 stream(s); retransmits 4; 0.00-10.00 s")]


def test_iperf3_json_error_is_a_parse_error():
    r = _parse(iperf3, text='{"start": {"connecting_to": {"host": "h"}}, "intervals": [], "end": {}, "error": "unable to connect to server: Connection refused"}\n')
    assert r.facts == [] and "Connection refused" in r.errors[0].message


def test_perftest_write_bw_converted_to_gbit():
    r = _parse(perftest, "perftest/superbench_ib_write_bw_8M.txt")
    bw = _results(r, metric="bw_average")
    assert {(f.test, f.entity, f.size_bytes, f.value) for f in bw} == {("ib_write_bw", "ib0", 8388608, 201.8024)}


def test_perftest_read_bw_and_send_lat_sweeps():
    r = _parse(perftest, "perftest/ib_read_bw_send_lat_mlx4_capture.txt")
    assert _value(r, test="ib_read_bw", metric="bw_average", size_bytes=65536) == round(3669.96 * 1048576 * 8 / 1e9, 4)
    lat = _results(r, test="ib_send_lat", metric="t_typical", size_bytes=2)[0]
    assert (lat.value, lat.higher_is_better, lat.entity) == (1.07, False, "mlx4_0")
    assert len(_results(r, test="ib_send_lat", metric="t_p99")) == 23 and r.errors == []


def test_perftest_old_send_bw_without_msgrate():
    r = _parse(perftest, "perftest/ib_send_bw_ud_mlx4_jebtang.txt")
    rows = _results(r, test="ib_send_bw")
    assert len(rows) == 11 and rows[-1].size_bytes == 2048 and "connection UD" in rows[-1].detail


def test_perftest_short_row_is_a_parse_error():
    text = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
            " 2       1000          0.96           3.45\n")
    r = _parse(perftest, text=text)
    assert r.facts == [] and len(r.errors) == 1


@pytest.mark.parametrize("rel,test,metric,value", [
    ("training_throughput/megatron756_mixtral_h100.log", "megatron", "tflops_per_gpu", 232.2),
    ("training_throughput/megatron756_mixtral_h100.log", "megatron", "iteration_time", 5626.2),
    ("training_throughput/superbench_megatron_deepspeed_excerpt.log", "megatron", "samples_per_second", 27.228),
    ("training_throughput/superbench_megatron_deepspeed_excerpt.log", "deepspeed", "samples_per_second", 311.4153),
    ("training_throughput/hf_trainer_glue_metrics.log", "hf_trainer", "samples_per_second", 25.132),
    ("training_throughput/torchtitan_llama3_8b_bf16_torchao_docs.log", "torchtitan", "tokens_per_second", 6310.5),
    ("training_throughput/torchtitan_llama3_8b_bf16_torchao_docs.log", "torchtitan", "mfu", 36.95),
])
def test_training_throughput_steady_state(rel, test, metric, value):
    r = _parse(training_throughput, rel)
    assert _value(r, test=test, metric=metric) == value


def test_torchtitan_step_line_after_its_logging_stamp_is_taken_off():
    # pytorch/torchtitan#708: "0: [rank0]:2024-11-27 14:29:40,378 - root - INFO - step: 10 ..." (no "[titan] " tag);
    # the labels and Python logging's stamp go, "step: 10  loss: ..." is what the reader sees
    r = _parse(training_throughput, "training_throughput/torchtitan708_srun_rank_labels_32xh100.log")
    assert (_value(r, test="torchtitan", metric="tokens_per_second"), _value(r, test="torchtitan", metric="mfu")) == (1786.0, 10.46)
    # CONSTRUCTED: the same line alone, and a line that only names a step is no step line
    assert _value(_parse(training_throughput, text="step: 20  loss:  1.4  memory: 26.47GiB(33.47%)  wps: 1,800  mfu: 10.5%"),
                  test="torchtitan", metric="tokens_per_second") == 1800.0
    assert not training_throughput.detect("step: 20 of the migration: see the notes")


def test_llmc_step_lines():
    # karpathy/llm.c#114 (an RTX 3060, TF32 off): "step N: train loss X (took Y ms)", the excerpt cut inside step 19's
    r = _parse(training_throughput, "training_throughput/llmc114_rtx3060_steps_tf32_off.txt")
    assert _value(r, test="llmc", metric="iteration_time") == 101.5882 and not r.errors
    # CONSTRUCTED from llm.c's later printf forms (train_gpt2.cu): the step time and tokens per second of each
    for line in ("step    3/10: train loss 4.5 (acc 4.4) (101.5 ms, 40321 tok/s)",
                 "step    3/10 | train loss 4.500000 | norm 1.2345 | lr 6.00e-04 | 101.50 ms | 40.1% bf16 MFU | 40321 tok/s",
                 "step    3/10 | loss 4.500000 (+0.12z)| norm 1.2345 (-0.50z)| lr 6.00e-04 | 101.50 ms | 40.1% bf16 MFU | 40321 tok/s"):
        r = _parse(training_throughput, text=line + "\n")
        assert (_value(r, test="llmc", metric="iteration_time"), _value(r, test="llmc", metric="tokens_per_second")) == (101.5, 40321.0), line
    # must not: a sentence about a step's loss, a step line without its time
    assert not training_throughput.detect("step 3: the loss was fine but it took 100 ms longer\n")
    assert not training_throughput.detect("step 3: train loss 4.5\n")


def test_training_first_step_left_out_only_with_three_or_more():
    r = _parse(training_throughput, "training_throughput/torchtitan_llama3_8b_bf16_torchao_docs.log")
    f = _results(r, metric="tokens_per_second")[0]
    assert f.detail == "median of 4 of 5 reported steps" and f.evidence.line == 5


def test_dcgmi_diag_run_level_and_versions():
    r = _parse(dcgmi_diag, "dcgmi_diag/dcgm198_r2_dcgm337_metadata_excerpt.txt")
    (run,) = [f for f in r.facts if f.kind == "dcgm_diag_run"]
    assert (run.level, run.level_from, run.dcgm_version, run.driver_version, run.passed) == (2, "command", "3.3.7", "560.35.03", 2)
    r = _parse(dcgmi_diag, "dcgmi_diag/go_dcgm52_memory_fail_busy.txt")
    (run,) = [f for f in r.facts if f.kind == "dcgm_diag_run"]
    assert (run.level, run.level_from, run.failed, run.passed) == (2, "tests", 1, 1)


@pytest.mark.parametrize("line,what,value", [
    ("FloatingPointError: Loss became infinite or NaN at iteration=27!", "loss", "nan or inf"),  # detectron2#508
    ("Loss is nan, stopping training", "loss", "nan"),  # Intellindust-AI-Lab/DEIM#96 (the DETR family)
    ("ValueError: The loss returned in `training_step` is nan.", "loss", "nan"),  # Lightning's _check_finite
    ("Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.", "loss_scale", "nan or inf"),
    ("FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.", "loss_scale", "nan or inf"),
    (" iteration 5426/ 250000 | loss scale: 1.0 | grad norm: nan | number of nan iterations: 0 |", "grad_norm", "nan"),
    ("{'loss': inf, 'learning_rate': 1e-05, 'epoch': 0.1}", "loss", "inf"),
    # DeepSpeed's fp16 loss scaler overflowing at its floor (huggingface/transformers#14834): the new scale is the attempted one
    ("[2021-12-19 16:54:45,098] [INFO] [unfused_optimizer.py:202:step] [deepspeed] fp16 dynamic loss scale overflow! Skipping step. "
     "Attempted loss scale: 1, reducing to 1", "loss_scale", "nan or inf"),
    ("[2021-12-19 16:54:45,098] [INFO] [unfused_optimizer.py:277:_update_scale] Reducing dynamic loss scale from 1 to 1",
     "loss_scale", "nan or inf"),
    # a loss named with a prefix, "name value" pairs without a separator (dariopavllo/convmesh#8)
    ("[10] epoch 0, 10/186, g_loss nan d_fake_loss nan d_real_loss nan flat nan", "loss", "nan"),
    ("{'train_loss': nan, 'epoch': 1.0}", "loss", "nan"),
    # PyTorch's anomaly mode naming the backward function (bghira/SimpleTuner#304, pytorch/pytorch#51196)
    ("RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.", "gradient", "nan"),
    # verl's FSDP workers skipping the step (verl-project/verl#870; the actor's form names the rank and prints the tensor)
    ("(WorkerDict pid=9092) WARN: grad_norm is not finite: nan", "grad_norm", "nan"),
    ("WARN: rank 3 grad_norm is not finite: tensor(inf, device='cuda:3')", "grad_norm", "inf"),
    # gpt-neox's OverflowMonitor (EleutherAI/gpt-neox#482)
    ("Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.", "loss_scale", "nan or inf"),
    # apex amp's floorless scaler halving below 1 (NVIDIA/apex#834, #318), and apex's FP16_Optimizer's form
    ("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5", "loss_scale", "nan or inf"),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 2.002083095183101e-146", "loss_scale", "nan or inf"),
    ("Gradient overflow.  Skipping step, reducing loss scale to 0.25", "loss_scale", "nan or inf"),
    # fairseq's trainer on a non-finite clipped norm (facebookresearch/fairseq#4118's title)
    ("FloatingPointError: gradients are Nan/Inf", "grad_norm", "nan or inf"),
    # ESPnet2's trainer skipping the step, then stopping the run when no step of an epoch was finite (espnet/espnet#3630),
    # and ESPnet1's updater's warning as a title quotes it (espnet/espnet#964)
    ("(trainer:582) WARNING: The grad norm is nan. Skipping updating the model.", "grad_norm", "nan"),
    ("(trainer:404) WARNING: The gradients at all steps are invalid in this epoch. Something seems wrong. "
     "This training was stopped at 2epoch", "grad_norm", "nan or inf"),
    ("Loss is ok, but grad norm is nan. Do not update model", "grad_norm", "nan"),
])
def test_training_loss_not_finite(line, what, value):
    art = Artefact(path="train.log", text=line + "\n", node="n1")
    assert training_throughput.detect(line)
    facts = [f for f in training_throughput.parse(art).facts if f.kind == "training_loss_not_finite"]
    assert [(f.what, f.value) for f in facts] == [(what, value)]


@pytest.mark.parametrize("line", [
    # CTC ignoring the samples whose gradient was NaN is the loss handling them, no diverged norm (espnet/espnet#3630)
    "(ctc:71) WARNING: 5/42 samples got nan grad. These were ignored for CTC loss.",
    # ESPnet1's finite norm, and words around the form that are not it
    "grad norm=3.2125", "The grad norm is 12.5", "the grad norm is nanoseconds away", "The gradients at all steps are valid",
])
def test_espnet_forms_near_misses(line):
    art = Artefact(path="train.log", text=line + "\n", node="n1")
    assert not [f for f in training_throughput.parse(art).facts if f.kind == "training_loss_not_finite"]


def test_megatron_nan_checks_name_rank_device_and_host():
    """Megatron's per-rank NaN check (the assert and the rerun state machine's RuntimeError), real lines."""
    res = _parse(training_throughput, "training_throughput/megatron_nan_grad_norm_checks.log")
    facts = [f for f in res.facts if f.kind == "training_loss_not_finite"]
    assert [(f.what, f.value, f.rank, f.device, f.host) for f in facts] == [
        ("grad_norm", "nan", 11, 3, None),  # Pai-Megatron-Patch#366: "Device: 3" without its node
        ("grad_norm", "nan", 3, 3, "set-zw04-kubernetes-pc133.mt"),  # Pai-Megatron-Patch#60
        ("grad_norm", "nan", 7, 7, "ed04b71d5c00"),  # ms-swift#8366: "...报错Rank 7, node ..., device 7"
    ]
    # the host the line names is the fact's node where no folder names one (harvest 3004, NVIDIA/cloudai#486:
    # "Rank 40, node cw-dfw-h100-002-295-026, device 0, ..."); a line without a host keeps the file's node
    assert [f.node for f in facts] == ["n1", "set-zw04-kubernetes-pc133.mt", "ed04b71d5c00"]
    folder = Artefact(path="t.log", node="gpu7", node_from_folder=True,
                      text="Rank 7, node ed04b71d5c00, device 7, iteration -1: Unexpected result nan (message='found NaN in"
                           " local grad norm for bucket #0 in backward pass before data-parallel communication collective')\n")
    assert [(f.node, f.host) for f in training_throughput.parse(folder).facts] == [("gpu7", "ed04b71d5c00")]
    inf = Artefact(path="t.log", node="n1", text="Rank 0, node h1, device 0, iteration 12: Unexpected result inf "
                   "(message='found Inf in local forward loss calculation')\n")
    assert [(f.what, f.value, f.rank) for f in training_throughput.parse(inf).facts] == [("loss", "inf", 0)]
    # mcore >= 0.16's first report names the rank only, in lower case (NVIDIA/Megatron-LM#5026)
    first = Artefact(path="t.log", node="n1", text="ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 "
                     "at iteration #3 invocation #2 (message='found NaN in local grad norm for bucket #0 in backward pass "
                     "before data-parallel communication collective')\n")
    assert [(f.what, f.value, f.rank, f.device) for f in training_throughput.parse(first).facts] == [("grad_norm", "nan", 3, None)]


def test_fairseq_workers_grad_norms():
    """fairseq's per-worker table after "gradients are inconsistent between workers": NaN on every worker is the job's
    (one fact, no rank; fairseq#1372), NaN on some names those ranks, finite norms that differ read nothing (fairseq#3920's
    comment: "rank   0 = 11.16489500 / rank   1 = 10.57914402")."""
    res = _parse(training_throughput, "training_throughput/fairseq1372_grad_norm_nan_all_workers.log")
    facts = [f for f in res.facts if f.kind == "training_loss_not_finite"]
    assert [(f.what, f.value, f.rank, f.evidence.line) for f in facts] == [("grad_norm", "nan", None, 10)]
    some = "grad_norm across the workers:\nrank   0 = 11.16489500\nrank   1 = nan\nrank   2 = inf\n\n"
    assert training_throughput.detect(some)
    got = training_throughput.parse(Artefact(path="t.log", node="n1", text=some)).facts
    assert [(f.what, f.value, f.rank, f.evidence.line) for f in got] == [("grad_norm", "nan", 1, 3), ("grad_norm", "inf", 2, 4)]
    finite = "grad_norm across the workers:\nrank   0 = 11.16489500\nrank   1 = 10.57914402\n"
    assert not training_throughput.detect(finite)
    assert training_throughput.parse(Artefact(path="t.log", node="n1", text=finite)).facts == []


def test_nonfinite_rank_named_and_job_ranks():
    """verl's actor names the rank (dp_actor.py: f"WARN: rank {rank} grad_norm is not finite: ..."); the job's rank
    count the same file states (fairseq's table rows, Megatron's "using world size: N") is carried on the rank-named
    facts only when those ranks are some of the job's, not all; a rank count the file does not state is no guess."""
    verl = "(WorkerDict pid=9092) WARN: rank 3 grad_norm is not finite: nan\n"
    got = training_throughput.parse(Artefact(path="t.log", node="n1", text=verl)).facts
    assert [(f.what, f.value, f.rank, f.job_ranks) for f in got] == [("grad_norm", "nan", 3, None)]
    some = "grad_norm across the workers:\nrank   0 = 11.16489500\nrank   1 = nan\nrank   2 = inf\n\n"
    got = training_throughput.parse(Artefact(path="t.log", node="n1", text=some)).facts
    assert [(f.rank, f.job_ranks) for f in got] == [(1, 3), (2, 3)]
    megatron = ("using world size: 8, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 1\n"
                "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 invocation #2 "
                "(message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')\n")
    got = training_throughput.parse(Artefact(path="t.log", node="n1", text=megatron)).facts
    assert [(f.rank, f.job_ranks) for f in got] == [(3, 8)]
    alone = megatron.replace("world size: 8", "world size: 1").replace("rank 3", "rank 0")
    assert [(f.rank, f.job_ranks) for f in training_throughput.parse(Artefact(path="t.log", node="n1", text=alone)).facts] == [(0, None)]


def test_apex_scale_halving_below_one_is_read_once_per_kind():
    """NVIDIA/apex#834: the scale halving from 32768 on every step; the lines at 1.0 and above are the scaler finding
    its level, the first below 1 is the fact."""
    res = _parse(training_throughput, "training_throughput/apex834_amp_scale_below_one.log")
    facts = [f for f in res.facts if f.kind == "training_loss_not_finite"]
    assert [(f.what, f.value) for f in facts] == [("loss_scale", "nan or inf")]
    assert "reducing loss scale to 0.5" in facts[0].evidence.text


@pytest.mark.parametrize("line", [
    "number of nan iterations: 0",
    "{'loss': 0.4564, 'grad_norm': 1.25, 'epoch': 3.0}",
    "the loss is now stable",
    "loss: 0.234 (nan-safe)",
    # the loss scaler still finding its level: a falling scale (huggingface/transformers#9996), DeepSpeed's hysteresis
    "[2021-02-04 15:06:19,825] [INFO] [stage2.py:1357:step] [deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 134217728.0, reducing to 67108864.0",
    "[2023-04-28 06:51:29,903] [INFO] [loss_scaler.py:188:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1",
    "[2024-09-23 10:11:02,257] [INFO] [fused_optimizer.py:353:_update_scale] Increasing dynamic loss scale from 16384.0 to 32768.0",
    "[0] epoch 0, 0/186, g_loss 1.25 d_fake_loss 0.00000 d_real_loss 0.00000 flat 0.24812",
    "loss scale: 1.0 | grad norm: 3.2 |",
    # apex's scaler finding its level (NVIDIA/apex#834's first lines)
    "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
    "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1.0",
    # anomaly mode's warning before the error names the function, not a NaN; a function returning finite values
    "UserWarning: Error detected in MulBackward0. Traceback of forward call that caused the error:",
    "Skipped 0 iterations",
])
def test_training_loss_finite_near_misses(line):
    art = Artefact(path="train.log", text=line + "\n", node="n1")
    assert [f for f in training_throughput.parse(art).facts if f.kind == "training_loss_not_finite"] == []

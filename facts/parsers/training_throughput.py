"""Training throughput lines of the usual frameworks: Megatron-LM (and Megatron-DeepSpeed),
DeepSpeed's throughput timer, the Hugging Face Trainer's metrics dict, torchtitan's step line.

Sample content (NVIDIA/Megatron-LM#756; superbenchmark tests/data/megatron_deepspeed.log; a Hugging
Face Trainer GLUE run; torchtitan's Llama 3 8B output in pytorch/ao's pretraining tutorial; llm.c's step line,
karpathy/llm.c#114)::

     [2024-04-06 02:59:36] iteration       43/     100 | consumed samples:         5504 | elapsed time per iteration (ms): 5444.9 | throughput per GPU (TFLOP/s/GPU): 239.8 | ...
    vm-07-14:  iteration        1/       5 | ... | elapsed time per iteration (ms): 76015.3 | ... | samples per second: 26.942 | TFLOPs: 147.61 |
    [2023-11-29 08:55:00,932] [INFO] [timer.py:260:stop] epoch=0/micro_step=3/global_step=3, RunningAvgSamplesPerSec=291.6169137604138, CurrSamplesPerSec=291.6169137604138, MemAllocated=17.54GB, MaxMemAllocated=66.97GB
    {'train_runtime': 437.8544, 'train_samples_per_second': 25.132, 'train_steps_per_second': 3.145, 'train_loss': 0.4564213610768924, 'epoch': 3.0}
    [rank0]:[titan] 2025-06-04 11:02:49,027 - root - INFO - step: 10  loss: 10.4260  memory: 30.89GiB(32.51%)  tps: 6,344  tflops: 367.39  mfu: 37.15%
    step 19: train loss 4.207106 (took 101.577380 ms)

Facts: ``bench_result`` per framework and metric (test ``megatron``/``deepspeed``/``hf_trainer``/
``torchtitan``/``llmc``, entity ``job``): the median over the steps reported, the first step left out
when there are three or more (it includes compilation and warm-up); the evidence is the last
line. Megatron: ``iteration_time`` (ms, lower better), ``tflops_per_gpu``,
``samples_per_second``; DeepSpeed: ``samples_per_second`` (the last running average, else the
median of SamplesPerSec); HF Trainer: ``samples_per_second``, ``steps_per_second``,
``tokens_per_second`` of the closing ``train_*`` dict; torchtitan: ``tokens_per_second`` (tps
or wps, per GPU), ``tflops``, ``mfu`` (%); llm.c: ``iteration_time`` (ms), ``tokens_per_second`` (where printed).

``training_loss_not_finite`` for a line that says the loss (or the gradient norm) became NaN or
infinite, in the words the frameworks stop with (detectron2's ``FloatingPointError: Loss became
infinite or NaN at iteration=N!``, the DETR family's ``Loss is nan, stopping training``, PyTorch
Lightning's ``The loss returned in `training_step` is nan.``, fairseq's and DeepSpeed's fp16 loss
scaler giving up, or DeepSpeed's overflow lines once the scale it reduces to is the scale it attempted:
``Attempted loss scale: 1, reducing to 1``, the scaler at its floor; apex's floorless amp scaler halving
below 1, gpt-neox's ``Skipped 50 iterations in a row due to Overflow``), PyTorch's anomaly mode
(``Function 'MulBackward0' returned nan values in its 0th output.``: what ``gradient``), verl's
``WARN: grad_norm is not finite: nan`` (its actor's ``WARN: rank 3 grad_norm is not finite: nan`` names the rank), c10d's NaN
check on a collective's input (TORCH_NCCL_NAN_CHECK: ``checkForNaN: ... Assertion `!isnan(val)` failed.``, what
``collective_input``), or in a metrics line (Megatron's ``grad norm: nan``, the
Trainer's ``{'loss': nan}``, a prefixed name without a separator: ``g_loss nan``).
Straggler reports (wild sweep 46): ``rank_performance_score`` per rank of nvidia-resiliency-ext's
``GPU relative performance:`` / ``GPU individual performance:`` blocks (``  Rank=76 Node=h100-001-253-012
Score=0.94``: NeMo's and Megatron-Bridge's straggler callbacks; the fact on the node the row names) and for
the slowest rank of Megatron-LM's StragglerDetector line (``MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk:
3468.20ms/0 | ... | MnEtpt/Rnk: 296.02TF/0 | MxEtpt/Rnk: 297.32TF/8``: fastest over slowest), each with
knowledge/straggler.yaml's ``below_score``; ``straggler_reported`` per rank a detector's own verdict names
(``STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [76, 13]``,
FlagScale's ``Detected stragglers: [5]`` with its ``  Rank 5 (node)`` rows).
Input wait (wild sweep 49, round C7; facts/parsers/training_input_wait.py): ``input_wait_share`` per
framework (and rank, when a launcher label names it) of the trainers' per-iteration lines that print the
iteration time and the time spent waiting for the batch (mmengine, mmcv and its JSON log, detectron2, YOLOX,
timm, LeRobot, torchvision's MetricLogger ``time: 2.5401  data: 0.0336  max mem: 3524``): the median of
data_time over iteration time over the training lines, the first left out from three on; pytorch/examples'
ImageNet ``Time 22.424 (7.498)  Data 22.372 (7.070)``: the mean over the iterations between an epoch's first
and last line, from its running averages; with knowledge/input_pipeline.yaml's ``at_least_share`` and
``min_lines``.
Text without these lines yields nothing.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    InputWaitShare,
    RankPerformanceScore,
    StragglerReported,
    TrainingLossNotFinite,
    TrainingLossSpike,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult
from stethoscope.facts.parsers.torch_log_lines import global_rank
# the trainers' per-iteration data wait lives in its own module
from stethoscope.facts.parsers.training_input_wait import SIGNATURES as WAIT_SIGNATURES
from stethoscope.facts.parsers.training_input_wait import input_wait, wait_in_head

KIND = "training_throughput"

# iteration       43/     100 | consumed samples:         5504 | elapsed time per iteration (ms): 5444.9 | throughput per GPU (TFLOP/s/GPU): 239.8 |
_MEGATRON = re.compile(r"\biteration\s+(?P<it>\d+)/\s*\d+ \|.*?\| elapsed time per iteration \(ms\): (?P<ms>\d+(?:\.\d+)?) \|")
_MEGATRON_TFLOPS = re.compile(r"\| throughput per GPU \(TFLOP/s/GPU\): (?P<v>\d+(?:\.\d+)?) \||\| TFLOPs: (?P<ds>\d+(?:\.\d+)?) \|")
_MEGATRON_SPS = re.compile(r"\| samples per second: (?P<v>\d+(?:\.\d+)?) \|")
# [timer.py:260:stop] epoch=0/micro_step=3/global_step=3, RunningAvgSamplesPerSec=291.61, CurrSamplesPerSec=291.61, MemAllocated=17.54GB
# [timer.py:189:stop] 0/40, SamplesPerSec=83.48609168106144, MemAllocated=0.26GB, MaxMemAllocated=9.02GB       (DeepSpeed <= 0.7)
_DEEPSPEED = re.compile(r"\[timer\.py:\d+:stop\] (?:epoch=\d+/micro_step=\d+/global_step=\d+|\d+/\d+), "
                        r"(?:RunningAvgSamplesPerSec=(?P<avg>\d+(?:\.\d+)?(?:e[+-]?\d+)?)|SamplesPerSec=(?P<sps>\d+(?:\.\d+)?(?:e[+-]?\d+)?))")
# {'train_runtime': 437.8544, 'train_samples_per_second': 25.132, 'train_steps_per_second': 3.145, 'train_loss': 0.456, 'epoch': 3.0}
# (the rest bounded and possessive: the real dict is 144 characters; unbounded, a long line of
#  "{'train_runtime': ..." with no "}" was scanned to its end once per occurrence)
_HF = re.compile(r"\{'train_runtime': (?P<rt>\d+(?:\.\d+)?),(?P<rest>[^}]{0,1000}+)\}")
_HF_KEY = re.compile(r"'train_(?P<k>samples_per_second|steps_per_second|tokens_per_second)': (?P<v>\d+(?:\.\d+)?)")
# - root - INFO - step: 10  loss: 10.4260  memory: 30.89GiB(32.51%)  tps: 6,344  tflops: 367.39  mfu: 37.15%
# or, torchtitan of 2024 without its "[titan] " tag, the line once facts/lines.py took Python logging's stamp
# ("2024-11-27 14:29:40,378 - root - INFO - ") off as it does every logger's (pytorch/torchtitan#708, srun's and torchrun's
# labels before it):
# 0: [rank0]:2024-11-27 14:29:40,378 - root - INFO - step: 10  loss:  1.5568  memory: 26.47GiB(33.47%)  wps: 1,786  mfu: 10.46%
_TITAN = re.compile(r"(?: - root - INFO - |^)step:\s*(?P<step>\d+)\s+loss:\s*\S+.*?\s(?:tps|wps): (?P<tps>[\d,]+)(?:\s+tflops: (?P<tflops>\d+(?:\.\d+)?))?(?:\s+mfu: (?P<mfu>\d+(?:\.\d+)?)%)?")
# llm.c's train_gpt2.cu / train_gpt2.c step line (karpathy/llm.c, its printf over the versions, newest last):
# step 19: train loss 4.207106 (took 101.577380 ms)                                          (karpathy/llm.c#114, 2024-04)
# step %d/%d: train loss %f (%f ms)   /   step %4d/%d: train loss %f (%f ms, %d tok/s)
# step %4d/%d: train loss %f (acc %f) (%f ms, %d tok/s)   /   step %4d/%d: train loss %f norm %.4f lr %.2e (%.2f ms, %.0f tok/s)
# step %4d/%d | train loss %7.6f | norm %6.4f | lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s
# step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s
_LLMC = re.compile(r"^step\s{1,6}\d{1,9}(?:/\d{1,9})?(?::| \|) (?:train )?loss \S{1,30}(?P<rest>.{0,200}?)"
                   r"(?:\(took (?P<took>\d+(?:\.\d+)?) ms\)|[(|] ?(?P<ms>\d+(?:\.\d+)?) ms\b)"
                   r"(?:.{0,60}?(?:, | \| )(?P<tps>\d+(?:\.\d+)?) tok/s)?")
_DETECT = re.compile(r"\| elapsed time per iteration \(ms\): \d|\[timer\.py:\d+:stop\] .*SamplesPerSec=|\{'train_runtime': \d"
                     r"|(?: - root - INFO - |\A|\n)step:\s*\d+\s+loss:.*\s(?:tps|wps): \d"
                     r"|(?:\A|\n)step\s{1,6}\d{1,9}(?:/\d{1,9})?(?::| \|) (?:train )?loss \S{1,30}[^\n]{0,200}?\d ms\b")


# A loss that is no longer a number, in the frameworks' own words (real lines from public threads):
_NONFINITE = re.compile(
    # detectron2 engine/train_loop.py: FloatingPointError(f"Loss became infinite or NaN at iteration={storage.iter}!\n...")
    # FloatingPointError: Loss became infinite or NaN at iteration=27!       (facebookresearch/detectron2#508: "The training diverges.")
    r"\bLoss became infinite or NaN at iteration=\d+"
    # the DETR family's engine.py: print("Loss is {}, stopping training".format(loss_value)); sys.exit(1)
    # Loss is nan, stopping training                                       (Intellindust-AI-Lab/DEIM#96)
    r"|\b[Ll]oss (?:is|became|was) (?P<v1>nan|NaN|NAN|inf|Inf|infinite|-inf)\b"
    # PyTorch Lightning's _check_finite: ValueError(f"The loss returned in `training_step` is {loss}.") ("is nan or inf." before 1.0)
    # ValueError: The loss returned in `training_step` is nan.
    r"|\bThe loss returned in `training_step` is (?:tensor\()?(?P<v2>nan|inf|-inf)\b"
    # fairseq's fp16 optimizer and DeepSpeed's loss scaler, when every step overflows (the loss is inf/nan):
    # Exception: Minimum loss scale reached (0.0001). ...                   (facebookresearch/fairseq#282)
    # Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.   (ymcui/Chinese-LLaMA-Alpaca#534)
    r"|(?P<scale>\bMinimum loss scale reached \(|\bCurrent loss scale already at minimum - cannot decrease scale anymore)"
    # a metrics line: Megatron "grad norm: {:.3f}" / "lm loss: {:.6E}" (NaN there is "NAN"), the Trainer's {'loss': nan, ...}
    # iteration 5426/ 250000 | ... | loss scale: 1.0 | grad norm: nan | ...   (bigscience-workshop/Megatron-DeepSpeed#396)
    # or a loss named with a prefix (g_loss, train_loss, lm_loss) in a log of "name value" pairs without a separator:
    # [10] epoch 0, 10/186, g_loss nan d_fake_loss nan d_real_loss nan flat nan      (dariopavllo/convmesh#8, a GAN's own print)
    r"|\b(?:[A-Za-z0-9]{1,20}_){0,3}(?P<what>loss|grad(?:ient)?[ _]norm)['\"]?(?:\s{0,8}[:=]\s{0,8}['\"]?|\s{1,8})"
    r"(?P<v3>[-+]?(?:nan|NaN|NAN|inf|Inf|INF))\b"
    # Megatron's check of each rank's loss and gradients before the data-parallel reduction
    # (--check-for-nan-in-loss-and-grad): an assert in mcore <= 0.9 (core/distributed/
    # param_and_grad_buffer.py, pretrain_gpt.py loss_func: f'Rank {rank}: found NaN in local grad norm
    # in backward pass before data-parallel communication collective. Device: {d}, node: {host}'),
    # later the rerun state machine's RuntimeError (core/rerun_state_machine.py validate_result:
    # f"Rank {rank}, node {node}, device {device}, iteration {it}: Unexpected result {result}
    # (message='found NaN in local grad norm for bucket #{i} in backward pass before ...')"):
    # AssertionError: Rank 11: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 3    (alibaba/Pai-Megatron-Patch#366)
    # AssertionError: Rank 3: found NaN in local grad norm in backwards pass. Device: 3, node: set-zw04-kubernetes-pc133.mt    (alibaba/Pai-Megatron-Patch#60)
    # Rank 7, node ed04b71d5c00, device 7, iteration -1: Unexpected result nan (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collect    (modelscope/ms-swift#8366, a title cut there)
    r"|\bfound (?P<v4>NaN|Inf) in local (?P<what4>grad norm|forward loss)"
    # PyTorch's anomaly mode (torch.autograd.set_detect_anomaly; torch/csrc/autograd/engine.cpp and
    # torch/_dynamo's compiled autograd: f"Function '{node.name()}' returned nan values in its {idx}th output."):
    # the backward pass produced NaN gradients; the first backward function that did is named
    # RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.    (bghira/SimpleTuner#304, pytorch/pytorch#51196)
    r"|\bFunction '[\w.<>]{1,120}' returned (?P<v5>nan) values in its \d{1,4}th output"
    # verl's FSDP actor and critic skipping the optimizer step (verl/workers/actor/dp_actor.py, critic/dp_critic.py:
    # print(f"WARN: grad_norm is not finite: {grad_norm}"), "WARN: rank {r} grad_norm is not finite: ..." in the actor)
    # (WorkerDict pid=9092) WARN: grad_norm is not finite: nan    (verl-project/verl#870)
    r"|\bgrad_norm is not finite: [\[(]{0,2}(?:tensor\()?(?P<v6>[-+]?(?:nan|inf))?"
    # gpt-neox's OverflowMonitor (megatron/utils.py): the fp16 loss scaler skipped the last n steps in a row
    # (every one overflowed, the scale no longer helps): f"Skipped {self.n} iterations in a row due to Overflow - Exiting training."
    # Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.    (EleutherAI/gpt-neox#482)
    r"|(?P<neox>\bSkipped \d{1,9} iterations in a row due to Overflow)"
    # fairseq's trainer (fairseq/trainer.py train_step) when the clipped gradient norm is not finite, without --amp:
    # raise FloatingPointError("gradients are Nan/Inf")
    # FloatingPointError: gradients are Nan/Inf    (facebookresearch/fairseq#4118, the title)
    r"|(?P<fairseq>\bgradients are Nan/Inf\b)"
    # ESPnet2's trainer (espnet2/train/trainer.py train_one_epoch, copied by FunASR and others) skipping the optimizer
    # step on a non-finite clipped norm: logging.warning(f"The grad norm is {grad_norm}. Skipping updating the model.")
    # (the norm a float, or a tensor where clip_grad_norm_ returns one), and ESPnet1's updaters (espnet/asr/pytorch_backend/
    # asr.py CustomUpdater.update_core: logging.warning("grad norm is nan. Do not update model.")):
    # (trainer:582) WARNING: The grad norm is nan. Skipping updating the model.    (espnet/espnet#3630)
    # Loss is ok, but grad norm is nan. Do not update model                        (espnet/espnet#964, its title)
    r"|\b(?:The )?[Gg]rad norm is (?:tensor\()?(?P<v7>[-+]?(?:nan|NaN|NAN|inf|Inf))\b"
    # and, when not one step of an epoch had a finite norm (all_steps_are_invalid), it stops the run:
    # logging.warning(f"The gradients at all steps are invalid in this epoch. " f"Something seems wrong. This training was stopped at {iepoch}epoch")
    # (trainer:404) WARNING: The gradients at all steps are invalid in this epoch. Something seems wrong. This training was stopped at 2epoch    (espnet/espnet#3630, #3104)
    r"|(?P<espnet>\bThe gradients at all steps are invalid in this epoch\b)"
    # c10d's NaN check on every collective's input (TORCH_NCCL_NAN_CHECK=1, PyTorch 2.4+): a device-side assert in the
    # check kernel (torch/csrc/distributed/c10d/Utils.cu in 2.4, NanCheck.cu later; CUDA's __assertfail form), then the
    # host's "CUDA error during checkForNan" (Utils.cu, 2.4) or cudaErrorAssert: the tensor this rank was about to send held
    # NaN. The check names the rank that produced it first, before the collective spreads it (pytorch/pytorch#124348).
    # /home/sqzhang/pytorch/torch/csrc/distributed/c10d/Utils.cu:15: checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `!isnan(val)` failed.    (pytorch/pytorch#125726, its test's output, the line wrapped after the expression there)
    # /home/tristanr/pytorch/torch/csrc/distributed/c10d/NanCheck.cu:217: checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `!isnan(tailPtr[threadIdx.x])` failed.    (pytorch/pytorch#174736)
    # [rank0]:[E507 17:31:56.885473996 Utils.cu:30] CUDA error during checkForNan: device-side assert triggered    (pytorch/pytorch#125726, wrapped there after "during")
    r"|(?P<nancheck>\bcheckForNaN: block: \[\d{1,6},\d{1,6},\d{1,6}\], thread: \[\d{1,6},\d{1,6},\d{1,6}\] Assertion `!isnan\("
    r"|\bCUDA error during checkForNan\b)"
    # Megatron's own count of the iterations of the last log interval whose loss was NaN or Inf (megatron/training/
    # training.py training_log: for a skipped iteration, got_nan = value is inf, -inf or != itself over loss_dict;
    # total_loss_dict[nan_iters_key] += int(got_nan); printed as " number of nan iterations: {:3d} |" on every iteration
    # line since Megatron-LM 2020, Megatron-DeepSpeed, gpt-neox's and Megatron-Bridge's copies): a count above 0 is the
    # loss going non-finite, whatever the other fields say (the lm loss of such an iteration is left out of the average)
    #  iteration      700/  500000 | consumed samples:         5600 | ... | loss scale: 1.0 | number of skipped iterations:   3 | number of nan iterations:   3 |    (CONSTRUCTED from the format; every even public paste found shows 0)
    #   (a 0 is the counter's normal value: bigscience-workshop/Megatron-DeepSpeed#396, NVIDIA/Megatron-LM#314)
    r"|\bnumber of nan iterations:\s{1,8}(?P<nanit>[1-9]\d{0,8}) \|"
)
# DeepSpeed's fp16 dynamic loss scaler overflowing with the scale already at its floor (min_loss_scale): the scale it
# reduces to is the one it attempted, so every such step is skipped and the next one starts at the same scale
# (runtime/fp16/loss_scaler.py DynamicLossScaler.update_scale: next_scale = max(cur_scale / scale_factor, min_scale),
# logged as f"Attempted loss scale: {int(self.cur_scale)}, reducing to {int(next_scale)}"; fused_optimizer.py and
# unfused_optimizer.py _update_scale: f"Reducing dynamic loss scale from {prev_scale} to {self.cur_scale}"). DeepSpeed's
# PR #1958 ("Add loss scale guard to avoid inf loop") made the same event raise "Current loss scale already at minimum"
# when raise_error_at_min_scale is set; older releases, and that option off, go on skipping every step.
# [2021-12-19 16:54:45,098] [INFO] [unfused_optimizer.py:202:step] [deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss scale: 1, reducing to 1   (huggingface/transformers#14834)
# [2021-12-19 16:54:45,098] [INFO] [unfused_optimizer.py:277:_update_scale] Reducing dynamic loss scale from 1 to 1   (the same thread)
# A falling scale ("Attempted loss scale: 134217728.0, reducing to 67108864.0", huggingface/transformers#9996) is the scaler
# finding its level at the start of a run, not this.
# apex's amp has no floor unless min_loss_scale is given (apex/amp/scaler.py LossScaler: init_scale 2**16, halved on
# each overflow), so the same event there is the scale halving on below 1, down to 1e-300 and 0: every step overflows
# whatever the scale. The frameworks' own floors are 1 (DeepSpeed's min_loss_scale, Megatron's --min-loss-scale
# default) or 1e-4 (fairseq), so a scale below 1 is past where they stop. apex's lines (apex/amp/handle.py
# "Gradient overflow.  Skipping step, loss scaler {loss_id} reducing loss scale to {scale}", the older amp without the
# id, apex/fp16_utils/fp16_optimizer.py "Gradient overflow.  Skipping step, reducing loss scale to {}"):
# Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5    (NVIDIA/apex#834, the scale halving on from 65536)
# Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 2.002083095183101e-146    (NVIDIA/apex#318)
# "reducing loss scale to 32768.0" (NVIDIA/apex#834's first lines) is the scaler finding its level, not this.
_SCALE_STEP = re.compile(r"\bAttempted loss scale: (?P<a>\d+(?:\.\d+)?), reducing to (?P<b>\d+(?:\.\d+)?)"
                         r"|\bReducing dynamic loss scale from (?P<c>\d+(?:\.\d+)?) to (?P<d>\d+(?:\.\d+)?)"
                         r"|\bSkipping step, (?:loss scaler (?:\d{1,4} )?)?reducing loss scale to (?P<e>\d{1,12}(?:\.\d{1,20})?(?:e[-+]?\d{1,3})?)\b")


def _scale_at_floor(line: str) -> bool:
    """An fp16 loss-scaler overflow line whose new scale is the scale it attempted (the floor), or apex's
    floorless scaler halving below 1."""
    if "oss scale" not in line or (m := _SCALE_STEP.search(line)) is None:
        return False
    if m["e"] is not None:
        return float(m["e"]) < 1.0
    was, now = (m["a"], m["b"]) if m["a"] is not None else (m["c"], m["d"])
    return float(was) == float(now)


# where the check ran, in either form: "Rank 13: ... Device: 5, node: node-15-11" / "Rank 7, node H, device 7, ...",
# or the rerun state machine's first report in mcore >= 0.16 (validate_result: f"Unexpected result {result} on rank
# {rank} at iteration #{it} invocation #{seq} (message='{message}')"), which names the rank only:
# ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 invocation #2 (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')    (NVIDIA/Megatron-LM#5026)
_MEGATRON_WHERE = re.compile(r"(?<![A-Za-z])Rank (?P<rank>\d+)(?:, node (?P<host>[^\s,]+), device (?P<dev>\d+))?"
                             r"|\bDevice: (?P<dev2>\d+)(?:, node: (?P<host2>[^\s,'\"()]+))?"
                             r"|\bUnexpected result \S{1,40} on rank (?P<rank2>\d+) at iteration")
_NONFINITE_GATES = ("oss", "norm", "nan iterations", "returned nan", "due to Overflow", "Nan/Inf", "checkForN", "steps are invalid")  # the workers' header has "norm"
# verl's FSDP actor names the rank that skipped its step (verl/workers/actor/dp_actor.py _optimizer_step:
# print(f"WARN: rank {torch.distributed.get_rank()} grad_norm is not finite: {grad_norm}")):
# WARN: rank 3 grad_norm is not finite: nan
_VERL_RANK = re.compile(r"\bWARN: rank (?P<rank>\d{1,6}) grad_norm is not finite")
# the job's rank count, as Megatron's rank 0 prints it at start (megatron/training/arguments.py validate_args):
# using world size: 8, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 1, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 1    (Megatron-LM's own print, quoted in an issue's log)
_WORLD_SIZE = re.compile(r"\busing world size: (?P<n>\d{1,6})\b")

# fairseq's check that the workers' gradient norms agree (fairseq/trainer.py _check_grad_norms): the error
# ("Fatal error: gradients are inconsistent between workers. Try --ddp-backend=... Or are you mixing up different
# generation of GPUs in training?") is followed by each worker's norm, "rank {:3d} = {:.8f}". NaN or Inf there is a
# diverged gradient, on every worker or on the ranks that show it; finite norms that differ are another matter (the
# model's or the DDP backend's, a worker that ran out of memory) and read nothing here.
# grad_norm across the workers:
# rank   0 = nan                (facebookresearch/fairseq#1372: all eight ranks)
_WORKERS_HEADER = "grad_norm across the workers:"
_WORKER_NORM = re.compile(r"^\s{0,8}rank\s{1,6}(?P<rank>\d{1,6}) = (?P<v>[-+]?(?:nan|inf|\d{1,20}(?:\.\d{1,20})?(?:e[-+]?\d{1,3})?))\s*$")


def _worker_norms(lines: list[str], header: int) -> list[tuple[int, int, str]]:
    """fairseq's per-worker rows after the header at 0-based ``header``: (1-based line, rank, value)."""
    rows: list[tuple[int, int, str]] = []
    for i in range(header + 1, min(len(lines), header + 4097)):
        if (w := _WORKER_NORM.match(lines[i])) is None:
            break
        rows.append((i + 1, int(w["rank"]), w["v"].lower()))
    return rows


def _nonfinite(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """One training_loss_not_finite per kind of value that went bad (and rank, where Megatron's check,
    verl's actor or fairseq's table names one): the first line that says so. Where the file also tells the
    job's rank count (fairseq's table rows, Megatron's "using world size: N") and the ranks named are some
    of those and not all, the rank-named facts carry it (``job_ranks``): one rank went bad, not the job."""
    seen: set[tuple[str, str, object]] = set()
    pending: list[tuple[int, dict[str, object]]] = []
    world: int | None = None
    lines = artefact.lines
    for n, line in enumerate(lines, 1):
        if "world size" in line and (ws := _WORLD_SIZE.search(line)) is not None:
            world = int(ws["n"])
        if not any(g in line for g in _NONFINITE_GATES):
            continue
        if _WORKERS_HEADER in line:
            rows = _worker_norms(lines, n - 1)
            bad = [(r, rank, v) for r, rank, v in rows if v in ("nan", "inf", "-inf", "+inf", "+nan", "-nan")]
            if rows and bad:
                world = len(rows)  # one row per worker: the job's ranks
            for r, rank, v in bad[:1] if len(bad) == len(rows) else bad:  # every worker: the job's, once
                value = "inf" if "inf" in v else "nan"
                who = None if len(bad) == len(rows) else rank
                result.lines_used += 1
                if ("grad_norm", value, who) not in seen:
                    seen.add(("grad_norm", value, who))
                    pending.append((r, {"what": "grad_norm", "value": value, "rank": who}))
            continue
        if (m := _NONFINITE.search(line)) is None:
            if not _scale_at_floor(line):
                continue
            what, value = "loss_scale", "nan or inf"  # the scaler at its floor: the scaled gradients still overflow
        else:
            raw = m["v1"] or m["v2"] or m["v3"] or m["v4"] or m["v5"] or m["v6"] or m["v7"]  # fairseq's "Nan/Inf": either
            value = "nan or inf" if raw is None else ("inf" if "inf" in raw.lower() else "nan")
            if m["nancheck"]:
                value, what = "nan", "collective_input"  # c10d's check: the tensor a collective was about to send
            elif m["scale"] or m["neox"]:
                what = "loss_scale"
            elif m["nanit"]:
                what = "loss"  # Megatron's counter: the loss of that many iterations was NaN or Inf
            elif m["v5"]:
                what = "gradient"  # anomaly mode: a backward function's output
            elif m["v6"] or m["v7"] or m["fairseq"] or m["espnet"] or m[0].startswith("grad_norm is not finite"):
                what = "grad_norm"
            else:
                what = "grad_norm" if (m["what"] or m["what4"] or "").lower().startswith("grad") else "loss"
        where: dict[str, object] = {}
        if m is not None and m["v4"]:  # Megatron's per-rank check names the rank, device and host
            for w in _MEGATRON_WHERE.finditer(line):
                if w["rank"] or w["rank2"]:
                    where.setdefault("rank", int(w["rank"] or w["rank2"]))
                if w["dev"] or w["dev2"]:
                    where.setdefault("device", int(w["dev"] or w["dev2"]))
                if w["host"] or w["host2"]:
                    where.setdefault("host", w["host"] or w["host2"])
        elif m is not None and m["nancheck"] and (r := global_rank(artefact, line, n)) is not None:
            where["rank"] = r  # "[rank0]:[E507 ... Utils.cu:30] CUDA error during checkForNan"
        elif m is not None and m[0].startswith("grad_norm is not finite") and (vr := _VERL_RANK.search(line)) is not None:
            where["rank"] = int(vr["rank"])  # verl's actor: "WARN: rank 3 grad_norm is not finite: nan"
        result.lines_used += 1
        if (what, value, where.get("rank")) not in seen:
            seen.add((what, value, where.get("rank")))
            pending.append((n, {"what": what, "value": value, **where}))
    named = {kw["rank"] for _, kw in pending if kw.get("rank") is not None}
    some = world is not None and bool(named) and len(named) < world and max(named) < world  # type: ignore[type-var]
    for n, kw in pending:
        if some and kw.get("rank") is not None:
            kw["job_ranks"] = world
        # the node is the host the line names (Megatron's "node {host}") where no folder names it, as nccl-tests' rows
        fb.add(TrainingLossNotFinite, n, node=artefact.node_for(kw.get("host")), **kw)  # type: ignore[arg-type]


# Megatron's spiky-loss check (--check-for-spiky-loss; pretrain_gpt.py loss_func: validate_result(result=loss,
# rejection_func=partial(is_unexpectedly_large, threshold=SPIKY_LOSS_FACTOR, context="loss"), message="Spiky loss",
# fatal=False), SPIKY_LOSS_FACTOR = 10: a finite loss over ten times the largest of the first samples; NaN and Inf are
# left to the NaN checks). core/rerun_state_machine.py validate_result logs the rejection in one of two forms, the
# result printed as the float or as the tensor:
#   reruns disabled (logger.warning): f"Rank {rank}, node {node}, device {device}, iteration {it}: Unexpected result {result} (message='{message}')"
#   --rerun-mode validate_results (logger.error): f"Unexpected result {result} on rank {rank} at iteration #{it} invocation #{seq} (message='{message}')"
# Rank 3, node gpu-node-07, device 3, iteration 1201: Unexpected result 23.5 (message='Spiky loss')    (the form; no public paste was found)
# ERROR:megatron.core.rerun_state_machine:Unexpected result tensor(23.5000, device='cuda:3') on rank 3 at iteration #1201 invocation #1 (message='Spiky loss')
_RESULT = r"Unexpected result (?:tensor\()?(?P<v>[-+]?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?)(?:, device='[^']{1,20}'\))?"
_SPIKY = re.compile(r"(?:\bRank (?P<rank>\d{1,7}), node (?P<host>[^\s,]{1,255}), device (?P<dev>\d{1,4}), iteration #?(?P<it>\d{1,12}): )?"
                    + _RESULT + r"(?: on rank (?P<rank2>\d{1,7}) at iteration #(?P<it2>\d{1,12}) invocation #\d{1,9})? \(message='Spiky loss'\)")


def _spikes(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """training_loss_spike per rank and iteration Megatron's spiky-loss check rejected."""
    if "Spiky loss" not in artefact.text:
        return
    seen: set[tuple[object, object]] = set()
    for n, line in enumerate(artefact.lines, 1):
        if "Spiky loss" not in line or (m := _SPIKY.search(line)) is None:
            continue
        result.lines_used += 1
        rank = m["rank"] or m["rank2"]
        it = m["it"] or m["it2"]
        key = (rank, it)
        if key in seen:
            continue
        seen.add(key)
        fb.add(TrainingLossSpike, n, node=artefact.node_for(m["host"]), value=float(m["v"]), iteration=int(it) if it else None,
               rank=int(rank) if rank else None, device=int(m["dev"]) if m["dev"] else None, host=m["host"])


# Straggler reports (the "a node runs 30 % slower" case), in the frameworks' own forms:
# nvidia-resiliency-ext's straggler callbacks (nvidia_resiliency_ext/ptl_resiliency/straggler_det_callback.py,
# NeMo's StragglerDetectionCallback, Megatron-Bridge's NVRxStragglerDetectionManager) log
# f"\nGPU relative performance:\n{rel_perf_str}" and f"\nGPU individual performance:\n{...}", the rows
# f"  Rank={r} Node={rank_to_node[r]} Score={s:.2f}\n", under f" Worst performing {k}/{n} ranks:\n" and
# f" Best performing {k}/{n} ranks:\n" when the job has more ranks than it prints:
# megatron.bridge.NVRxStragglerDetection: GPU relative performance:    (NVIDIA-NeMo/Megatron-Bridge#2114)
#  Worst performing 5/512 ranks:                                        (Megatron-Bridge docs/training/resiliency.md)
#   Rank=76 Node=h100-001-253-012 Score=0.94
# (a launcher's line label in front is allowed: srun --label "0: ", torchrun's "[default0]:")
_LABEL = r"(?:\s{0,4}\d{1,6}: |\[default\d{1,5}\]:)?"
_NVRX_HEAD = re.compile(r"\bGPU (?P<basis>relative|individual) performance:\s*$")
_NVRX_SUB = re.compile(r"^" + _LABEL + r"\s{0,8}(?:Worst|Best) performing \d{1,7}/(?P<n>\d{1,7}) ranks:\s*$")
_NVRX_ROW = re.compile(r"^" + _LABEL + r"\s{0,8}Rank=(?P<rank>\d{1,7}) Node=(?P<node>[^\s=]{1,255}) Score=(?P<score>nan|\d{1,4}(?:\.\d{1,6})?)\s*$")
# its verdict, with the threshold the job configured (_print_stragglers; a set in NVRx's own tests' logs):
# STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [76, 13, 45]
# STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: [162, 79, 357]
_NVRX_ROW_SIG = re.compile(r"\bRank=\d{1,7} Node=[^\s=]{1,255} Score=(?:nan|\d)")  # the rows' signature (unanchored)
_NVRX_WARN = re.compile(r"STRAGGLER DETECTION WARNING: Some GPUs (?P<how>have worse relative performance|performance dropped)\. "
                        r"Affected ranks: [\[{]\d")  # the list itself is read after the match, up to its closing bracket
# FlagScale's straggler detector (flagscale/runner/straggler report.py StragglerReport.to_text; a rank is
# a straggler at straggler_threshold, default 1.5: 50 % slower than the fastest), in its releases' wordings:
# === Straggler Report at Step 10 ===                                   (flagos-ai/FlagScale#938)
# Detected stragglers: [3, 7]        / "Detected Stragglers: [3]" / "Detected stragglers:" alone
#   Rank 3 (node-15-128)             / "  - Rank 3 (node-15-128)" / "  rank 3 (node-15-128)"
# No stragglers detected.            ("\u2713 No stragglers detected." in #938's output)
_FS_HEAD = re.compile(r"=== Straggler Report at [Ss]tep \d{1,12} ===")
_FS_DETECTED = re.compile(r"^" + _LABEL + r"\s{0,4}Detected [Ss]tragglers:")
_FS_RANK = re.compile(r"^" + _LABEL + r"\s{1,8}(?:- )?[Rr]ank (?P<rank>\d{1,7}) \((?P<node>[^()\s]{1,255})\)\s*$")
# Megatron-LM's StragglerDetector (megatron/core/utils.py report(), --log-straggler): each field is a
# _ValueWithRank printed f"{value:.2f}{unit}/{rank}" (older releases without the .2f):
# 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/0 | MnPwr/Rnk: 601796W/8 | ... | MnClk/Rnk: 1950MHz/28 | MxClk/Rnk: 1980MHz/0 | ... | MnEtpt/Rnk: 296.02TF/0 | MxEtpt/Rnk: 297.32TF/8
_NUM = r"\d{1,12}(?:\.\d{1,6})?"
_MEG_RTT = re.compile(r"\bMnRtt/Rnk: (?P<mn>" + _NUM + r")ms/(?P<mnr>\d{1,7}) \| MxRtt/Rnk: (?P<mx>" + _NUM + r")ms/(?P<mxr>\d{1,7})")
_MEG_ETPT = re.compile(r"\bMnEtpt/Rnk: (?P<mn>" + _NUM + r")TF/(?P<mnr>\d{1,7}) \| MxEtpt/Rnk: (?P<mx>" + _NUM + r")TF/(?P<mxr>\d{1,7})")
_MEG_CLK = re.compile(r"\bMnClk/Rnk: (?P<mn>" + _NUM + r")MHz/(?P<mnr>\d{1,7}) \| MxClk/Rnk: (?P<mx>" + _NUM + r")MHz/(?P<mxr>\d{1,7})")
_STRAGGLER_GATES = ("performance:", "STRAGGLER DETECTION WARNING", "MnRtt/Rnk:", "Straggler Report at")


def _limits() -> tuple[float, int]:
    data = knowledge.load("straggler.yaml")  # validated (facts/knowledge/perf.py StragglerLimits)
    return data.below_score, data.min_ranks


def _stragglers(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """rank_performance_score per rank of each NVRx score block (the last report of the file per basis and
    rank) and the slowest rank of each Megatron StragglerDetector line (the last one); straggler_reported
    per rank an NVRx warning names."""
    if not any(g in artefact.text for g in _STRAGGLER_GATES):
        return
    below, min_ranks = _limits()
    lines = artefact.lines
    scores: dict[tuple[str, int], tuple[int, dict[str, object]]] = {}
    hosts: dict[int, str] = {}
    warned: dict[tuple[str, int], int] = {}
    megatron: dict[str, tuple[int, dict[str, object]]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if "performance:" in line and (h := _NVRX_HEAD.search(line)) is not None:
            basis, total, rows = f"nvrx_{h['basis']}", None, []
            j = i + 1
            while j < len(lines) and j < i + 4100:
                if (sub := _NVRX_SUB.match(lines[j])) is not None:
                    total = int(sub["n"])
                elif (row := _NVRX_ROW.match(lines[j])) is not None:
                    rows.append((j + 1, int(row["rank"]), row["node"], row["score"]))
                else:
                    break
                j += 1
            total = total if total is not None else len(rows)
            for n, rank, node, score in rows:
                hosts[rank] = node
                if score != "nan" and total >= min_ranks:
                    scores[(basis, rank)] = (n, {"basis": basis, "rank": rank, "host": node, "score": float(score),
                                                 "ranks": total, "below_score": below})
            result.lines_used += len(rows) + 1 if rows else 0
            i = j
            continue
        if "STRAGGLER DETECTION WARNING" in line and (w := _NVRX_WARN.search(line)) is not None:
            basis = "relative" if w["how"].startswith("have") else "individual"
            rest = line[w.end() - 2:]
            for r in re.findall(r"\d{1,7}", rest[:min((k for k in (rest.find("]"), rest.find("}")) if k > 0), default=len(rest))]):
                warned[(basis, int(r))] = i + 1
            result.lines_used += 1
        elif "Detected" in line and _FS_DETECTED.match(line) is not None:
            rows = []
            for k in range(i + 1, min(len(lines), i + 4100)):
                if (fr := _FS_RANK.match(lines[k])) is None:
                    break
                rows.append((k + 1, int(fr["rank"]), fr["node"]))
            listed = line[line.find(":") + 1:]
            for r in ([] if rows else re.findall(r"\d{1,7}", listed[:listed.find("]")] if "]" in listed else "")):
                rows.append((i + 1, int(r), f"rank-{r}"))
            for n, rank, node in rows:
                if not node.startswith("rank-"):  # the report's stand-in when it knows no node name
                    hosts[rank] = node
                warned[("relative", rank)] = n
            result.lines_used += 1 + len(rows)
        elif "MnRtt/Rnk:" in line and (m := _MEG_RTT.search(line)) is not None:
            clk = _MEG_CLK.search(line)
            clocks = None if clk is None else f"{clk['mn']} MHz on rank {clk['mnr']} to {clk['mx']} MHz on rank {clk['mxr']}"
            if float(m["mx"]) > 0:
                megatron["megatron_round_trip"] = (i + 1, {
                    "basis": "megatron_round_trip", "rank": int(m["mxr"]), "score": round(float(m["mn"]) / float(m["mx"]), 4),
                    "below_score": below, "reference": f"{m['mx']} ms against {m['mn']} ms on rank {m['mnr']}", "clocks": clocks})
            if (e := _MEG_ETPT.search(line)) is not None and float(e["mx"]) > 0:
                megatron["megatron_throughput"] = (i + 1, {
                    "basis": "megatron_throughput", "rank": int(e["mnr"]), "score": round(float(e["mn"]) / float(e["mx"]), 4),
                    "below_score": below, "reference": f"{e['mn']} TF against {e['mx']} TF on rank {e['mxr']}", "clocks": clocks})
            result.lines_used += 1
        i += 1
    for n, kw in list(scores.values()) + list(megatron.values()):
        fb.add(RankPerformanceScore, n, node=kw.get("host"), **kw)  # type: ignore[arg-type]
    for (basis, rank), n in warned.items():
        fb.add(StragglerReported, n, node=hosts.get(rank), basis=basis, rank=rank, host=hosts.get(rank))




def detect(head: str) -> bool:
    if any(g in head for g in _NONFINITE_GATES) and _NONFINITE.search(head) is not None:
        return True
    if "oss scale" in head and any(_scale_at_floor(line) for line in head.splitlines() if "oss scale" in line):
        return True
    if "Spiky loss" in head and _SPIKY.search(head) is not None:
        return True
    if _WORKERS_HEADER in head:
        rows = head.splitlines()
        for i, row in enumerate(rows):
            if _WORKERS_HEADER in row and any(v in ("nan", "inf", "-inf", "+inf", "+nan", "-nan")
                                              for _, _, v in _worker_norms(rows, i)):
                return True
    if any(g in head for g in _STRAGGLER_GATES) and (_NVRX_WARN.search(head) is not None or _FS_HEAD.search(head) is not None or _MEG_RTT.search(head) is not None
                                                     or _NVRX_ROW_SIG.search(head) is not None):
        return True
    if wait_in_head(head):
        return True
    return ("iteration" in head or "SamplesPerSec" in head or "train_runtime" in head or "step:" in head or " ms" in head) \
        and _DETECT.search(head) is not None


def _steady(values: list[float]) -> float:
    """The median of the steps after the first (warm-up), of all when fewer than three."""
    vals = values[1:] if len(values) >= 3 else values
    return round(statistics.median(vals), 4)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    series: dict[tuple[str, str], list[float]] = {}
    last: dict[tuple[str, str], int] = {}
    ds_running: tuple[int, float] | None = None

    def put(test: str, metric: str, value: float, line: int) -> None:
        series.setdefault((test, metric), []).append(value)
        last[(test, metric)] = line

    for n, line in enumerate(artefact.lines, 1):
        if m := _MEGATRON.search(line):
            put("megatron", "iteration_time", float(m["ms"]), n)
            if t := _MEGATRON_TFLOPS.search(line):
                put("megatron", "tflops_per_gpu", float(t["v"] or t["ds"]), n)
            if s := _MEGATRON_SPS.search(line):
                put("megatron", "samples_per_second", float(s["v"]), n)
            result.lines_used += 1
        elif m := _DEEPSPEED.search(line):
            if m["avg"]:
                ds_running = (n, float(m["avg"]))
            else:
                put("deepspeed", "samples_per_second", float(m["sps"]), n)
            result.lines_used += 1
        elif m := _HF.search(line):
            for k in _HF_KEY.finditer(m["rest"]):
                # one closing dict per run: the last run of the file stands
                series[("hf_trainer", k["k"])] = [float(k["v"])]
                last[("hf_trainer", k["k"])] = n
            result.lines_used += 1
        elif line.startswith("step") and (m := _LLMC.match(line)):
            put("llmc", "iteration_time", float(m["took"] or m["ms"]), n)
            if m["tps"]:
                put("llmc", "tokens_per_second", float(m["tps"]), n)
            result.lines_used += 1
        elif m := _TITAN.search(line):
            put("torchtitan", "tokens_per_second", float(m["tps"].replace(",", "")), n)
            if m["tflops"]:
                put("torchtitan", "tflops", float(m["tflops"]), n)
            if m["mfu"]:
                put("torchtitan", "mfu", float(m["mfu"]), n)
            result.lines_used += 1
    _nonfinite(artefact, fb, result)
    _spikes(artefact, fb, result)
    _stragglers(artefact, fb, result)
    input_wait(artefact, fb, result)
    notes = {k: "closing train_* metrics of the Trainer" for k in series if k[0] == "hf_trainer"}
    if ds_running is not None:  # a running average already smooths the warm-up in: its last value
        series[("deepspeed", "samples_per_second")] = [ds_running[1]]
        last[("deepspeed", "samples_per_second")] = ds_running[0]
        notes[("deepspeed", "samples_per_second")] = "the last RunningAvgSamplesPerSec"
    units = {"iteration_time": "ms", "tflops_per_gpu": "TFLOP/s/GPU", "samples_per_second": "samples/s",
             "steps_per_second": "steps/s", "tokens_per_second": "tokens/s", "tflops": "TFLOP/s", "mfu": "%"}
    for (test, metric), values in series.items():
        fb.add(BenchResult, last[(test, metric)], benchmark="training", test=test, entity="job", metric=metric,
               value=_steady(values), unit=units[metric], higher_is_better=metric != "iteration_time",
               detail=notes.get((test, metric)) or f"median of {len(values[1:] if len(values) >= 3 else values)} of {len(values)} reported steps")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _NONFINITE, _SPIKY, _SCALE_STEP, re.compile(re.escape(_WORKERS_HEADER)), _NVRX_WARN, _MEG_RTT, _NVRX_ROW_SIG, _FS_HEAD,
              *WAIT_SIGNATURES)

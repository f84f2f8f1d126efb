"""The time each training iteration waited for its next batch, as the trainers' own per-iteration lines
print it: ``input_wait_share`` facts for :mod:`training_throughput` (which owns the artefact kind; split out
of it to keep both readable). The sources of the samples are in fixtures/artefacts/training_throughput/README.md.

Two ways to a share, by what the line prints:

- a figure already averaged over the log interval or a window (mmengine / mmcv: the interval; detectron2 and
  torchvision's MetricLogger: 20 iterations), or one iteration's (YOLOX, timm, LeRobot): the median of
  data / iteration time over the lines, the first (the loader's workers starting) left out from three lines on;
- pytorch/examples' ImageNet ProgressMeter (``Time 0.154 (8.010)  Data 0.001 (7.720)``: this iteration, then
  the running average since the epoch began): the mean over the iterations between the first and the last
  line of each epoch, from those running averages. A loader whose workers cannot keep up delivers most
  batches at once and makes every n-th wait tens of seconds; single iterations sampled every print_freq
  show a median near 0, the iterations between two lines do not. When the printed averages (3 decimals)
  are too coarse for the window (a few iterations late in an epoch), the median of the lines is used.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.app import InputWaitShare
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

# The time each training iteration waited for its batch, as the trainers print it (exact formats):
# mmengine runner/log_processor.py get_log_after_iter: f'time: {tag["time"]:.{num_digits}f}  data_time: {tag["data_time"]:.{num_digits}f}  '
#   07/10 12:00:00 - mmengine - INFO - Epoch(train)  [1][  50/1000]  lr: 1.0000e-02  eta: 0:10:00  time: 0.3330  data_time: 0.2170  memory: 3000  loss: 0.5
# mmcv runner/hooks/logger/text.py TextLoggerHook: f'time: {log_dict["time"]:.3f}, data_time: {log_dict["data_time"]:.3f}, '
#   2020-11-11 18:20:40,841 - mmdet - INFO - Epoch [1][1050/29317]	lr: 2.000e-02, eta: 1 day, 18:57:37, time: 0.387, data_time: 0.008, memory: 3946, ...   (open-mmlab/mmdetection#4090)
# detectron2 utils/events.py CommonMetricPrinter: " {eta}iter: {iter}  {losses}  {non_losses}  {avg_time}{last_time}{avg_data_time}{last_data_time} lr: {lr}  {memory}"
#   with "time: {:.4f}  ", "last_time: {:.4f}  ", "data_time: {:.4f}  ", "last_data_time: {:.4f}  ":
#   [11/01 11:27:04 d2.utils.events]: eta: 8:05:12  iter: 1259  total_loss: 1.012  ...  time: 0.3322  data_time: 0.0334  lr: 0.010000  max_mem: 3961M
# YOLOX core/trainer.py after_iter: "iter_time: {:.3f}s, data_time: {:.3f}s":
#   ... | yolox.core.trainer:after_iter:246 - epoch: 1/300, iter: 1840/1849, mem: 7420Mb, iter_time: 0.404s, data_time: 0.025s, total_loss: 11.3, ...   (open-mmlab/mmdetection#6020)
_WAIT = re.compile(r"\b(?P<yolox>iter_)?time: (?P<t>\d{1,7}(?:\.\d{1,6})?)s?,? {1,4}"
                   r"(?:last_time: \d{1,7}(?:\.\d{1,6})? {1,4})?data_time: (?P<d>\d{1,7}(?:\.\d{1,6})?)s?\b")
# mmcv's JSON log (TextLoggerHook._dump_log; mmengine's scalars.json alike), one dict per line:
#   {"mode": "train", "epoch": 161, "iter": 100, "lr": 0.001, "memory": 5572, "data_time": 0.19335, ..., "time": 0.97546}   (open-mmlab/mmdetection#4394)
_WAIT_JSON_D = re.compile(r'"data_time": (?P<d>\d{1,7}(?:\.\d{1,8})?)[,}]')
_WAIT_JSON_T = re.compile(r'"time": (?P<t>\d{1,7}(?:\.\d{1,8})?)[,}]')
# timm train.py train_one_epoch: f'Time: {update_time_m.val:.3f}s, {rate:>7.2f}/s  ({avg:.3f}s, {rate_avg:>7.2f}/s)  LR: {lr:.3e}  Data: {data_time_m.val:.3f} ({data_time_m.avg:.3f})'
#   Train: 0 [  50/1251 (  4%)]  Loss: 6.91 (6.93)  Time: 0.412s,  621.36/s  (0.430s,  595.35/s)  LR: 1.000e-05  Data: 0.301 (0.298)
_WAIT_TIMM = re.compile(r"\bTime: (?P<t>\d{1,7}\.\d{1,6})s, {1,8}\d{1,9}\.\d{1,3}/s .{0,60}?\bData: (?P<d>\d{1,7}\.\d{1,6}) \(")
# LeRobot scripts/train.py MetricsTracker (update_s -> "updt_s", dataloading_s -> "data_s"): disjoint, the iteration is the sum
#   INFO 2025-07-11 08:20:13 ts/train.py:232 step:10 smpl:640 ep:2 epch:0.00 loss:1.073 grdn:4.051 lr:2.0e-06 updt_s:0.296 data_s:0.001   (huggingface/lerobot#1488)
_WAIT_LEROBOT = re.compile(r"\bupdt_s:(?P<u>\d{1,7}\.\d{1,6}) data_s:(?P<d>\d{1,7}\.\d{1,6})\b")
# a launcher's label naming the rank: torchrun's "[rank3]:" / "[default3]:", srun --label "3: "
_WAIT_RANK = re.compile(r"^\s{0,4}(?:\[(?:rank|default)(?P<r1>\d{1,6})\]: ?|(?P<r2>\d{1,6}): )")
# torchvision's references (classification/utils.py MetricLogger.log_every, copied by DETR, DeiT, MAE, DINO):
#   self.delimiter.join([header, '[{0' + space_fmt + '}/{1}]', 'eta: {eta}', '{meters}', 'time: {time}', 'data: {data}', 'max mem: {memory:.0f}'])
#   with iter_time and data_time SmoothedValue(fmt='{avg:.4f}'): the mean of the last 20 iterations, data inside time
#   Epoch: [0]  [ 103/5005]  eta: 4:43:31  lr: 0.1  img/s: 13.62830983555788  loss: 6.8536 (6.9458)  acc1: 0.0000 (0.2103)  acc5: 0.0000 (0.9916)  time: 2.5401  data: 0.0336  max mem: 3524   (fangwei123456/Spike-Element-Wise-ResNet#10)
_WAIT_METRIC = re.compile(r"\btime: (?P<t>\d{1,7}\.\d{1,6})\s{1,8}data: (?P<d>\d{1,7}\.\d{1,6})\s{1,8}max mem: \d")
# pytorch/examples imagenet/main.py train(): AverageMeters made per epoch (data_time from the loop's top to the batch,
# batch_time the whole iteration), printed every print_freq iterations (val, then the running average):
#   'Epoch: [{0}][{1}/{2}]\t' 'Time {batch_time.val:.3f} ({batch_time.avg:.3f})\t' 'Data {data_time.val:.3f} ({data_time.avg:.3f})\t'
#   (later ProgressMeter: "Epoch: [0][  11/5005]\tTime  0.154 ( 8.010)\tData ...", AverageMeter(name, ':6.3f'),
#   printed by progress.display(i + 1); MoCo and many others copy it)
#   Epoch: [0][10/5005]	Time 22.424 (7.498)	Data 22.372 (7.070)	Loss 6.9065 (6.9074)	Prec@1 0.000 (0.142)	Prec@5 1.172 (0.533)   (pytorch/pytorch#680)
_WAIT_AVG = re.compile(r"\bEpoch: \[(?P<e>\d{1,6})\]\[ {0,8}(?P<i>\d{1,9})/ {0,8}\d{1,9}\]\s{1,8}"
                       r"Time {1,4}(?P<t>\d{1,7}\.\d{1,6}) \( {0,8}(?P<ta>\d{1,7}\.(?P<dec>\d{1,6}))\)\s{1,8}"
                       r"Data {1,4}(?P<d>\d{1,7}\.\d{1,6}) \( {0,8}(?P<da>\d{1,7}\.\d{1,6})\)")
# torch.profiler's prof.key_averages().table() (torch/autograd/profiler_util.py _build_table): columns right-aligned two
# spaces apart, headers "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", [device, memory
# columns], "# of Calls"; names cut to 55 characters with "..."; the percentages are of the summed self CPU time of all
# events. The DataLoader's next() is the range f"enumerate(DataLoader)#{self.__class__.__name__}.__next__"
# (torch/utils/data/dataloader.py _BaseDataLoaderIter), around the wait for the batch:
#                                                      Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls
#   enumerate(DataLoader)#_SingleProcessDataLoaderIter._...        88.64%       78.632s        89.18%       79.116s     791.161ms       0.000us         0.00%       0.000us       0.000us           100   (MLforHealth/ClinicalDG#2)
_PROF_HEADER = re.compile(r"^ {0,60}Name {2,12}Self CPU % {2,12}Self CPU {2,12}CPU total % {2,12}CPU total {2,12}CPU time avg\b")
_PROF_LOADER = re.compile(r"^ {0,60}enumerate\(DataLoader\)#\S{1,60}", re.MULTILINE)  # a line start: it is a signature
_PROF_TIME = re.compile(r"^(?P<v>\d{1,9}(?:\.\d{1,6})?)(?P<unit>us|ms|s)$")
_WAIT_GATES = ("data_time", "Data: ", "data_s:", "max mem: ", "Data ", "enumerate(DataLoader)#")
# the window from running averages is used when the rounding of the printed averages (half a unit of their last
# digit, times the iteration counts) is at most this share of the window's time: else the lines' median stands
_AVG_ROUNDING_SHARE = 0.05


def _input_limits() -> tuple[float, int]:
    data = knowledge.load("input_pipeline.yaml")  # validated (facts/knowledge/perf.py InputPipelineLimits)
    return data.at_least_share, data.min_lines


def _wait_line(line: str) -> tuple[str, float, float] | None:
    """(framework, data wait s, iteration s) of one training iteration line, None for others (validation lines too)."""
    if "data_time" in line:
        if "(val)" in line or "(test)" in line or '"mode": "val"' in line:
            return None
        if (m := _WAIT.search(line)) is not None:
            if m["yolox"]:
                fw = "yolox"
            elif "(train)" in line:
                fw = "mmengine"
            elif "iter: " in line and "eta: " in line and "Epoch [" not in line and "Iter [" not in line:
                fw = "detectron2"
            else:
                fw = "mmcv"
            return fw, float(m["d"]), float(m["t"])
        if line.lstrip().startswith("{") and '"mode": "train"' in line:
            d, t = _WAIT_JSON_D.search(line), _WAIT_JSON_T.search(line)
            if d is not None and t is not None:
                return "mmcv_json", float(d["d"]), float(t["t"])
        return None
    if "Data: " in line and (m := _WAIT_TIMM.search(line)) is not None:
        return "timm", float(m["d"]), float(m["t"])
    if "data_s:" in line and (m := _WAIT_LEROBOT.search(line)) is not None:
        return "lerobot", float(m["d"]), float(m["u"]) + float(m["d"])
    # the evaluation loops print the same form under "Test:" (torchvision, DETR, MAE)
    if "max mem: " in line and "Test:" not in line and (m := _WAIT_METRIC.search(line)) is not None:
        return "metriclogger", float(m["d"]), float(m["t"])
    return None


def _avg_line(line: str) -> re.Match[str] | None:
    """pytorch/examples' ImageNet line (this iteration and the epoch's running averages); its validate() has no Data."""
    if "Data " in line and "Time " in line and "Epoch: [" in line:
        return _WAIT_AVG.search(line)
    return None


def wait_in_head(head: str) -> bool:
    """Whether the head holds a per-iteration line with the time waited for data, or torch.profiler's table with the
    DataLoader's row (training_throughput.detect)."""
    if not any(g in head for g in _WAIT_GATES):
        return False
    if "enumerate(DataLoader)#" in head and any(_profiler_rows(head.splitlines()[:4000])):
        return True
    return any(_wait_line(line) is not None or _avg_line(line) is not None for line in head.splitlines()[:4000]
               if "data_time" in line or "Data: " in line or "data_s:" in line or "max mem: " in line or "Data " in line)


def _seconds(text: str) -> float | None:
    m = _PROF_TIME.match(text)
    return None if m is None else float(m["v"]) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m["unit"]]


def _profiler_rows(lines: list[str]) -> list[tuple[int, float, float, int]]:
    """(line index, CPU total % / 100, CPU total s, calls) of the DataLoader's rows of the first torch.profiler table
    (a second table, sorted otherwise, repeats them); its rows under the header, cut where the table ends."""
    rows: list[tuple[int, float, float, int]] = []
    cols: list[str] | None = None
    for i, line in enumerate(lines):
        if cols is None:
            if "CPU total %" in line and _PROF_HEADER.match(line):
                cols = re.split(r" {2,}", line.strip())
            continue
        if "Name" in line and _PROF_HEADER.match(line):
            break  # the next table
        if not line.lstrip().startswith("enumerate(DataLoader)#") or _PROF_LOADER.match(line) is None:
            continue
        cells = re.split(r" {2,}", line.strip())
        if len(cells) != len(cols) or "# of Calls" not in cols:
            continue
        share, total = cells[cols.index("CPU total %")], _seconds(cells[cols.index("CPU total")])
        calls = cells[cols.index("# of Calls")]
        if not share.endswith("%") or total is None or not calls.isdigit():
            continue
        try:
            rows.append((i, float(share[:-1]) / 100, total, int(calls)))
        except ValueError:
            continue
    return rows


def _profiler_wait(artefact: Artefact, fb: FactBuilder, result: ParseResult, at_least: float, min_lines: int) -> None:
    """input_wait_share of torch.profiler's table: the DataLoader's next() rows' CPU total % (train and validation
    iterators of one class are one row); the iteration is the profiled time over the calls."""
    rows = _profiler_rows(artefact.lines)
    if not rows:
        return
    share = sum(r[1] for r in rows)
    total = sum(r[2] for r in rows)
    calls = sum(r[3] for r in rows)
    if share <= 0 or share > 1.0 or calls <= 0:
        return
    result.lines_used += len(rows)
    fb.add(InputWaitShare, rows[-1][0] + 1, framework="torch_profiler", rank=None, where="rank not named",
           share=round(share, 4), data_s=round(total / calls, 4), iteration_s=round(total / share / calls, 4),
           lines=calls, steps_seen=calls, at_least_share=at_least, min_lines=min_lines,
           measure=f"the DataLoader's next() over {calls} calls in torch.profiler's table: its CPU total % (the first call included)")


# (line number, epoch, printed index, data s, iteration s, running average data s, running average iteration s,
#  half a unit of the averages' last printed digit)
_AvgRow = tuple[int, int, int, float, float, float, float, float]


def _windows(rows: list[_AvgRow]) -> tuple[float, float, int]:
    """(data s, iteration s, iterations) over the iterations between the first and the last line of each epoch,
    from the running averages: avg(c1) * c1 - avg(c0) * c0 is the sum over iterations c0+1..c1. The iteration
    count is the printed index, or the index + 1 in a run printed from index 0 (print at i; the later
    ProgressMeter prints i + 1, the count itself); a run pasted from the middle of an old-style epoch is off by
    one iteration at both ends, for data and time alike."""
    runs: list[list[_AvgRow]] = []
    for row in rows:
        if runs and runs[-1][-1][1] == row[1] and row[2] > runs[-1][-1][2]:
            runs[-1].append(row)
        else:  # a new epoch, or a new run
            runs.append([row])
    data = time = 0.0
    iterations = 0
    for run in runs:
        if len(run) < 2:
            continue
        first, last = run[0], run[-1]
        shift = 1 if first[2] == 0 else 0
        c0, c1 = first[2] + shift, last[2] + shift
        dw, tw = last[5] * c1 - first[5] * c0, last[6] * c1 - first[6] * c0
        rounding = max(first[7], last[7]) * (c0 + c1)
        if tw <= 0 or rounding > _AVG_ROUNDING_SHARE * tw or dw < -rounding or dw > tw + rounding:
            continue  # too coarse for this window, or not one run's averages
        data += min(max(dw, 0.0), tw)
        time += tw
        iterations += c1 - c0
    return data, time, iterations


def input_wait(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """input_wait_share per framework and rank: the median data wait share of its iteration lines, or the
    mean over the iterations between lines where the lines print running averages."""
    if not any(g in artefact.text for g in _WAIT_GATES):
        return
    if "enumerate(DataLoader)#" in artefact.text:
        _profiler_wait(artefact, fb, result, *_input_limits())
    series: dict[tuple[str, int | None], list[tuple[int, float, float]]] = {}
    averages: dict[tuple[str, int | None], list[_AvgRow]] = {}
    for n, line in enumerate(artefact.lines, 1):
        a = _avg_line(line)
        if a is not None:
            fw, d, t = "pytorch_examples", float(a["d"]), float(a["t"])
        elif (w := _wait_line(line)) is not None:
            fw, d, t = w
        else:
            continue
        if t <= 0 or d > t * 1.001:  # no iteration, or not a wait inside it: not this form
            continue
        r = _WAIT_RANK.match(artefact.raw_line(n))  # the label as read (the lines read are normalised without it)
        rank = None if r is None else int(r["r1"] or r["r2"])
        series.setdefault((fw, rank), []).append((n, d, t))
        if a is not None:
            averages.setdefault((fw, rank), []).append((n, int(a["e"]), int(a["i"]), d, t, float(a["da"]), float(a["ta"]),
                                                        0.5 * 10 ** -len(a["dec"])))
        result.lines_used += 1
    if not series:
        return
    at_least, min_lines = _input_limits()
    for (fw, rank), rows in series.items():
        where = "rank not named" if rank is None else f"rank {rank}"
        data, time, iterations = _windows(averages.get((fw, rank), []))
        if iterations:
            fb.add(InputWaitShare, rows[-1][0], framework=fw, rank=rank, where=where,
                   share=round(data / time, 4), data_s=round(data / iterations, 4), iteration_s=round(time / iterations, 4),
                   lines=iterations, steps_seen=len(rows), at_least_share=at_least, min_lines=min_lines,
                   measure=f"mean over the {iterations} iterations between the first and the last line of each epoch, from its running averages")
            continue
        steady = rows[1:] if len(rows) >= 3 else rows
        fb.add(InputWaitShare, rows[-1][0], framework=fw, rank=rank, where=where,
               share=round(statistics.median(d / t for _, d, t in steady), 4),
               data_s=round(statistics.median(d for _, d, _ in steady), 4),
               iteration_s=round(statistics.median(t for _, _, t in steady), 4),
               lines=len(steady), steps_seen=len(rows), at_least_share=at_least, min_lines=min_lines,
               measure=f"median over {len(steady)} lines")


#: the line signatures of this part of the reader (training_throughput.SIGNATURES)
SIGNATURES = (_WAIT, _WAIT_JSON_D, _WAIT_TIMM, _WAIT_LEROBOT, _WAIT_METRIC, _WAIT_AVG, _PROF_LOADER)

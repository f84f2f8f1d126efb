"""training_throughput's input wait (wild sweep 49): the share of each iteration the trainers' own lines
say was spent waiting for the batch (mmengine, mmcv and its JSON log, detectron2, YOLOX, timm, LeRobot)."""
from stethoscope.facts.parsers import training_throughput
from stethoscope.facts.parsers.base import Artefact

from parse_helper import FIX
from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _waits(text: str):
    r = training_throughput.parse(Artefact(path="train.log", node="n1", text=text))
    assert r.errors == []
    return [(f.framework, f.rank, f.share, f.lines, f.steps_seen) for f in r.facts if f.kind == "input_wait_share"]


def _fixture(name: str):
    r = _parse(training_throughput, f"training_throughput/{name}")
    return [f for f in r.facts if f.kind == "input_wait_share"]


def test_real_mmcv_log_small_data_time():  # open-mmlab/mmdetection#4090
    (f,) = _fixture("mmdet_4090_mmcv_data_time_low.log")
    assert (f.framework, f.share, f.lines, f.steps_seen, f.at_least_share, f.min_lines) == ("mmcv", 0.0228, 4, 5, 0.3, 3)
    assert f.data_s == 0.009 and f.iteration_s == 0.395


def test_real_first_iteration_warm_up_is_left_out():  # open-mmlab/mmpretrain#408: 5.762 of 6.430 s, then ~0.01 of 0.17 s
    (f,) = _fixture("mmpretrain_408_mmcv_first_iter_warmup.log")
    assert f.share < 0.05 and f.lines == 6 and f.steps_seen == 7


def test_real_lerobot_update_and_data_are_summed():  # huggingface/lerobot#1488
    (f,) = _fixture("lerobot_1488_data_s_spikes.log")
    assert (f.framework, f.lines, f.steps_seen) == ("lerobot", 8, 9) and f.share < 0.01


def test_real_mmcv_json_log():  # open-mmlab/mmdetection#4394
    (f,) = _fixture("mmdet_4394_mmcv_json_log.log")
    assert (f.framework, f.lines, f.share) == ("mmcv_json", 2, 0.0964)


def test_mmengine_and_detectron2_forms_and_the_rank_label():
    mme = ("2025/03/02 10:14:07 - mmengine - INFO - Epoch(train)  [1][  50/2930]  lr: 2.0000e-02  eta: 9:41:17  "
           "time: 1.0000  data_time: 0.5000  memory: 4212  loss: 1.8921\n")
    assert _waits(mme) == [("mmengine", None, 0.5, 1, 1)]
    d2 = ("[rank2]: [03/02 10:20:11 d2.utils.events]:  eta: 11:02:41  iter: 19  total_loss: 2.011    time: 0.8000  "
          "last_time: 0.7304  data_time: 0.4000  last_data_time: 0.4922   lr: 0.00039962  max_mem: 3212M\n")
    assert _waits(d2) == [("detectron2", 2, 0.5, 1, 1)]
    old_d2 = "eta: 0:10:00  iter: 19  total_loss: 1.2  time: 0.3330  data_time: 0.2170  lr: 0.000100  max_mem: 3000M\n"
    assert _waits(old_d2) == [("detectron2", None, 0.6517, 1, 1)]


def test_yolox_and_timm_forms():
    yolox = ("2021-09-02 01:36:17.800 | INFO     | yolox.core.trainer:after_iter:246 - epoch: 1/300, iter: 1840/1849, mem: 7420Mb, "
             "iter_time: 0.400s, data_time: 0.100s, total_loss: 11.3, lr: 3.961e-04, size: 640, ETA: 2 days, 8:39:37\n")
    assert _waits(yolox) == [("yolox", None, 0.25, 1, 1)]
    timm = ("Train: 0 [  50/1251 (  4%)]  Loss: 6.92 (6.93)  Time: 0.400s,  621.36/s  (0.590s,  433.90/s)  "
            "LR: 1.000e-06  Data: 0.300 (0.471)\n")
    assert _waits(timm) == [("timm", None, 0.75, 1, 1)]


def test_validation_lines_and_other_text_are_not_read():
    val = ("2025/03/02 11:00:00 - mmengine - INFO - Epoch(val)  [1][ 50/500]    eta: 0:01:00  time: 0.1000  data_time: 0.0900  memory: 900\n"
           '{"mode": "val", "epoch": 1, "iter": 50, "data_time": 0.09, "time": 0.1}\n'
           "the data_time: field means the wait\n")
    assert _waits(val) == []
    assert not training_throughput.detect("the data_time: field means the wait\n")


def test_real_imagenet_example_window_from_the_running_averages():  # pytorch/pytorch#680: 45 s first batch, then ~22 s waits
    (f,) = _fixture("pytorch_680_imagenet_hdd_data_wait.log")
    # iterations 2-21 (the run printed from index 0 counts index + 1): (5.632 * 21 - 45.054) / (5.893 * 21 - 48.842)
    assert (f.framework, f.share, f.lines, f.steps_seen) == ("pytorch_examples", 0.9774, 20, 3)
    assert (f.data_s, f.iteration_s) == (3.6609, 3.7456) and f.measure.startswith("mean over the 20 iterations")


def test_real_loader_bursts_count_though_most_batches_are_ready():  # pytorch/examples#164, print-freq 1
    (f,) = _fixture("pytorch_examples_164_data_wait_bursts.log")
    assert (f.share, f.lines, f.steps_seen) == (0.9878, 8, 9)  # the median of the lines' own shares is 0.006


def test_real_averages_too_coarse_for_the_window_fall_back_to_the_lines():  # pytorch/examples#148, the end of an epoch
    # 0.002 printed at iteration ~5000 is +-2.5 s of data over 20 iterations of 6.8 s: the lines' median is used
    (f,) = _fixture("pytorch_examples_148_data_low_end_of_epoch.log")
    assert (f.framework, f.share, f.lines, f.measure) == ("pytorch_examples", 0.0, 2, "median over 2 lines")


def test_real_metriclogger_lines():  # fangwei123456/Spike-Element-Wise-ResNet#10 (torchvision's references)
    (f,) = _fixture("metriclogger_spikeresnet10_data_low.log")
    assert (f.framework, f.lines, f.steps_seen, f.share) == ("metriclogger", 6, 7, 0.0011)


def test_evaluation_lines_of_the_same_forms_are_not_read():
    # torchvision's evaluate() header "Test:": a MAE fine-tuning evaluation log in a fork's notes (search index file id 38051567869)
    assert _waits("[10:32:38.175881] Test:  [  10/3125]  eta: 0:04:00  loss: 0.3770 (0.4417)  acc1: 93.7500 (92.0455)  "
                  "acc5: 100.0000 (97.7273)  time: 0.0770  data: 0.0288  max mem: 593\n") == []


def test_a_trainer_log_answers_the_input_pipeline_branch():
    from stethoscope.engine.combine.decision_tree import not_checked

    r = _parse(training_throughput, "training_throughput/pytorch_680_imagenet_hdd_data_wait.log")
    assert "input_pipeline" not in {nc.branch for nc in not_checked(r.facts)}
    assert "input_pipeline" in {nc.branch for nc in not_checked([])}


def test_real_torch_profiler_table_dataloader_row():  # MLforHealth/ClinicalDG#2
    (f,) = _fixture("torch_profiler_clinicaldg2_dataloader_next.txt")
    assert (f.framework, f.share, f.lines, f.data_s, f.iteration_s) == ("torch_profiler", 0.8918, 100, 0.7912, 0.8871)
    assert f.evidence.line == 4
    # the same table without the DataLoader's row says nothing about the input
    text = (FIX / "training_throughput/torch_profiler_clinicaldg2_dataloader_next.txt").read_text().replace("enumerate(DataLoader)#", "enumerate(Other)#")
    assert _waits(text) == [] and not training_throughput.detect(text)

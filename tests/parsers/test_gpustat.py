"""gpustat's one line a GPU (facts/parsers/gpustat.py): real lines only."""

import pytest

from stethoscope.facts.parsers import gpustat

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_header_and_four_idle_p100s():
    # wookayin/gpustat#130, as posted: the header, then one line a GPU ('C: the symbol of gpustat before 0.5)
    r = _parse(gpustat, "gpustat/gpustat130_p100_idle.txt")
    got = [(f.kind, f.index, f.name, f.temperature_c, f.utilization_pct, f.memory_used_mib, f.memory_total_mib,
            f.processes) for f in r.facts]
    assert got == [("gpustat_gpu", 0, "Tesla P100-PCIE-16GB", 27, 0, 103, 16384, 0),
                   ("gpustat_gpu", 1, "Tesla P100-PCIE-16GB", 27, 0, 103, 16384, 0),
                   ("gpustat_gpu", 2, "Tesla P100-PCIE-16GB", 28, 0, 103, 16384, 0),
                   ("gpustat_gpu", 3, "Tesla P100-PCIE-16GB", 27, 2, 103, 16384, 0)]
    assert r.lines_used == 5


# gpustat's own test expectations (gpustat/test_gpustat.py of wookayin/gpustat, the mocked three-GPU host):
# --show-fan --show-codec --show-power with full process names, and the plain form with --no-processes
@pytest.mark.parametrize("line, want", [
    ("[0] GeForce GTX TITAN 0 | 80°C,  16 %,  76 % (E:  88 %  D:  67 %),  125 / 250 W |  8000 / 12287 MB | "
     "user1:python/48448(4000M) user2:python/153223(4000M)", (80, 16, 76, 125, 250, 8000, 12287, 2)),
    ("[2] GeForce RTX 2       | 71°C, 100 %,  ?? % (E:  ?? %  D:  ?? %),  250 /  ?? W |     0 / 12189 MB | "
     "(Not Supported)", (71, 100, None, 250, None, 0, 12189, None)),
    ("[1] GeForce GTX TITAN 1 | 36°C,   0 % |  9000 / 12189 MB", (36, None, 0, None, None, 9000, 12189, None)),
])
def test_optional_columns(line, want):
    (f,) = _parse(gpustat, text=line + "\n").facts
    assert (f.temperature_c, f.fan_pct, f.utilization_pct, f.power_draw_w, f.power_limit_w, f.memory_used_mib,
            f.memory_total_mib, f.processes) == want


# gpustat 1.1.1's own print_to of the InvalidGPU that new_query makes of a GPU whose handle NVML refused
# (NVMLError_GpuIsLost, NVMLError_Unknown): the failure is its name, every value '?'
@pytest.mark.parametrize("line, reason", [
    ("[2] ((GPU is lost))  |  ?°C,   ? % |     ? /     ? MB | (Not Supported)", "gpu_lost"),
    ("[2] ((Unknown Error)) |  ?°C,   ? %,   ? %,    ? /   ? W |     ? /     ? MB | (Not Supported)", "unknown_error"),
])
def test_a_gpu_nvml_could_not_query_is_a_device_error(line, reason):
    (f,) = _parse(gpustat, text=line + "\n").facts
    assert (f.kind, f.reason, f.gpu, f.gpu_index, f.source) == ("nvml_device_error", reason, "GPU2", 2, "gpustat")


@pytest.mark.parametrize("text", [
    "gpu-a-11.extreme         Mon Aug 22 15:23:57 2022  515.65.01\n",  # gpustat#130's header alone
    "| N/A   27C    P0    32W / 250W |      0MiB / 16384MiB |      0%      Default |\n",  # #130's nvidia-smi row
])
def test_lookalikes_are_not_gpustat(text):
    assert not gpustat.detect(text)

"""bcc_latency_hist (funclatency's log2 histogram) and perf_script (perf script stacks): the kernel's
NUMA balancing in a process of the job (deepseek-ai/DeepEP#624)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import bcc_latency_hist, perf_script
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts"


def _parse(mod, name: str):
    text = (FIX / name).read_text()
    assert mod.detect(text)
    return mod.parse(Artefact(path=name, text=text, node="n1"))


def test_deepep624_funclatency_of_task_numa_work():
    res = _parse(bcc_latency_hist, "bcc_latency_hist/deepep624_funclatency_task_numa_work.txt")
    [h] = res.facts
    assert res.errors == []
    assert (h.function, h.pid, h.count, h.avg_ms, h.total_ms, h.slowest_ms, h.slow_calls, h.numa_balancing) == (
        "task_numa_work", 2256971, 139, 5.0, 789.0, 16.0, 67, True)
    assert h.traced == "process 2256971"
    assert h.evidence.text.startswith("avg = 5 msecs")


def test_usecs_histogram_without_summary_and_other_tools():
    text = ('Tracing 1 functions for "do_numa_page"... Hit Ctrl-C to end.\n\n'
            "     usecs               : count     distribution\n"
            "         0 -> 1          : 40       |****************************************|\n"
            "      1024 -> 2047       : 3        |***                                     |\n")
    [h] = bcc_latency_hist.parse(Artefact(path="x", text=text, node="n1")).facts
    assert (h.count, h.avg_ms, h.slowest_ms, h.slow_calls, h.numa_balancing) == (43, None, 1.024, 3, True)
    assert (h.pid, h.traced) == (None, "every process")
    # biolatency's histogram traces no function: not this reader's
    bio = "Tracing block device I/O... Hit Ctrl-C to end.\n\n     usecs     : count     distribution\n  0 -> 1  : 4  |**|\n"
    assert not bcc_latency_hist.detect(bio)


def test_deepep624_perf_script_sample_in_numa_balancing():
    res = _parse(perf_script, "perf_script/deepep624_sglang_scheduler_task_numa_work.txt")
    [p] = res.facts
    assert (p.comm, p.pid, p.samples, p.numa_balancing_samples, p.evidence.line) == ("sglang::schedul", 2256971, 1, 1, 1)


def test_perf_script_samples_per_process():
    text = ("python3 1234/1240 [012] 53718.148983:     250000 cpu-clock:pppH:\n"
            "\t    7f1c2a3b4c5d cudaLaunchKernel+0x1d (/usr/lib/x86_64-linux-gnu/libcudart.so.12)\n\n"
            "python3 1234/1241 [013] 53718.149000:     250000 cpu-clock:pppH:\n"
            "\tffffffffba14094b task_numa_work+0x1ab ([kernel.kallsyms])\n"
            "\tffffffffba11fc0c task_work_run+0x5c ([kernel.kallsyms])\n")
    assert perf_script.detect(text)
    [p] = perf_script.parse(Artefact(path="x", text=text, node="n1")).facts
    assert (p.comm, p.pid, p.samples, p.numa_balancing_samples) == ("python3", 1234, 2, 1)
    assert not perf_script.detect("just text ([kernel.kallsyms])\n")

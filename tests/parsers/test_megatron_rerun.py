"""megatron_rerun: Megatron's result-validation verdicts (megatron/core/rerun_state_machine.py log_failure)."""
import pytest

from stethoscope.facts.parsers import megatron_rerun

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_three_verdicts_in_the_source_form():
    facts = _parse(megatron_rerun, "megatron_rerun/rerun_verdicts_source_form.log").facts
    assert [(f.verdict, f.rank, f.host, f.device) for f in facts] == [
        ("transient", 5, "gpu-node-12", 5), ("persistent", 3, "gpu-node-07", 2), ("correct", 1, "gpu-node-07", 0)]
    assert facts[2].message.startswith("found NaN in local grad norm for bucket #0")
    assert facts[0].message is None


def test_behind_a_logger_prefix():
    line = "[2025-03-01 10:00:00] ERROR Rank 12, node dgx-055, device 4: Possible persistent error!"
    facts = _parse(megatron_rerun, text=line + "\n").facts
    assert [(f.verdict, f.rank, f.host, f.device) for f in facts] == [("persistent", 12, "dgx-055", 4)]


@pytest.mark.parametrize("line", [
    "First rerun: unexpected result is not reproducible within the tolerance (nan != 1.0)",  # no verdict yet
    "Possible transient error! retrying the request",  # another program's words, no rank/node/device
    "Rank 5: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 5, node: h",
])
def test_near_misses(line):
    assert not megatron_rerun.detect(line)

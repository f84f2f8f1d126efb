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


def test_iteration_before_the_colon_mcore_0_17():
    """log_failure in mcore >= 0.17: f"Rank {rank}, node {node}, device {device}, iteration #{it}: {message}!"
    (the prefix as in NVIDIA/Megatron-LM#5026's lines)."""
    text = ("ERROR:megatron.core.rerun_state_machine:Rank 3, node core-ci-test-1779833921-task-1-0, device 3, iteration #3: "
            "Possible transient error!\n"
            "WARNING:megatron.core.rerun_state_machine:Rank 1, node h2, device 0, iteration #14: Correct result "
            "(but possible Application error) (found NaN in local grad norm for bucket #0)!\n")
    facts = _parse(megatron_rerun, text=text).facts
    assert [(f.verdict, f.rank, f.host, f.device, f.message) for f in facts] == [
        ("transient", 3, "core-ci-test-1779833921-task-1-0", 3, None),
        ("correct", 1, "h2", 0, "found NaN in local grad norm for bucket #0")]


@pytest.mark.parametrize("line", [
    "First rerun: unexpected result is not reproducible within the tolerance (nan != 1.0)",  # no verdict yet
    # the same GPU reproduced it: a restart on another GPU decides (NVIDIA/Megatron-LM#5026, cut as stored)
    "ERROR:megatron.core.rerun_state_machine:Rank 3, node core-ci-test-1779833921-task-1-0, device 3, iteration #3: First "
    "rerun: unexpected result is reproducible within the tolerance (nan = nan). Need to rerun on a different GPU to verify cor",
    "Possible transient error! retrying the request",  # another program's words, no rank/node/device
    "Rank 5: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 5, node: h",
])
def test_near_misses(line):
    assert not megatron_rerun.detect(line)

"""tf_collective: TensorFlow's collective group joined under another size (real line: tensorflow#61314;
TensorFlow's format strings, collective_param_resolver_local.cc)."""
import pytest

from stethoscope.facts.parsers import tf_collective

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_tf61314_quote():
    facts = _parse(tf_collective, "tf_collective/tf61314_two_strategies_share_group_key.txt").facts
    assert [(f.device, f.joining_size, f.group_size, f.group_key, f.evidence.line) for f in facts] == [
        ("/job:localhost/replica:0/task:0/device:GPU:1", 2, 3, 1, 3)]


@pytest.mark.parametrize("line, expect", [
    # TF 2.4+ as StrCat prints it (no blank between "size" and the number)
    ("InternalError: Device /job:worker/replica:0/task:1/device:GPU:0 is joining a group with size4, but that group has size 8 (group_key=2)",
     ("/job:worker/replica:0/task:1/device:GPU:0", 4, 8, 2)),
    # TF 1.x-2.3 (cp->name empty: two blanks)
    ("Internal: Collective Op  has group_size 8 and group_key2 but that group has size 4", (None, 8, 4, 2)),
])
def test_format_strings(line, expect):
    facts = _parse(tf_collective, text=line + "\n").facts
    assert [(f.device, f.joining_size, f.group_size, f.group_key) for f in facts] == [expect]


def test_other_collective_lines_are_not_claimed():
    assert not tf_collective.detect("INFO:tensorflow:Collective all_reduce tensors: 4 all_reduces, num_devices = 2, group_size = 2\n")

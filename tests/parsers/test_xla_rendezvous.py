"""xla_rendezvous: XLA's rendezvous of a collective's threads that did not fill (real line: jax#22740;
the other forms are xla/service/rendezvous.cc's format strings of each XLA generation)."""
import pytest

from stethoscope.facts.parsers import xla_rendezvous

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _read(rel=None, text=None):
    return [(f.what, f.expected, f.arrived, f.waited_s, f.terminated)
            for f in _parse(xla_rendezvous, rel and f"xla_rendezvous/{rel}", text).facts]


def test_jax22740_clique_setup_stuck():
    assert _read("jax22740_initialize_clique_stuck.log") == [
        ("initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; stream=0; run_id=724296073",
         8, None, 10, False)]


STUCK = ("E0218 03:50:19 rendezvous.cc:100] [id=1] This thread has been waiting for `acquire clique for rank 3; clique=devices=[4,5,6,7]; "
         "is_p2p=0; run_id=-1558191007` for 10 seconds and may be stuck. Expected 4 threads to join the rendezvous, but not all of them arrived on time.")
UNSTUCK = "E0218 03:50:31 rendezvous.cc:110] Thread is unstuck! Warning above was a false-positive. Perhaps the timeout is too short."


@pytest.mark.parametrize("text, expect", [
    # termination, newer XLA (with the counts)
    ("Termination timeout for `all gather RendezvousKey{run_id=1, global_devices=[1, 3], num_local_participants=2}` of 40 seconds exceeded. "
     "Exiting to ensure a consistent program state. Expected 2 threads to join the rendezvous, but only 1 of them arrived on time.",
     [("all gather RendezvousKey{run_id=1, global_devices=[1, 3], num_local_participants=2}", 2, 1, 40, True)]),
    # older XLA: no name, no counts
    ("This thread has been waiting for 10 seconds and may be stuck:", [(None, None, None, 10, False)]),
    ("Termination timeout of 40 seconds exceeded. Exiting to ensure a consistent program state.", [(None, None, None, 40, True)]),
    # stuck, then unstuck: XLA says the warning was a false positive
    (STUCK + "\n" + UNSTUCK, []),
    # stuck twice, unstuck once: one is still stuck
    (STUCK + "\n" + STUCK + "\n" + UNSTUCK, [("acquire clique for rank 3; clique=devices=[4,5,6,7]; is_p2p=0; run_id=-1558191007", 4, None, 10, False)]),
])
def test_forms(text, expect):
    assert _read(text=text + "\n") == expect


def test_other_waits_are_not_claimed():
    assert not xla_rendezvous.detect("INFO: waiting for 10 seconds for the NCCL bootstrap\n")


def test_a_name_cut_by_a_line_break_is_not_read_across_lines():
    # a fuzzed fixture (tests/test_fuzz_parsers.py) put a line break inside the backquoted name: the whole-text
    # search matched across the break and the line alone did not match (a crash); each line is read alone now
    text = ("This thread has been waiting for `acquire clique for rank 3;\n"
            "clique=devices=[4,5,6,7]` for 10 seconds and may be stuck.\n")
    assert _read(text=text) == []

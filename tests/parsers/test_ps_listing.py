"""ps listings with a state column: the rows in uninterruptible sleep (D)."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import ps_listing


def _rows(text: str):
    return [(f.pid, f.stat, f.wchan, f.command, f.user) for f in parse_fixture(ps_listing, text=text).facts]


def test_dlworkspace_484_ps_aux_one_d_row():
    res = parse_fixture(ps_listing, "ps_listing/dlworkspace484_ps_aux_d_row_mixed_with_stack.txt")
    assert [(f.pid, f.stat, f.command, f.user, f.evidence.line) for f in res.facts] == [
        (1054, "D", "bash /pod/scripts/init_user.sh", "root", 7)]
    assert res.lines_used == 7  # the header and its six rows; the prompts, pstree and the stack are not this reader's


def test_ps_ax_and_the_eo_form_with_wchan():
    # CONSTRUCTED from procps' titles: ps ax (PID TTY STAT TIME COMMAND) with a session leader in Ds, and the -eo form
    assert _rows("  PID TTY      STAT   TIME COMMAND\n    1 ?        Ds     0:01 /sbin/init\n"
                 "    2 ?        S      0:00 [kthreadd]\n") == [(1, "Ds", None, "/sbin/init", None)]
    text = ("    PID STAT WCHAN  CMD\n   1054 D    nfs_wait_bit_killable bash /pod/scripts/init_user.sh\n"
            "   6140 R+   -      ps -eo pid,stat,wchan,cmd\n   7001 D    -      /usr/bin/nvidia-smi\n")
    assert _rows(text) == [(1054, "D", "nfs_wait_bit_killable", "bash /pod/scripts/init_user.sh", None),
                           (7001, "D", None, "/usr/bin/nvidia-smi", None)]


def test_must_not_read_other_tables_or_a_listing_after_it_ends():
    # ps -ef has no state column; a table with a STATUS column is not ps's; the prompt ends the listing
    assert not ps_listing.detect("UID          PID    PPID  C STIME TTY          TIME CMD\nroot           1       0  0 Nov29 ?        00:00:03 /sbin/init\n")
    assert not ps_listing.detect("NAME    PID   STATUS   COMMAND\n")
    text = ("  PID TTY      STAT   TIME COMMAND\n    1 ?        Ss     0:01 /sbin/init\n$ cat log\n"
            " 1234 D    waiting for something\n")
    assert _rows(text) == []

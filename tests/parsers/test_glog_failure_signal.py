"""glog_failure_signal: glog's failure-signal report (PaddlePaddle and other glog programs), anywhere in a file."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import glog_failure_signal as g
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/glog_failure_signal"


def parse_text(text: str):
    return g.parse(Artefact(path="t.log", text=text, node="node1"))


# PaddlePaddle/PaddleFleetX#74 (a collective demo on a cluster): the trainer's glog report under glog's W-prefix,
# SIGTERM from pid 3506 (the fixture: the description's first lines of it, as the stored excerpt has them)
FLEETX74 = (FIX / "fleetx74_sigterm_from_launcher.txt").read_text()


def test_paddle_trainer_sigterm_from_the_launcher():
    assert g.detect(FLEETX74)
    r = parse_text(FLEETX74)
    f = [x for x in r.facts if x.kind == "launched_process_killed"]
    assert [(x.signal, x.signum, x.sent_by_pid, x.launcher, x.crashed_in) for x in f] == [("SIGTERM", 15, 3506, "glog", None)]
    assert f[0].evidence.line == 3 and r.errors == []
    assert r.lines_used == 7  # the head, PC, the signal line, the frames


def test_report_head_cut_before_its_signal_line_is_a_parse_problem():
    text = FLEETX74.split("\n", 1)[0] + "\n"
    assert g.detect(text)
    r = parse_text(text)
    assert r.facts == [] and len(r.errors) == 1 and r.lines_used == 1


def test_fault_names_no_sender_and_its_frame():
    # glog's crash report (a program's SIGSEGV), from PID 0; SIGABRT from the process itself; glog on macOS (no sender)
    text = ("PC: @     0x7fd600b3eed6 dfaProject\n"
            "*** SIGSEGV (@0x0) received by PID 2374 (TID 0x7fd67ff2c740) from PID 0; stack trace: ***\n"
            "    @     0x7fd67e97c4b0 (unknown)\n"
            "    @     0x7fd600b3eed6 dfaProject\n"
            "*** SIGABRT (@0x3e80000085b) received by PID 2139 (TID 0x7fea12549740) from PID 2139; stack trace: ***\n"
            "    @     0x7fea10f994b0 (unknown)\n    @     0x7fea10f99428 gsignal\n    @     0x7fea10f9b02a abort\n"
            "    @     0x7fea115d384d __gnu_cxx::__verbose_terminate_handler()\n"
            "  *** SIGABRT (@0x1817c45e8) received by PID 4540 (TID 0x1ee24a1c0) stack trace: ***\n"
            "  [SignalInfo: *** SIGFPE (@0x7fa513bc2049) received by PID 3171 (TID 0x7fa5cdf56700) from PID 331096137 ***]\n")
    f = [x for x in parse_text(text).facts if x.kind == "launched_process_killed"]
    assert [(x.signal, x.sent_by_pid, x.crashed_in) for x in f] == [
        ("SIGSEGV", None, "dfaProject"), ("SIGABRT", None, None), ("SIGABRT", None, None), ("SIGFPE", None, None)]


def test_paddle_fatal_error_line_without_its_signal_info():
    # Paddle 2.x's summary: the FatalError line alone names the signal in POSIX's words; with its [SignalInfo: ...]
    # line after it, that line makes the one fact
    text = ("FatalError: `Segmentation fault` is detected by the operating system.\n"
            "FatalError: `Erroneous arithmetic operation` is detected by the operating system.\n"
            "  [TimeInfo: *** Aborted at 1660893422 (unix time) try \"date -d @1660893422\" if you are using GNU date ***]\n"
            "  [SignalInfo: *** SIGFPE (@0x7fa513bc2049) received by PID 3171 (TID 0x7fa5cdf56700) from PID 331096137 ***]\n")
    assert g.detect(text.split("\n", 1)[0])
    r = parse_text(text)
    assert [(x.signal, x.signum, x.evidence.line) for x in r.facts] == [("SIGFPE", 8, 4), ("SIGSEGV", 11, 1)]
    assert r.lines_used == 4 and r.errors == []


def test_nothing_without_a_report():
    assert not g.detect("Aborted (core dumped)\nreceived by PID 3\n")
    assert parse_text("").facts == [] and parse_text("").errors == []


def test_folly_fatal_signal_report():
    # folly's SignalHandler (deepseek-ai/3FS#192: admin_cli's core on an Intel E810 RDMA card, the paste as stored,
    # its stack cut after the handler's own frame)
    text = ("100  META   HEARTBEAT_CONNECTING  spr-9  0       []    N/A                0              0-dev-0-0-00000000\n"
            "*** Aborted at 1742303109 (Unix time, try 'date -d @1742303109') ***\n"
            "*** Signal 11 (SIGSEGV) (0x0) received by PID 374105 (pthread TID 0x7f7c6702ed40) (linux TID 374105) "
            "(code: address not mapped to object), stack trace: ***\n"
            "    @ 000000000245250f folly::symbolizer::(anonymous namespace)::signalHandler(int, siginfo_t*, void*)\n")
    assert g.detect(text)
    r = parse_text(text)
    f = [x for x in r.facts if x.kind == "launched_process_killed"]
    assert [(x.signal, x.signum, x.sent_by_pid, x.crashed_in) for x in f] == [("SIGSEGV", 11, None, None)]
    assert f[0].evidence.line == 3 and r.errors == [] and r.lines_used == 3  # the head, the signal line, the handler's frame
    # folly's head alone (a paste cut before its signal line) is glog's case: a parse problem
    cut = parse_text(text.splitlines()[1] + "\n")
    assert cut.facts == [] and len(cut.errors) == 1

"""nccl_log's fast path (RE2 picks the prefixed lines that can give a fact) reads exactly what
the line-by-line scan reads: same facts, same parse errors, same lines used, on every real
NCCL log of the fixtures that is long enough to take it, and on one with every odd form."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_log, nccl_log_scan
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2] / "fixtures"


def _logs() -> list[Path]:
    out = []
    for p in sorted(ROOT.rglob("*")):
        if not p.is_file() or not (nccl_log_scan._FAST_FROM <= p.stat().st_size < 20_000_000):
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if nccl_log.detect(text):
            out.append(p)
    return out


def _parse(text: str, fast: bool, monkeypatch) -> tuple:
    if not fast:
        monkeypatch.setattr(nccl_log, "candidates", lambda t: (nccl_log_scan._SCAN.finditer(t), None))
    art = Artefact(path="log", node="n1", text=text)
    art.normalise()
    res = nccl_log.parse(art)
    monkeypatch.undo()
    return [f.model_dump() for f in res.facts], [(e.line, e.message) for e in res.errors], res.lines_used


LOGS = _logs()


def test_there_are_long_real_logs():
    assert len(LOGS) >= 5


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
def test_fast_path_reads_what_the_line_scan_reads(path: Path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    assert _parse(text, True, monkeypatch) == _parse(text, False, monkeypatch)


def test_mixed_forms_in_a_long_log(monkeypatch):
    """Prefixed lines, a timestamped line, NCCL 2.3's WARN, a bare message, the bare version line,
    a non-ASCII line: the fast path merges them in file order like the line scan."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    extra = ("[2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n"
             "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol\n"
             "NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129\n"
             "NCCL version 2.7.8+cuda11.1\n")
    lines = real.splitlines(keepends=True)
    mid = len(lines) // 2
    text = "".join(lines[:mid]) + extra + "".join(lines[mid:])
    fast = _parse(text, True, monkeypatch)
    assert fast == _parse(text, False, monkeypatch)
    assert any(f["kind"] == "nccl_bootstrap_failure" or "socket interface" in (f.get("message") or "") for f in fast[0])
    non_ascii = text + "vm:1:1 [0] NCCL WARN Cuda failure 'ünknown'\n"  # takes the line scan: same result by definition
    assert _parse(non_ascii, True, monkeypatch) == _parse(non_ascii, False, monkeypatch)


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
def test_other_scan_skipped_only_where_it_finds_nothing(path: Path):
    """_no_other (substring counts) says _OTHER's line scan can be skipped only where that scan
    finds no line; on a real healthy log NCCL wrote alone it is skipped."""
    text = path.read_text(encoding="utf-8")
    prefixed = len(nccl_log_scan._PREFIXED_LINE.findall(text))
    assert prefixed == len(nccl_log_scan._PREFIXED_AFTER_NL.findall("\n" + text))
    if nccl_log_scan._no_other(text, prefixed):
        assert not list(nccl_log_scan._OTHER.finditer(text))


def test_other_scan_kept_for_a_line_without_the_prefix():
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    prefixed = len(nccl_log_scan._PREFIXED_LINE.findall(real))
    assert nccl_log_scan._no_other(real, prefixed)
    for extra in ("[2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n",
                  "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol\n",
                  "NCCL version 2.7.8+cuda11.1\n", "NCCL_IB_HCA set to mlx5_0\n"):
        assert not nccl_log_scan._no_other(real + extra, prefixed), extra


def test_a_bare_self_explaining_warn_in_a_long_log_is_read(monkeypatch):
    """A WARN of nccl_warn_kinds.BARE pasted without NCCL's prefix inside a long log is read by the
    fast path as by the line scan (its literal keeps _OTHER's scan on)."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    text = real + "NET/IB : Unable to open device mlx5_0\n"
    assert not nccl_log_scan._no_other(text, len(nccl_log_scan._PREFIXED_LINE.findall(text)))
    fast = _parse(text, True, monkeypatch)
    assert fast == _parse(text, False, monkeypatch)
    assert any(f["kind"] == "nccl_warn" and "Unable to open device" in f["message"] for f in fast[0])


def test_a_verbs_wrapper_warn_quoted_in_a_sentence_in_a_long_log_is_read(monkeypatch):
    """NCCL's verbs wrapper's WARN quoted in a sentence (nccl_warn_kinds.QUOTED; blog.gitcode.com's summary, wild sweep
    rR5), bare, and its ECE probe's INFO, inside a long log: the fast path reads them as the line scan does."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    text = real + (ROOT / "artefacts/nccl_log/gitcode_ib_gid_quoted_in_prose.txt").read_text(encoding="utf-8") \
        + "Call to ibv_reg_mr failed with error Cannot allocate memory\n"
    assert not nccl_log_scan._no_other(text, len(nccl_log_scan._PREFIXED_LINE.findall(text)))
    fast = _parse(text, True, monkeypatch)
    assert fast == _parse(text, False, monkeypatch)
    assert sorted(f["verb"] for f in fast[0] if f["kind"] == "nccl_verbs_failure") == ["ibv_modify_qp", "ibv_reg_mr"]


def test_repeated_lines_read_in_order_where_order_matters(monkeypatch):
    """The fast path reads a repeated INFO line once a process only where its first reading made
    nothing but once() facts: a communicator's abort, a frame, an INFO shared-memory failure and
    an unreadable line are read every time, and a repeated line still ends a process's chain."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    abort = "h:7:8 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 cudaDev 0 busId 60 - Abort "
    extra = [abort + "START", "h:7:8 [0] NCCL INFO misc/socket.cc:64 -> 3", abort + "COMPLETE", abort + "START",
             "h:7:8 [0] NCCL INFO misc/socket.cc:64 -> 3", abort + "COMPLETE",
             "h:7:8 [0] NCCL INFO Using network Socket", "h:7:8 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed",
             "h:7:8 [0] NCCL INFO Using network Socket", "h:7:8 [0] NCCL INFO misc/socket.cc:80 -> 6",
             "h:7:8 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "h:7:8 [0] NCCL INFO bootstrap.cc:701 -> 6",
             "h:7:8 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "h:7:8 [0] NCCL INFO bootstrap.cc:702 -> 6",
             "h:7:8 [0] NCCL INFO Error while creating shared memory segment /dev/shm/nccl-x (size 10)",
             "h:7:8 [0] NCCL INFO Error while creating shared memory segment /dev/shm/nccl-x (size 10)",
             "h:7:8 [0] NCCL INFO NCCL version 2.x", "h:7:8 [0] NCCL INFO NCCL version 2.x"]
    text = real + "\n".join(extra) + "\n"
    fast = _parse(text, True, monkeypatch)
    assert fast == _parse(text, False, monkeypatch)
    assert len([e for e in fast[1] if "version" in e[1]]) == 2


def test_the_wanted_scan_takes_the_info_lines_maybe_takes():
    """_read_runs asks maybe() only of a message that lost trailing blanks: on every prefixed INFO
    line of the long real logs, _WANTED_PREFIXED (RE2) takes the line exactly when maybe() takes
    its message, where the message has no trailing blank."""
    checked = 0
    for path in LOGS:
        text = path.read_text(encoding="utf-8")
        if not text.isascii():
            continue
        for m in nccl_log_scan._ROWS.finditer(text):
            raw = m["msg"]
            if m["level"] != "INFO" or raw != raw.rstrip():
                continue
            line = text[m.start():m.end()].rstrip("\n").encode()
            assert bool(nccl_log_scan._WANTED_PREFIXED.match(line)) == nccl_log_scan.maybe(raw), raw
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
def test_classifier_gate_answers_as_the_own_pass(path: Path):
    """The classifier's pass answers nccl_log_scan's "every line carries NCCL's prefix" (a TEXT_GATES
    member of its set) as the reader's own fullmatch does; for a text it did not scan last, nothing."""
    from stethoscope.facts.classify import classifier, gate

    text = path.read_text(encoding="utf-8")
    for t in (text, "x\n" + text, text + "\nplain line\n", text.replace("\n", "\n\n", 1)):
        classifier().scan(t)
        own = nccl_log_scan._ALL_PREFIXED.fullmatch(t.encode("utf-8", "surrogatepass")) is not None
        assert gate(t, nccl_log_scan.ALL_PREFIXED_TEXT) is own
    assert gate(text[:-1], nccl_log_scan.ALL_PREFIXED_TEXT) is None
    # and whether a marker of an unprefixed NCCL line occurs (_no_other)
    for t in (text, text + "NCCL_DEBUG set by environment to INFO\n", "x Got completion from peer 1.2.3.4\n" + text):
        classifier().scan(t)
        own = nccl_log_scan.ANY_OTHER_LITERAL.search(t.encode("utf-8", "surrogatepass")) is not None
        assert gate(t, nccl_log_scan.ANY_OTHER_LITERAL) is own


def test_channel_lines_end_error_chains_where_they_stand(monkeypatch):
    """The Runs path reads NCCL's "Channel ... via" lines apart from the other wanted lines
    (by substring search for nccl_log_scan.CHANNEL_AT): a channel line of the process between two error-return frames
    still ends the first chain, and one the runs took for another word ("shared memory") is read
    once, as the line scan reads them."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    pid = real.split(":", 2)[1]
    extra = (f"vm:{pid}:1 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>\n"
             f"vm:{pid}:1 [0] NCCL INFO misc/socket.cc:80 -> 6\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
             f"vm:{pid}:1 [0] NCCL INFO bootstrap.cc:701 -> 6\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via direct shared memory\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via   \n")
    lines = real.splitlines(keepends=True)
    mid = len(lines) // 2
    text = "".join(lines[:mid]) + extra + "".join(lines[mid:])
    fast = _parse(text, True, monkeypatch)
    assert fast == _parse(text, False, monkeypatch)
    assert sum(f["kind"] == "nccl_error_chain" for f in fast[0]) == 2


def test_quotes_give_the_lines_artefact_lines_gives():
    """nccl_log quotes a fact's line from the lines it met (_Quotes) instead of splitting the whole
    text: each line it can quote is the one Artefact.lines gives (a trailing "\\r" dropped), counted
    on from the nearest line it met; a line past its walk is left to the builder (None)."""
    text = "a\nb\r\n\nNCCL INFO x\r\n" + "".join(f"row {i}\n" for i in range(200)) + "last"
    lines = Artefact(path="log", text=text).lines
    quotes = nccl_log._Quotes(text)
    line_of = quotes.counter()
    assert line_of(text.index("NCCL INFO")) == 4 and line_of(text.index("row 50")) == 55
    assert [quotes(no) for no in range(4, 60)] == lines[3:59]
    assert quotes(55 + quotes.WALK) == lines[54 + quotes.WALK] and quotes(56 + quotes.WALK) is None
    assert quotes(1) is None  # before any line it met
    assert line_of(text.index("a")) == 1 and line_of(text.index("b")) == 2  # an earlier offset: counted from its mark
    assert line_of(len(text) - 1) == len(lines) and quotes(len(lines)) is None  # mid-line: not marked


def test_ray_dedup_note_on_a_long_blank_run_is_stripped_in_bounded_time():
    """Ray's "[repeated Nx across cluster]" note is stripped with the blanks before it, found from its
    last "[repeated " (a "\\s*" before it, tried at every blank of a long run, was quadratic: 1.6 s on a
    30,000-character line, bench/redos.py); the message is what it was."""
    import time

    msg = "NET/OFI aws-ofi-nccl initialization failed" + " " * 30_000 + "[repeated 15x across cluster]"
    art = Artefact(path="log", node="n1", text=f"n1:1:2 [0] ofi_init:1339 NCCL WARN {msg}\n")
    start = time.process_time()
    facts = nccl_log.parse(art).facts
    assert time.process_time() - start < 0.5
    warn = next(f for f in facts if f.kind == "nccl_warn")
    assert warn.message == "NET/OFI aws-ofi-nccl initialization failed"


def test_a_message_read_before_reads_the_same_in_another_process(monkeypatch):
    """An INFO message whose reading only called once() keeps those calls as its recipe
    (nccl_log._RECIPES), replayed for the next line of the same message, in this file or another,
    with that line's number, node, process and device: the facts are those of a fresh reading."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    pid = real.split(":", 2)[1]
    other = real.replace(f"vm:{pid}:", "gpu7:4242:")

    def facts(text: str) -> list[dict]:
        return [f.model_dump() for f in nccl_log.parse(Artefact(path="log", node="n1", text=text)).facts]

    monkeypatch.setattr(nccl_log, "_RECIPES", {})
    first = facts(real)
    assert nccl_log._RECIPES  # the start-up lines' readings kept
    replayed = facts(other)
    monkeypatch.setattr(nccl_log, "_RECIPES", {})
    assert replayed == facts(other) and first == facts(real)
    assert {f["node"] for f in replayed} == {"gpu7"} and {f.get("pid") for f in replayed} - {None} == {4242}


def test_long_messages_are_read_not_kept():
    """The readings kept per message (nccl_log._RECIPES, _CHANNEL_TAILS, _CHANNEL_READ) keep none of a
    message longer than _KEPT_CHARS: a hostile file's long lines would pin megabytes as keys; such a
    line is read each time, to the same facts."""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    pid = real.split(":", 2)[1]
    pad = "x" * 2 * nccl_log._KEPT_CHARS
    extra = (f"vm:{pid}:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/{pad}\n"
             f"vm:{pid}:1 [0] NCCL INFO Using network {pad}\n") * 2
    text = real + extra
    facts = [nccl_log.parse(Artefact(path="log", node="n1", text=text)).facts for _ in range(2)]
    assert [f.model_dump() for f in facts[0]] == [f.model_dump() for f in facts[1]]
    assert any(f.kind == "nccl_transport" and pad in f.transport for f in facts[0])
    for kept in (nccl_log._RECIPES, nccl_log._CHANNEL_TAILS, nccl_log._CHANNEL_READ):
        assert all(len(k[1] if isinstance(k, tuple) else k) <= nccl_log._KEPT_CHARS for k in kept)


def test_channel_line_blocks_read_as_the_line_scan_reads(monkeypatch):
    """_read_runs reads NCCL's "Channel" lines apart from the runs (nccl_log_scan.CHANNEL_AT): blocks of consecutive
    ones in every prefix form, a CRLF line, a ring order, a "via" message of another shape, a block just before a
    WARN (a run), at the text's end without its last newline, in a log NCCL wrote alone and in one with a launcher's
    lines among NCCL's; each read as the line scan reads it. (CONSTRUCTED lines, in the forms of the fixture logs.)"""
    real = (ROOT / "artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text(encoding="utf-8")
    pid = real.split(":", 2)[1]
    block = (f"vm:{pid}:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
             f"vm:{pid}:1 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read\r\n"
             f"vm:{pid}:2 [0] transport/net.cc:12 (ncclTransportP2pSetup) NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA\n"
             f"vm:{pid}:2 [0] transport/net.cc:12 NCCL INFO Channel 01/0 : 0[0] -> 1[1] [receive] via NET/IB/0\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 02/24 : 0 1\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via direct shared memory\n"
             f"vm:{pid}:1 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via   \n"
             f"vm:{pid}:1 [1] NCCL INFO Channel 03/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n")
    warn = f"vm:{pid}:1 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>\n"
    lines = real.splitlines(keepends=True)
    third = len(lines) // 3
    alone = "".join(lines[:third]) + block + warn + block + "".join(lines[third:2 * third]) + block + "".join(lines[2 * third:])
    for text in (alone, alone + block, alone + block.rstrip("\n"), "W1129 launcher line\n" + alone + block + "last line"):
        fast = _parse(text, True, monkeypatch)
        assert fast == _parse(text, False, monkeypatch)
        assert any(f["kind"] == "nccl_transport" and f["transport"] == "NET/IB/0/GDRDMA" for f in fast[0])


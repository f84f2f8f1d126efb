"""Parsing over a process pool gives what in-process parsing gives, in the same order; the
line helpers that the fast scans use agree with a plain split of the text."""
from __future__ import annotations

import os
import re
from pathlib import Path

from stethoscope.engine import parse_pool
from stethoscope.engine.pipeline import parse_artefacts
from stethoscope.facts.bundle import artefacts, read_bundle
from stethoscope.facts.parsers.base import Artefact, iter_lines

ROOT = Path(__file__).resolve().parent.parent


def _dump(obs):
    return [f.model_dump() for f in obs.facts], obs.coverage.model_dump()


def test_pool_matches_in_process(monkeypatch):
    monkeypatch.setattr(parse_pool, "CHUNK", 2)  # several chunks in flight, out of step
    arts, _ = artefacts(read_bundle(ROOT / "fixtures/bundles/h200-healthy/bundle"))
    one = parse_artefacts(arts, jobs=1)
    arts, _ = artefacts(read_bundle(ROOT / "fixtures/bundles/h200-healthy/bundle"))
    two = parse_artefacts(arts, jobs=2, total_bytes=parse_pool.MIN_PARALLEL_BYTES)
    assert one.facts and _dump(one) == _dump(two)


def test_workers_read_their_own_files_as_the_parent_would(monkeypatch, tmp_path):
    """A folder's files are read by the worker that parses them (FileTask): the report is the
    one the parent's reading gives, skipped, binary and empty files, a line cut and
    a file read in windows included, over a pool and in-process."""
    import shutil

    from stethoscope.engine.pipeline import observe_bundle
    from stethoscope.facts.limits import Budget

    monkeypatch.setattr(parse_pool, "CHUNK", 2)
    monkeypatch.setattr(parse_pool, "MIN_PARALLEL_BYTES", 0)
    b = tmp_path / "b"
    shutil.copytree(ROOT / "fixtures/bundles/h200-xid31-app/bundle", b)
    (b / "core.bin").write_bytes(b"\x7fELF\x00\x00\x01" * 64)
    (b / "nvidia-smi-empty.txt").write_text("")
    (b / "long.log").write_text("x" * (2 * 1024 * 1024) + "\nNVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n")
    budget = Budget(max_memory=48 * 1024 * 1024)  # 1 MiB windows
    big = "".join(f"[{i}.000000] mlx5_core 0000:0c:00.0: noise line {i}\n" for i in range(40_000))
    (b / "dmesg-big.log").write_text(big + "[40001.000000] NVRM: Xid (PCI:0000:18:00): 31, pid=7, Ch 00000008\n")

    def dump(obs):
        return [f.model_dump() for f in obs.facts], obs.coverage.model_dump(), obs.nodes

    def parent_reads(path, jobs, budget):  # the reading before FileTask: every file in the parent
        from stethoscope.engine import pipeline
        from stethoscope.facts import bundle
        orig = bundle.iter_artefacts
        monkeypatch.setattr(pipeline, "iter_artefacts", lambda *a, **k: orig(*a, **{**k, "tasks": False}))
        try:
            return observe_bundle(path, jobs=jobs, budget=budget)
        finally:
            monkeypatch.setattr(pipeline, "iter_artefacts", orig)

    before = dump(parent_reads(b, 1, budget))
    assert dump(observe_bundle(b, jobs=1, budget=budget)) == before
    assert dump(observe_bundle(b, jobs=2, budget=budget)) == before
    cov = before[1]
    assert {s["path"] for s in cov["skipped"]} >= {"core.bin", "nvidia-smi-empty.txt"}
    assert any(lim["limit"] == "max_line_chars" for lim in cov["limits"])
    assert any(f["kind"] == "xid_event" and f["evidence"]["path"] == "dmesg-big.log" for f in before[0])


def test_small_files_scanned_ahead_read_as_each_scanned_in_turn(monkeypatch, tmp_path):
    """parse_items reads a chunk's files of at most AHEAD_CHARS first and the classifier's set scans them
    back to back (Classifier.scan_ahead): the report is the one a scan of each file before its readers
    gives (skipped, binary and empty files and large files among them), in process and over a pool, and
    no answer is left kept."""
    import shutil

    from stethoscope.engine.pipeline import observe_bundle
    from stethoscope.facts import classify
    from stethoscope.facts.classify import Classifier

    b = tmp_path / "b"
    shutil.copytree(ROOT / "fixtures/bundles/h200-xid31-app/bundle", b / "vm")
    shutil.copytree(ROOT / "fixtures/observations/h200-x2", b / "h200-x2")
    (b / "vm" / "core.bin").write_bytes(b"\x7fELF\x00\x00\x01" * 64)
    (b / "vm" / "empty.txt").write_text("")
    big = "".join(f"[{i}.000000] mlx5_core 0000:0c:00.0: noise line {i}\n" for i in range(4_000))  # (CONSTRUCTED)
    (b / "vm" / "dmesg-big.log").write_text(big + "[4001.000000] NVRM: Xid (PCI:0000:18:00): 31, pid=7, Ch 00000008\n")
    monkeypatch.setattr(parse_pool, "MIN_PARALLEL_BYTES", 0)

    def dump(obs):
        return [f.model_dump() for f in obs.facts], obs.coverage.model_dump(), obs.nodes

    ahead: list[int] = []
    scan_ahead = Classifier.scan_ahead
    monkeypatch.setattr(Classifier, "scan_ahead", lambda self, texts: (ahead.append(len(texts)), scan_ahead(self, texts)))
    monkeypatch.setattr(parse_pool, "AHEAD_CHARS", -1)  # no file read ahead
    before = dump(observe_bundle(b, jobs=1))
    assert not ahead
    monkeypatch.setattr(parse_pool, "AHEAD_CHARS", 64 * 1024)
    assert dump(observe_bundle(b, jobs=1)) == before
    assert ahead and max(ahead) > 2, ahead
    assert not classify._ahead
    monkeypatch.setattr(parse_pool, "CHUNK", 4)
    assert dump(observe_bundle(b, jobs=2)) == before


def test_small_bundle_stays_in_process(monkeypatch):
    def no_pool(*a, **k):
        raise AssertionError("a pool for a small bundle")

    monkeypatch.setattr(parse_pool, "ProcessPoolExecutor", no_pool)
    arts, _ = artefacts(read_bundle(ROOT / "fixtures/bundles/h200-xid31-app/bundle"))
    assert parse_artefacts(arts, jobs=4, total_bytes=1000).facts


def test_default_jobs_leaves_out_the_cores_other_work_keeps_busy(monkeypatch):
    monkeypatch.delenv("STETH_JOBS", raising=False)
    monkeypatch.setattr(parse_pool.os, "sched_getaffinity", lambda pid: {0, 1})
    for idle, jobs in ((1.9, 2), (1.6, 2), (1.4, 1), (1.0, 1), (0.0, 1)):
        monkeypatch.setattr(parse_pool, "idle_cpus", lambda idle=idle: idle)
        assert parse_pool.default_jobs() == jobs, idle
    monkeypatch.setattr(parse_pool, "idle_cpus", lambda: None)  # no /proc/stat: the load average
    for load, jobs in ((0.1, 2), (0.4, 2), (0.6, 1), (1.0, 1), (3.5, 1)):
        monkeypatch.setattr(parse_pool.os, "getloadavg", lambda load=load: (load, load, load))
        assert parse_pool.default_jobs() == jobs, load
    monkeypatch.setenv("STETH_JOBS", "2")  # the operator's word wins
    assert parse_pool.default_jobs() == 2


def test_idle_cpus_reads_proc_stat():
    idle = parse_pool.idle_cpus(0.05)
    assert idle is None or 0 <= idle <= (os.cpu_count() or 1) + 0.01


TEXT = "a NCCL INFO x\r\n\n   \nb\nc NCCL INFO y NCCL INFO z\n\t\nlast NCCL INFO"


def test_iter_lines_and_line_of_agree_with_split():
    art = Artefact(path="t", text=TEXT)
    lines = TEXT.split("\n")
    got = list(iter_lines(re.compile("NCCL INFO"), art))
    assert got == [(i + 1, ln) for i, ln in enumerate(lines) if "NCCL INFO" in ln]
    offsets = [m.start() for m in re.finditer("b|z|last|a", TEXT)]
    want = [TEXT.count("\n", 0, o) + 1 for o in offsets]
    assert [art.line_of(o) for o in offsets] == want
    assert [art.line_of(o) for o in reversed(offsets)] == want[::-1]  # backwards: the bisect path


def test_nonblank_lines():
    art = Artefact(path="t", text=TEXT)
    assert art.nonblank_lines() == sum(1 for ln in art.lines if ln.strip()) == 4
    assert Artefact(path="e", text="").nonblank_lines() == 0
    assert Artefact(path="n", text="x\n\n").nonblank_lines() == 1


def test_nonblank_lines_of_a_log_nccl_wrote_alone_counted_from_the_classifiers_pass():
    """Where the classifier's pass found every row a record of NCCL's prefix (facts/lines.py UNCUT_GATE),
    nonblank_lines counts the newlines instead of splitting the text: the same count, with or without
    a last newline or "\\r" endings; a text the pass did not scan (or that has a blank line) is split."""
    from stethoscope.facts import classify
    from stethoscope.facts.classify import classifier
    from stethoscope.facts.lines import UNCUT_GATE

    log = (ROOT / "fixtures/artefacts/nccl_log/allreduce_healthy_g2.nccl.log").read_text()
    for text in (log, log.rstrip("\n"), log.replace("\n", "\r\n"), log + "\n", log.replace("\n", "\n\n", 1)):
        split = Artefact(path="s", text=text)
        want = sum(1 for ln in split.lines if ln.strip())
        art = Artefact(path="t", text=text)
        classifier().scan(text)
        assert classify.gate(text, UNCUT_GATE) is ("\n\n" not in text)
        assert art.nonblank_lines() == want
        classify.forget()
        assert Artefact(path="u", text=text).nonblank_lines() == want


def test_the_block_label_gate_is_the_substring_test():
    """Issue 12: parse_one asks whether a text holds compose's label separator "  | " (without_block_labels) from
    its bars (_holds_block_bar: one memchr search a bar, "  | " itself after _BARS of them): the answer of
    ``"  | " in text`` on texts of blanks, bars and words (separators at the start, the end, after many bars),
    and on every fixture file."""
    import random
    rng = random.Random(12)
    cases = ["", "|", " |", "  |", "  | ", "x  | y", "|  | ", " | | ", "  |  |", "a |" * 100 + "  | ", "a |" * 100,
             "  |" * 70 + " ", "| " * 200, "\n  | \n"]
    cases += ["".join(rng.choice(" |a\n") for _ in range(rng.randint(0, 400))) for _ in range(3000)]
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and path.stat().st_size < 2_000_000:
            cases.append(path.read_text(encoding="utf-8", errors="replace"))
    differ = [text[:80] for text in cases if parse_pool._holds_block_bar(text) != ("  | " in text)]
    assert not differ, differ[:5]


def test_warm_up_scans_a_folders_first_files_in_a_thread_joined_before_workers_fork(monkeypatch, tmp_path):
    """warm_up builds the classifier's DFA over a folder's first files (the bundle's order: a folder's files, then
    its subfolders', sorted; links, gzipped and binary files left out) in a thread, once a process; parse_files
    joins it before a pool forks (settle); an archive, a single file or standard input starts none. What it
    scanned changes none of the set's answers (the DFA is a cache): a pool's reading after it is the reading
    in-process without it."""
    import shutil
    import threading

    from stethoscope.engine.pipeline import observe_bundle
    from stethoscope.facts import classify

    b = tmp_path / "b"
    shutil.copytree(ROOT / "fixtures/bundles/h200-xid31-app/bundle", b)
    (b / "zz").mkdir()
    (b / "zz" / "a.log").write_text("x\n")
    (b / "core.bin").write_bytes(b"\x7fELF\x00\x00\x01" * 64)
    (b / "logs.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 64)
    os.symlink(b / "zz" / "a.log", b / "link.log")
    listed = list(parse_pool._first_files(str(b)))
    top = sorted(p.name for p in b.iterdir() if p.is_file() and not p.is_symlink())
    assert [Path(p).name for p in listed[:len(top)]] == top  # the folder's own files first, sorted
    assert str(b / "zz" / "a.log") in listed and str(b / "link.log") not in listed
    monkeypatch.setattr(parse_pool, "WARM_FILES", 3)
    assert len(list(parse_pool._first_files(str(b)))) == 3

    scanned: list[bytes] = []

    class Spy:  # the set's Match, recorded
        def __init__(self, rset):
            self.rset = rset

        def Match(self, data):
            scanned.append(data)
            assert threading.current_thread() is not threading.main_thread()
            return self.rset.Match(data)

    real = classify.classifier()
    parse_pool.settle()  # (a thread an earlier diagnosis in this process started)
    monkeypatch.setattr(parse_pool, "classifier", lambda: type("C", (), {"rset": Spy(real.rset)})())
    for not_a_folder in ("-", b / "zz" / "a.log", tmp_path / "absent"):
        monkeypatch.setattr(parse_pool, "_warmed", False)
        parse_pool.warm_up(not_a_folder)
        assert parse_pool._warming is None
    monkeypatch.setattr(parse_pool, "_warmed", False)
    parse_pool.warm_up(b)
    parse_pool.warm_up(b)  # once a process
    parse_pool.settle()
    first = list(parse_pool._first_files(str(b)))  # core.bin, logs.gz, then vm/'s first file
    assert [Path(p).name for p in first[:2]] == ["core.bin", "logs.gz"]
    assert parse_pool._warming is None and scanned == [Path(first[2]).read_bytes()]  # the binary and gzipped left out
    monkeypatch.undo()

    # a pool after warm_up: joined before the fork, the same reading as in-process without it
    monkeypatch.setattr(parse_pool, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setattr(parse_pool, "_warmed", True)
    one = observe_bundle(b, jobs=1)
    joined: list[bool] = []
    settle = parse_pool.settle
    monkeypatch.setattr(parse_pool, "settle", lambda: (settle(), joined.append(parse_pool._warming is None)))
    monkeypatch.setattr(parse_pool, "_warmed", False)
    two = observe_bundle(b, jobs=2)
    assert joined == [True]
    assert [f.model_dump() for f in one.facts] == [f.model_dump() for f in two.facts]
    assert one.coverage.model_dump() == two.coverage.model_dump()


def _xid(fid: str, message: str, quote: str):
    from stethoscope.facts.kinds.kernel import XidEvent
    from stethoscope.facts.model import Evidence
    return XidEvent(id=fid, node="n1", pci_bus_id="0000:00:06.0", xid=79, message=message,
                    evidence=Evidence(path="dmesg.txt", line=3, text=quote))


def test_two_readers_of_one_line_keep_distinct_ids():
    # CONSTRUCTED: two readers of one file made a fact of one kind at one line (ids path:line:kind): the same reading
    # is kept once, a different one under the second reader's mark; the rule engine refused a second fact of one id
    # (the whole diagnosis stopped with an internal error)
    line = "NVRM: Xid (PCI:0000:00:06): 79, pid=1883, GPU has fallen off the bus."
    first = [_xid("dmesg.txt:3:xid_event", "GPU has fallen off the bus.", line)]
    same = [_xid("dmesg.txt:3:xid_event", "GPU has fallen off the bus.", "kernel: " + line)]
    other = [_xid("dmesg.txt:3:xid_event", "fallen off the bus", line), _xid("dmesg.txt:4:xid_event", "x", line)]
    assert parse_pool.own_ids(first, same, "kernel_log") == []
    kept = parse_pool.own_ids(first, other, "torch_log")
    assert [f.id for f in kept] == ["dmesg.txt:3:xid_event~torch_log", "dmesg.txt:4:xid_event"]
    assert kept[0].message == "fallen off the bus" and kept[0].evidence == other[0].evidence
    alone = [_xid("dmesg.txt:5:xid_event", "x", line)]
    assert parse_pool.own_ids(first, alone, "torch_log") is alone
    # the facts so kept go through the rule engine, each bound by its own id (findings name facts by id: two readings
    # under one id were one there, and durable refused some such pairs outright: MessageObservedException, round rI1)
    from stethoscope.engine.ruleengine import session
    from stethoscope.engine.ruleengine.loader import load_rules
    rules = load_rules().rules
    firings, _derived = session.run(rules, first + kept)
    bound = {i for f in firings for _alias, i in f.bindings}
    assert {"dmesg.txt:3:xid_event", "dmesg.txt:3:xid_event~torch_log"} <= bound

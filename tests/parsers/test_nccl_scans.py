"""The NCCL readers' literal searches find what the regex scans they replaced found (issue 12), on
every NCCL log of the fixtures and damaged copies of each (test_nccl_log_golden's cases), and on
lines made for each rule: nccl_channels' candidates when no rule in use binds ring neighbours or
tree links (_order_candidates: a line's leftmost candidate), nccl_nvls' detect()."""
from __future__ import annotations

import bisect
import importlib.util
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_channels, nccl_nvls
from stethoscope.facts.parsers.base import Artefact, lines_with

HERE = Path(__file__).resolve().parent


def _golden():
    """test_nccl_log_golden's sources and damaged variants (the same cases the golden file holds)."""
    spec = importlib.util.spec_from_file_location("nccl_log_golden", HERE / "test_nccl_log_golden.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _texts() -> list[tuple[str, str]]:
    g = _golden()
    return [(f"{rel}|{name}", text) for rel, src in g.sources().items() for name, text, _ in g.variants(src, rel)]


def _old(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in nccl_channels._ORDER_CANDIDATES.finditer(text)]


@pytest.fixture(scope="module")
def texts() -> list[tuple[str, str]]:
    return _texts()


class _LinksDead:
    """A router under which no rule binds ring neighbours or tree links (every fact built)."""

    dead = nccl_channels._LINKS
    summarised: frozenset[str] = frozenset()


def _read(text: str, scan=None) -> tuple:
    """nccl_channels' facts and errors with the links dead, its candidates from ``scan`` (the own one: None)."""
    own = nccl_channels._order_candidates
    if scan is not None:
        nccl_channels._order_candidates = scan
    try:
        res = nccl_channels.parse(Artefact(path="log", text=text, node="n1", router=_LinksDead()))
    finally:
        nccl_channels._order_candidates = own
    return [f.model_dump() for f in res.facts], [(e.line, e.message) for e in res.errors]


def _kept(text: str) -> list[tuple[int, int]]:
    """_old's matches up to the last one that can give a fact (its line holds a ring order, a "Trees comm 0x", or
    a communicator's node count: " nNodes " in the match)."""
    spans = _old(text)
    gives = [i for i, (a, b) in enumerate(spans)
             if nccl_channels._ORDER_AT.search(text, a, b) or text.find("NCCL INFO Trees comm 0x", a, b) != -1
             or text.find(" nNodes ", a, b) != -1]
    return spans[:gives[-1] + 1] if gives else []


def test_order_candidates_are_the_scans_matches(texts):
    """_order_candidates gives the regex scan's matches up to the last that can give a fact, and
    nccl_channels reads from them what it reads from all of the scan's."""
    differ = [name for name, text in texts if nccl_channels._order_candidates(text) != _kept(text)]
    assert len(texts) > 1000
    assert not differ, differ[:10]
    differ = [name for name, text in texts if _read(text) != _read(text, _old)]
    assert not differ, differ[:10]


@pytest.mark.parametrize("text", [
    "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 NCCL INFO Channel 00/02 : 0 1",
    "h:1:2 [0] NCCL INFO Channel 00/02 : 0 1\nh:1:2 [0] NCCL INFO x NCCL INFO comm 0x1 rank 0 nRanks 2",
    "NCCL INFO NCCL comm 0x1\nNCCL INFO INFO comm 0x2\nNCCL INFO a b comm 0x3\nNCCL INFO x:y comm 0x4\ncomm 0x5 NCCL INFO comm 0x6",
    "NCCL INFO ncclCommSplit comm 0x1 NCCL INFO comm 0x2\n\nNCCL INFO \ncomm 0x3\nNCCL INFO é comm 0x4\nNCCL INFO  comm 0x5",
    "comm 0x", "INFO comm 0x1", "NCCL INFO Channel 00/02 :    0   1  \r\nNCCL INFO Channel 01/02 : 0 -> 1",
    # a rank's node count after the last ring order (every rank prints one): read, its commId too
    "h:1:2 [0] NCCL INFO Channel 00/02 : 0 1\nh:1:3 [1] NCCL INFO ncclCommInitRank comm 0x2 rank 1 nranks 2 commId 0xa - Init START\n"
    "h:1:3 [1] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\nh:1:3 [1] NCCL INFO comm 0x3 rank 0 nRanks 2",
    " nNodes NCCL INFO comm 0x1 rank 0 nRanks 2\nNCCL INFO Trees comm 0x1 nNodes 2 [0] 1/-1/-1->0->-1\nx nNodes y",
    "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 commId 0xa\nh:1:2 [0] NCCL INFO Channel 00/02 : 0 1\n"
    "h:1:2 [0] NCCL INFO comm 0x2 rank 0 nRanks 2\nh:1:2 [0] NCCL INFO Trees comm 0x2 [0] 1/-1/-1->0->-1\nh:1:2 [0] NCCL INFO comm 0x3 rank 0 nRanks 2",
])
def test_order_candidates_on_odd_lines(text):
    assert nccl_channels._order_candidates(text) == _kept(text)
    assert _read(text) == _read(text, _old)


@pytest.mark.parametrize("text", ["", "NVLS ", "x\nh:1:2 [0] NCCL INFO NVLS Bind mem 0x1\n", "a coll channels, b\n2 coll channels, 2 p2p channels, 2 p2p channels per peer",
                                  "NVLS multicast support is available on dev 3\r", "h NVLS x\nNVLS"])
def test_nvls_detect_on_odd_lines(text):
    assert nccl_nvls.detect(text) == any(nccl_nvls._LINE.match(line) for _, line in lines_with(text, nccl_nvls._LITERALS))


def test_nvls_detect_is_the_line_scan(texts):
    differ = [name for name, text in texts
              if nccl_nvls.detect(text) != any(nccl_nvls._LINE.match(line) for _, line in lines_with(text, nccl_nvls._LITERALS))]
    assert not differ, differ[:10]


def _long_logs() -> list[tuple[str, str]]:
    """The fixtures' NCCL logs long enough for nccl_log's fast path (test_nccl_log_fast_path's LOGS)."""
    spec = importlib.util.spec_from_file_location("nccl_log_fast_path", HERE / "test_nccl_log_fast_path.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(str(p), p.read_text(encoding="utf-8")) for p in mod.LOGS]


def _readings(text: str, shared: bool) -> tuple:
    """nccl_channels (links dead), nccl_log, nccl_nvls and nccl_net_oob of ``text``, in parse_one's order:
    ``shared``: one artefact after the classifier's pass (the companions read the lines nccl_log_scan's
    pass routed); else each reader alone, its own scan of the whole text (nccl_log's line-by-line scan)."""
    from stethoscope.facts import classify
    from stethoscope.facts.parsers import nccl_log, nccl_log_scan, nccl_net_oob
    out = []
    art = Artefact(path="log", text=text, node="n1", router=_LinksDead())
    if shared:
        classify.classifier().scan(text)
    for mod in (nccl_channels, nccl_log, nccl_nvls, nccl_net_oob):
        if not shared:
            classify.forget()
            art = Artefact(path="log", text=text, node="n1", router=_LinksDead())
            own = nccl_log.candidates
            nccl_log.candidates = lambda t: (nccl_log_scan._SCAN.finditer(t), None)
        try:
            res = mod.parse(art)
        finally:
            if not shared:
                nccl_log.candidates = own
        out.append(([f.model_dump() for f in res.facts], [(e.line, e.message) for e in res.errors], res.lines_used,
                     [(h.limit, h.line, h.detail) for h in res.limits]))
    routed = nccl_log_scan.routed_regions(art) is not None if shared else None
    classify.forget()
    return out, routed


def test_one_pass_routes_the_lines_each_reader_reads(texts):
    """Issue 12: in a log NCCL wrote alone, nccl_log_scan's one RE2 pass picks the lines of nccl_log and of
    its companions (nccl_channels' ring orders and communicators, nccl_nvls' and nccl_net_oob's lines),
    which then read only inside its runs: every reader gives the facts, errors, lines used and limits it
    gives reading the whole text itself, on the fixtures' long NCCL logs and the golden cases made long
    (each repeated to the fast path's length)."""
    from stethoscope.facts.parsers import nccl_log_scan
    cases = _long_logs()
    for name, text in texts:
        if text.strip():
            body = text if text.endswith("\n") else text + "\n"
            cases.append((name, body * (nccl_log_scan._FAST_FROM // len(body) + 1)))
    differ, routed = [], 0
    for name, text in cases:
        shared, was_routed = _readings(text, True)
        routed += bool(was_routed)
        if shared != _readings(text, False)[0]:
            differ.append(name)
    assert routed > 50, routed
    assert not differ, differ[:10]


def test_channels_detect_from_the_classifiers_pass(texts):
    """Issue 12: nccl_channels.detect takes the classifier's answer where its pass found the signature (RE2's
    \\s and \\d are ASCII, Python's more: where RE2 finds _DETECT, Python's search does too); it gives what its
    own search gives on every golden case, each after the classifier's pass over it and without one, and on
    lines whose blanks or digits only Python's classes take (\\v, a full-width digit)."""
    from stethoscope.facts import classify
    cases = list(texts) + [("vt", "h:1:2 [0] NCCL INFO Channel 00/02 :\x0b0 1\n"),
                           ("wide", "h:1:2 [0] NCCL INFO Channel 0\uff10/02 : 0 1\n"),
                           ("plain", "h:1:2 [0] NCCL INFO Channel 00/02 : 0 1\n")]
    differ = []
    for name, text in cases:
        want = bool(nccl_channels._DETECT.search(text))
        classify.forget()
        alone = nccl_channels.detect(text)
        classify.classifier().scan(text)
        scanned = nccl_channels.detect(text)
        classify.forget()
        if not alone == scanned == want:
            differ.append(name)
    assert not differ, differ[:10]


def test_spans_are_finditers(texts):
    """Issue 12: nccl_log_scan.spans asks google-re2's compiled object for the matches its finditer gives (the
    same searches from the same offsets, empty matches stepped over as finditer steps): the same spans for the
    scan's RE2 patterns on every golden case and fixture log, and for patterns that match the empty string."""
    import re2
    from stethoscope.facts.parsers import nccl_log_scan as S
    pats = (S._WANTED_RUNS_BUT_CHANNELS, S._WANTED_RUNS_ROUTED, S._WANTED_RUNS, S._PREFIXED_RUNS, S.ANY_OTHER_LITERAL)
    empty = (re2.compile(b"x*"), re2.compile(b"(?m)^"), re2.compile(b"a|"))  # (a match at every offset: short texts only)
    datas = [text.encode("utf-8", "surrogatepass") for _, text in [*texts, *_long_logs()]] + [b"", b"xxaxx\n\nx"]
    differ = [(p.pattern[:40], d[:40]) for p in pats for d in datas if S.spans(p, d) != [m.span() for m in p.finditer(d)]]
    differ += [(p.pattern, d[:40]) for p in empty for d in datas if len(d) < 2000
               and S.spans(p, d) != [m.span() for m in p.finditer(d)]]
    assert not differ, differ[:5]


def test_routed_pass_from_the_device_bracket(texts):
    """Issue 12, rounds rZ1 and rQ7: nccl_log_scan.routed_spans_alone (the routed pass found from each run's first
    device bracket "] ", the run moved to the next line where another "] " of its line stands before the match)
    gives the routed pass's own spans on every text whose lines all start with NCCL's prefix (the texts
    candidates() asks it for): the golden cases, the fixture logs and the long logs that are such texts, each
    other text's prefixed lines alone, and those with CONSTRUCTED prefixed lines whose message holds "] " before
    an NCCL level or a wanted message, put on top, among the lines and at the end (with and without a last newline)."""
    from stethoscope.facts.parsers import nccl_log_scan as S
    # CONSTRUCTED: NCCL's prefix, then a message that holds "] " and what a wanted line holds after its own "] "
    made = ["h:1:2 [0] NCCL INFO New proxy] NCCL WARN x", "h:1:2 [0] NCCL INFO a] NCCL INFO NET/IB : No device found.",
            "h:1:2 [0] NCCL INFO [Proxy] NCCL INFO Channel 00/24 : 0 1", "h:1:2 [0] x.cc:9 NCCL INFO q] NCCL ATTN r",
            "h:1:2 [0] NCCL INFO x] ] NCCL WARN", "h:1:2 [-1] NCCL INFO Connected to proxy] NCCL INFO comm 0x1 rank 0",
            "h:1:2 [0] NCCL INFO ]] NCCL WARN y", "h:1:2 [0] NCCL INFO Trees [0] NCCL WARN z"]
    bases: list[str] = []
    for _, text in [*texts, *_long_logs()]:
        if text.isascii():
            bases.append(text)
            bases.append("\n".join(line for line in text.split("\n") if S._PREFIXED_LINE.match(line)))
    cases: list[str] = []
    for text in bases:
        cases += [text, text.rstrip("\n")]
    for k, text in enumerate([t for t in bases if "NCCL INFO" in t][:60]):
        lines = text.split("\n")
        for i, line in enumerate(made[:k % len(made) + 1]):
            lines.insert((i * 7919 + k) % (len(lines) + 1), line)
        cases += ["\n".join(lines), "\n".join(lines).rstrip("\n"), "\n".join(made[k % 3:] + lines)]
    checked = moved = 0
    differ = []
    for text in cases:
        data = text.encode()
        if not text or S._ALL_PREFIXED.fullmatch(data) is None:
            continue
        checked += 1
        want = S.spans(S._WANTED_RUNS_ROUTED, data)
        moved += sum(text.find("] ", text.rfind("\n", 0, at) + 1, at) != -1 for at, _ in S.spans(S._ROUTED_FROM_DEVICE, data))
        if S.routed_spans_alone(text, data) != want:
            differ.append(text[:80])
    print(checked, moved)
    assert checked > 300 and moved > 50, (checked, moved)
    assert not differ, differ[:5]


def test_prefixed_count_by_runs_among_a_few_other_lines(texts):
    """Issue 12: nccl_log_scan._prefixed_count counts NCCL's prefixed lines by RE2's runs wherever at most
    _FEW_OTHER_LINES lines lack a marker (a rank log: torchrun's banner on top, the script's last line), by
    findall where more do and one line in 16 or more is not NCCL's: both give the count of the lines that
    start with NCCL's prefix (_PREFIXED_AFTER_NL, line by line), on every golden case and fixture log, each
    with 1-20 lines of another program put on top, among its lines and at its end (with and without a
    last newline)."""
    from stethoscope.facts.parsers import nccl_log_scan as S
    other = ["W1129 18:30:26.245000 1668 torch/distributed/run.py:851] *****", "rank 3 done 64.0", "", "   ",
             "x NCCL INFO y", "h:1:2 [0] NCCL INFO", "h:1:2 [0] NCCL WARN\tx"]
    differ, runs = [], 0
    for name, text in [*texts, *_long_logs()]:
        if not text.isascii():
            continue
        lines = text.split("\n")
        for k in (1, 3, 6, 20):
            mixed = list(lines)
            for i in range(k):
                mixed.insert((i * 7919) % (len(mixed) + 1), other[i % len(other)])
            for t in ("\n".join(mixed), "\n".join(mixed).rstrip("\n")):
                if not t:
                    continue
                marked = t.count("NCCL INFO") + t.count("NCCL WARN")
                want = len(S._PREFIXED_AFTER_NL.findall("\n" + t))
                runs += (t.count("\n") + 1 - marked) <= S._FEW_OTHER_LINES
                if S._prefixed_count(t, t.encode(), marked) != want:
                    differ.append((name, k))
    assert runs > 100, runs
    assert not differ, differ[:10]


def _fixture_nccl_texts() -> list[tuple[str, str]]:
    """Every fixture file that holds an NCCL line (NCCL's logs, rank and training logs, bundles' files, the notes that
    quote them), as written and as the readers see it (facts/lines.normalise: a launcher's or a paste's wrapper off),
    each repeated to the fast path's length where shorter (its lines are what matters: routing is line by line)."""
    from stethoscope.facts.lines import normalise
    from stethoscope.facts.parsers import nccl_log_scan
    root = HERE.parents[1] / "fixtures"
    out: list[tuple[str, str]] = []
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        try:
            raw = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "NCCL INFO" not in raw and "NCCL WARN" not in raw and "NCCL ATTN" not in raw:
            continue
        seen = set()
        for form, text in (("", raw), ("|normalised", str(normalise(raw)))):
            if text in seen or not text.strip():
                continue
            seen.add(text)
            if len(text) < nccl_log_scan._FAST_FROM:
                body = text if text.endswith("\n") else text + "\n"
                text = body * (nccl_log_scan._FAST_FROM // len(body) + 1)
            out.append((f"{p.relative_to(root)}{form}", text))
    return out


@pytest.fixture(scope="module")
def fixture_texts() -> list[tuple[str, str]]:
    return _fixture_nccl_texts()


def _companion_lines(text: str) -> dict[str, list[tuple[int, int]]]:
    """(start, end) of each line each companion reads in ``text`` by its own scan of the whole text: nccl_channels'
    candidates where no rule binds ring neighbours or tree links (the only case it routes), nccl_nvls' and
    nccl_net_oob's lines that their _LINE takes."""
    from stethoscope.facts.parsers import nccl_net_oob

    def whole(start: int) -> tuple[int, int]:
        end = text.find("\n", start)
        return start, len(text) if end == -1 else end
    return {
        "nccl_channels": [whole(text.rfind("\n", 0, at) + 1) for at, _ in nccl_channels._order_candidates(text)],
        "nccl_nvls": [whole(s) for s, line in lines_with(text, nccl_nvls._LITERALS) if nccl_nvls._LINE.match(line)],
        "nccl_net_oob": [whole(s) for s, line in nccl_net_oob._lines_with_both(text) if nccl_net_oob._LINE.search(line)],
    }


def test_companion_lines_lie_in_the_routed_runs(fixture_texts):
    """Issue 12, round rX1: the proof behind routed_regions, on every fixture text that holds an NCCL line (323 texts:
    each file as written and normalised). (1) Every line a companion reads that starts with NCCL's prefix lies in a run
    of nccl_log_scan's routed pass (_WANTED_RUNS_ROUTED), whatever else the text holds: the pass takes a line by the
    line alone (the pass without the companions' messages, _WANTED_RUNS_BUT_CHANNELS, leaves ~850 of them out). (2) In
    a text NCCL wrote alone, and in one whose other lines hold no NCCL marker (_no_other: a rank log, torchrun's banner
    on top), every line nccl_channels and nccl_net_oob read starts with NCCL's prefix (each needs "NCCL INFO", and
    each of those stands in a prefixed line's prefix), so they could read the runs alone; nccl_nvls also reads its
    messages bare ("NVLS multicast support is available on dev 3"), which stand on other lines of such texts (nccl#1788's
    fixture): it may read the runs alone only in a text NCCL wrote alone. routed_regions routes that case only: routing
    the second (a rank log, 5.7 kB) cost more than the companions' own scans of it (bench/speed_rX1.md)."""
    from stethoscope.facts.parsers import nccl_log_scan as S
    outside, unprefixed, bare, checked, mixed, lines = [], [], [], 0, 0, 0
    for name, text in fixture_texts:
        if not text.isascii():
            continue  # (the fast path, and so the routing, takes ASCII text only)
        data = text.encode()
        runs = S._wanted_runs(text, data, S._WANTED_RUNS_ROUTED)
        if runs is None:
            continue
        regions = [(start, end) for start, end, _, _ in runs]
        checked += 1
        alone = S._ALL_PREFIXED.fullmatch(data) is not None
        marked = text.count("NCCL INFO") + text.count("NCCL WARN") + text.count("NCCL ATTN")
        routable = alone or S._no_other(text, S._prefixed_count(text, data, marked), data, marked)
        mixed += routable and not alone
        for reader, spans in _companion_lines(text).items():
            for start, end in spans:
                lines += 1
                if S._PREFIXED_LINE.match(text, start, end + 1):
                    i = bisect.bisect_right(regions, (start, float("inf"))) - 1
                    if i < 0 or not regions[i][0] <= start < end <= regions[i][1]:
                        outside.append((name, reader, text[start:end][:120]))
                elif routable:
                    (bare if reader == "nccl_nvls" else unprefixed).append((name, reader, text[start:end][:120]))
    assert checked > 150 and mixed > 20 and lines > 1000, (checked, mixed, lines)
    assert not outside, outside[:5]
    assert not unprefixed, unprefixed[:5]
    assert bare  # (real: nccl#1788's message pasted bare, among NCCL's lines: why nccl_nvls routes a text NCCL wrote alone only)


@pytest.mark.parametrize("before, host, pid, tid", [
    ("vm:1428:1439 [0] ", "vm", "1428", "1439"),
    ("node2:1208:1249 [0] init.cc:1000 ", "node2", "1208", "1249"),
    ("gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) ", "gpu-stress-dgc86-xfpt6", "420", "437"),
    ("h:1:2 [-1] ", "h", "1", "2"),
    ("h:1:2 [0] x ", None, None, None), ("h:1:2 [a] ", None, None, None), ("h:1 [0] ", None, None, None),
])
def test_one_spelling_of_nccls_prefix(before, host, pid, tid):
    """Round rX1: NCCL's "host:pid:tid [dev] [file:line [(function) ]]" prefix is spelt once (nccl_log_scan.PREFIX):
    nccl_log's CHANNEL_PREFIX and nccl_channels' _PREFIX are it matched whole on the text before "NCCL INFO";
    nccl_topo_print's is it found at that text's end, after a paste's tag ("[1,3]<stdout>:"), its host not the tail
    of a longer word; _SCAN's first branch is it with the thread unnamed (its rows' groups)."""
    from stethoscope.facts.parsers import nccl_log_scan as S, nccl_topo_print
    assert nccl_channels._PREFIX is S.CHANNEL_PREFIX and S.CHANNEL_PREFIX.pattern == S.PREFIX
    assert nccl_topo_print._PREFIX.pattern == r"(?<![\w.\-])" + S.PREFIX + "$"
    assert S._SCAN.pattern.startswith("^(?:" + S._PREFIX_UNNAMED_TID) and "tid" not in S._PREFIX_UNNAMED_TID
    whole = S.CHANNEL_PREFIX.fullmatch(before)
    tagged = nccl_topo_print._PREFIX.search("[1,3]<stdout>:" + before)
    for m in (whole, tagged):
        assert (m.group("host", "pid", "tid") if m else (None, None, None)) == (host, pid, tid)
    assert (S._PREFIXED_GROUPS.match(before + "NCCL INFO x") is not None) == (host is not None)

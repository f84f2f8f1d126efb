"""The NCCL INFO log readers (``nccl_log``, ``nccl_channels``, ``nccl_nvls``, ``nccl_net_oob``) give,
for every NCCL log in the repo and for damaged copies of each, exactly the facts, errors, limits
and lines used that they gave when the golden file was written (issue 12: the readers were made
faster; not one fact may change with it).

Cases: every file under ``fixtures/`` that one of the readers' ``detect`` accepts, and the bench
bundle's NCCL logs (bench/synth_bundle.py, 2 nodes), each as it is and in damaged copies: CRLF,
cut at a line end and mid-line, a launcher label / timestamp / pdsh host on every line, lines
deleted, duplicated, swapped, indented, garbage and non-ASCII lines inserted, a text repeated
past the fast path's size (nccl_log reads a text of nccl_log_scan._FAST_FROM characters or more another way), and
read with the node from its folder. The fast paths must read odd input exactly as the plain
reading did.

A source whose content changed since the golden file was written is passed over (its sha is in
the file). After a deliberate change of what the readers emit, write the file again:

    .venv/bin/python tests/parsers/test_nccl_log_golden.py --write
"""
from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_channels, nccl_log, nccl_net_oob, nccl_nvls
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("nccl_log_golden.json")
READERS = (nccl_log, nccl_channels, nccl_nvls, nccl_net_oob)
MAX_BYTES = 4_000_000
#: lines a damaged copy gets: NCCL lines of odd shapes, a shell prompt, blanks, non-ASCII text
GARBAGE = ("$ all_reduce_perf -b 8 -e 1G", "   ", "\t", "NCCL INFO", "NCCL WARN ", "h:1:2 [0] NCCL INFO ",
           "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
           "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/直接", "h:1:2 [1] NCCL INFO Channel 01 : 1 -> 0",
           "h:9:9 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129",
           "h:1:2 [0] NCCL INFO misc/socket.cc:80 -> 6", "h:1:2 [0] NCCL INFO init.cc:126 -> 5 [Async thread]",
           "NCCL version 2.18.1+cuda12.1", "x.cc:12 WARN odd", "NCCL_DEBUG set by environment to INFO",
           "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId zz - Init COMPLETE",
           "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>",
           "h:1:2 [0] NCCL INFO NVLS multicast support is not available on dev 0",
           "h:1:2 [0] NCCL INFO Channel 00/02 :    0   1", "h:1:2 [0] NCCL INFO Trees [0] -1/-1/-1->0->1",
           "Error while creating shared memory segment /dev/shm/nccl-abc (size 10)", "ünïcödé NCCL INFO ✓",
           "Mismatched collective detected", "Unable to load libnccl-net.so : nope", "\x1b[0m NCCL version 2.7.8+cuda11.1")
LABELS = ("[rank0]: ", "[1,3]<stdout>:", "[2026-11-29 18:30:18] ", "node7: ", "\x1b[32m")


def _bench_texts() -> dict[str, str]:
    """The bench bundle's NCCL logs and train logs (2 nodes), by path."""
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(ROOT / "bench" / "synth_bundle.py"), tmp, "--nodes", "2"],
                       check=True, stdout=subprocess.DEVNULL)
        for p in sorted(Path(tmp).rglob("*")):
            if p.is_file():
                text = p.read_text(errors="replace")
                if any(m.detect(text) for m in READERS):
                    out[f"bench:{p.relative_to(tmp)}"] = text
    return out


def _text(p: Path) -> str | None:
    """A fixture's text as parse_one would see it; None for a folder, a large or a binary file."""
    if not p.is_file() or p.stat().st_size > MAX_BYTES:
        return None
    try:
        return p.read_text()
    except (UnicodeDecodeError, OSError):
        return None


def sources() -> dict[str, str]:
    """Every fixture file one of the readers recognises, then the bench bundle's."""
    texts = ((str(p.relative_to(ROOT)), _text(p)) for p in sorted(ROOT.joinpath("fixtures").rglob("*")))
    found = {rel: t for rel, t in texts if t is not None and any(m.detect(t) for m in READERS)}
    return found | _bench_texts()


def variants(text: str, seed: str) -> list[tuple[str, str, bool]]:
    """(name, text, node_from_folder) of the log and of damaged copies; deterministic per ``seed``."""
    rnd = random.Random(seed)
    lines = text.split("\n")
    out = [("as_is", text, False), ("folder", text, True), ("crlf", text.replace("\n", "\r\n"), False)]
    for i, label in enumerate(LABELS):
        out.append((f"labelled{i}", "\n".join(label + ln for ln in lines), False))
    if len(text) < 16384:  # repeated to 16,384 characters at least: past nccl_log's fast-path size (_FAST_FROM)
        out.append(("repeated", (text + "\n") * (16384 // max(len(text), 1) + 1), False))
    if len(text) > 10:
        cut = rnd.randrange(len(text) // 3, len(text))
        out += [("cut_mid_line", text[:cut], False), ("cut_line_end", text[:text.rfind("\n", 0, cut) + 1], False)]
    for i in range(8):
        ls = list(lines)
        for _ in range(rnd.randint(1, 4)):
            j = rnd.randrange(len(ls))
            ln, two = ls[j], ls[j:j + 2]
            ls[j:j + len(two)] = {  # what the lines at j become
                "delete": [], "duplicate": [ln] + two, "indent": [" " * rnd.randint(1, 3) + ln] + two[1:],
                "swap": two[::-1], "garbage": [rnd.choice(GARBAGE)] + two, "cr": [ln + "\r"] + two[1:],
                "trail": [ln + rnd.choice(("  ", "\t", " [repeated 3x across cluster]", " " * 12 + "tail"))] + two[1:],
                "nonascii": [ln.replace(" ", " é ", 1) if rnd.random() < 0.5 else ln + " ✓"] + two[1:],
            }[rnd.choice(("delete", "duplicate", "indent", "swap", "garbage", "garbage", "cr", "trail", "nonascii"))]
            ls = ls or [""]
        out.append((f"damaged{i}", "\n".join(ls), False))
    return out


def outcome(mod, path: str, text: str, folder: bool) -> str:
    """What a reader made of ``text`` (every fact's fields and line, every error, limit and count), as a
    short sha; "-" when it made nothing of it."""
    res = mod.parse(Artefact(path=path, text=text, node="node1", node_from_folder=folder))
    if not (res.facts or res.errors or res.limits or res.lines_used or res.capped):
        return "-"
    body = json.dumps([[f.model_dump(mode="json") for f in res.facts], [[e.path, e.line, e.message] for e in res.errors],
                       [[h.limit, h.path, h.line, h.detail] for h in res.limits], res.lines_used, res.capped], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def cases() -> dict[str, dict[str, str]]:
    """{"sources": path -> sha of its text, "cases": "path|variant" -> each reader's outcome, in READERS' order}"""
    out: dict[str, dict[str, str]] = {"sources": {}, "cases": {}}
    for rel, text in sources().items():
        out["sources"][rel] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        for name, variant, folder in variants(text, rel):
            # every reader on every variant: a text a reader does not detect is read as empty
            out["cases"][f"{rel}|{name}"] = " ".join(outcome(m, rel, variant, folder) for m in READERS)
    return out


def test_readers_give_the_golden_outcomes():
    golden, now = json.loads(GOLDEN.read_text()), cases()
    same_source = {rel for rel, sha in golden["sources"].items() if now["sources"].get(rel) == sha}
    kept = {k: v for k, v in golden["cases"].items() if k.split("|", 1)[0] in same_source}
    differ = [f"{k}: golden {v}, now {now['cases'].get(k)} ({' '.join(m.KIND for m in READERS)})"
              for k, v in kept.items() if now["cases"].get(k) != v]
    assert not differ, f"{len(differ)} of {len(kept)} cases differ:\n" + "\n".join(differ[:20])
    assert len(kept) >= 1000, len(kept)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        GOLDEN.write_text(json.dumps(cases(), indent=0, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        sys.exit(pytest.main([__file__, "-q"]))

"""The ``nvidia-smi -q`` text and ``-q -x`` XML readers give, for every capture in the repo and
for damaged copies of each, exactly the facts, errors, limits and lines used that they gave
when the golden file was written (issue 12: the readers were made faster; not one fact may
change with it).

Cases: every file under ``fixtures/`` that either reader's ``detect`` accepts, each as it is
and in damaged copies (CRLF, cut at a line end and mid-line, lines deleted, duplicated,
re-indented, tab-indented, swapped, garbage lines inserted, a launcher label on every line):
the readers' fast paths must read the odd input exactly as the plain reading did.

A fixture whose content changed since the golden file was written is passed over (its sha
is in the file). After a deliberate change of what the readers emit, write the file again:

    .venv/bin/python tests/parsers/test_nvidia_smi_golden.py --write
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_smi_q, nvidia_smi_xml
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("nvidia_smi_golden.json")
READERS = (nvidia_smi_q, nvidia_smi_xml)
MAX_BYTES = 4_000_000
#: garbage lines a damaged copy gets: a shell prompt, a stray tag, blanks, a tab, a lone colon
GARBAGE = ("$ nvidia-smi -q", "<foo>", "   ", "\t", "    :", "\tKey  : v", "  Odd Indent  : 1",
           "      Deep Section", "GPU 00000000:99:00.0", "Attached GPUs  : 9", "</gpu>", "<gpu id=\"x\">",
           "&bogus;", "    Processes                 : None")


def sources() -> list[Path]:
    """Every fixture file either reader recognises (its whole text, as parse_one would see it)."""
    found = []
    for p in sorted(ROOT.joinpath("fixtures").rglob("*")):
        if not p.is_file() or p.stat().st_size > MAX_BYTES:
            continue
        try:
            text = p.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if any(m.detect(text) for m in READERS):
            found.append(p)
    return found


def variants(text: str, seed: str) -> list[tuple[str, str]]:
    """(name, text) of the capture and of damaged copies; deterministic per ``seed``."""
    rnd = random.Random(seed)
    lines = text.split("\n")
    out = [("as_is", text), ("crlf", text.replace("\n", "\r\n")),
           ("labelled", "\n".join(f"[rank0]: {ln}" for ln in lines))]
    if len(text) > 10:
        cut = rnd.randrange(len(text) // 3, len(text))
        out += [("cut_mid_line", text[:cut]), ("cut_line_end", text[:text.rfind("\n", 0, cut) + 1])]
    for i in range(10):
        ls = list(lines)
        for _ in range(rnd.randint(1, 3)):
            j = rnd.randrange(len(ls))
            op = rnd.choice(("delete", "duplicate", "indent", "dedent", "tab", "swap", "garbage", "colon", "cr"))
            if op == "delete":
                del ls[j]
            elif op == "duplicate":
                ls.insert(j, ls[j])
            elif op == "indent":
                ls[j] = " " * rnd.randint(1, 3) + ls[j]
            elif op == "dedent":
                ls[j] = ls[j][rnd.randint(1, 3):] if ls[j].startswith(" ") else ls[j].lstrip("\t")
            elif op == "tab":
                ls[j] = "\t" + ls[j].lstrip(" ")
            elif op == "swap" and j + 1 < len(ls):
                ls[j], ls[j + 1] = ls[j + 1], ls[j]
            elif op == "garbage":
                ls.insert(j, rnd.choice(GARBAGE))
            elif op == "colon":
                ls[j] = ls[j].replace(" : ", ": ", 1).replace("><", ">\n<", 1)
            elif op == "cr":
                ls[j] = ls[j] + "\r" if rnd.random() < 0.5 else ls[j].replace(" ", "\r", 1)
            if not ls:
                ls = [""]
        out.append((f"damaged{i}", "\n".join(ls)))
    if "<nvidia_smi_log" in text:
        out += [(f"xml{i}", _damage_xml(lines, rnd)) for i in range(15)]
    return out


def _damage_xml(lines: list[str], rnd: random.Random) -> str:
    """XML that is odd but may be well formed: comments, CDATA, references, attributes,
    self-closing and unknown elements, a lost end tag, a tag split over lines."""
    ls = list(lines)
    for _ in range(rnd.randint(1, 3)):
        tagged = [j for j, ln in enumerate(ls) if "</" in ln] or [0]
        j = rnd.choice(tagged)
        ln = ls[j]
        op = rnd.choice(("comment", "cdata", "ref", "attr", "selfclose", "unknown", "drop_close", "space",
                         "split", "nested", "pi", "empty"))
        if op == "comment":
            ls.insert(j, "<!-- <gpu_temp>99 C</gpu_temp> -->")
        elif op == "cdata" and ">" in ln and "</" in ln:
            a, b = ln.index(">") + 1, ln.index("</")
            ls[j] = ln[:a] + "<![CDATA[" + ln[a:b] + "]]>" + ln[b:]
        elif op == "ref":
            ls[j] = ln.replace("N/A", "N&#47;A").replace("No<", "N&#111;<").replace(" C<", "&#32;C<")
        elif op == "attr":
            ls[j] = ln.replace(">", ' extra="1">', 1)
        elif op == "selfclose" and ">" in ln and "</" in ln:
            ls[j] = ln[:ln.index(">")] + "/>"
        elif op == "unknown":
            ls.insert(j, "<new_field>1</new_field>")
        elif op == "drop_close":
            ls[j] = ln[:ln.index("</")]
        elif op == "space":
            ls[j] = ln.replace("</", "</ ", 1) if rnd.random() < 0.2 else ln.replace(">", " >", 1)
        elif op == "split":
            ls[j] = ln.replace("<", "<\n", 1) if rnd.random() < 0.5 else ln.replace(">", "\n>", 1)
        elif op == "nested" and "</" in ln:
            ls[j] = ln.replace("</", "<inner>x</inner></", 1)
        elif op == "pi":
            ls.insert(j, "<?note x?>")
        elif op == "empty" and ">" in ln and "</" in ln:
            ls[j] = ln[:ln.index(">") + 1] + ln[ln.index("</"):]
    return "\n".join(ls)


def outcome(mod, path: str, text: str) -> dict:
    """What a reader made of ``text``: every fact's fields, every error, limit and count."""
    res = mod.parse(Artefact(path=path, text=text, node="node1"))
    body = json.dumps({
        "facts": [f.model_dump(mode="json") for f in res.facts],
        "errors": [[e.path, e.line, e.message] for e in res.errors],
        "limits": [[h.limit, h.path, h.line, h.detail] for h in res.limits],
        "lines_used": res.lines_used, "capped": res.capped,
    }, sort_keys=True)
    return {"sha": hashlib.sha256(body.encode()).hexdigest()[:20],
            "n": [len(res.facts), len(res.errors), len(res.limits), res.lines_used]}


def cases() -> dict[str, dict]:
    out: dict[str, dict] = {"sources": {}, "cases": {}}
    for p in sources():
        rel = str(p.relative_to(ROOT))
        text = p.read_text()
        out["sources"][rel] = hashlib.sha256(text.encode()).hexdigest()[:20]
        mods = [m for m in READERS if m.detect(text)]
        for name, variant in variants(text, rel):
            for m in mods:
                out["cases"][f"{rel}|{name}|{m.KIND}"] = outcome(m, rel, variant)
    return out


def test_readers_give_the_golden_outcomes():
    golden = json.loads(GOLDEN.read_text())
    now = cases()
    checked, differ = 0, []
    for key, want in golden["cases"].items():
        rel = key.split("|", 1)[0]
        if now["sources"].get(rel) != golden["sources"][rel]:
            continue  # the fixture changed or went since the golden file was written
        checked += 1
        if now["cases"].get(key) != want:
            differ.append(f"{key}: golden {want}, now {now['cases'].get(key)}")
    assert not differ, f"{len(differ)} of {checked} cases differ:\n" + "\n".join(differ[:20])
    assert checked >= 500, checked


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        GOLDEN.write_text(json.dumps(cases(), indent=0, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        sys.exit(pytest.main([__file__, "-q"]))

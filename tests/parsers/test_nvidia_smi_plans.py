"""GPU blocks read from the plan of the first one laid out alike give exactly what the full reading
gives: the same facts, errors, limits and lines used, on a real 2 x H200 capture with its GPUs twice
and on copies damaged where a plan must not be used.

- ``nvidia-smi -q -x`` (facts/parsers/nvidia_smi_xml_blocks.py) against expat's callbacks alone:
  a leaf's text changed or given markup, a line added or lost, an element nested deep, a comment,
  a gpu id changed, the depth and element limits at random places.
- ``nvidia-smi -q`` (nvidia_smi_q._Plan) against reading every row: a value changed, a line added,
  lost or indented, a GPU line or a top-level key inserted.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_smi_q, nvidia_smi_xml, nvidia_smi_xml_blocks
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "fixtures/bundles/h200-healthy/bundle/vm"

INSERTS = ("<a><b><c><d><e><f><g>x</g></f></e></d></c></b></a>", "<gpu_temp>99 C</gpu_temp>", "<x>&amp;</x>",
           "<clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>", '<gpu id="00000000:99:00.0">',
           "</gpu>", "<timestamp>t</timestamp>", "<!-- c -->", "<?pi x?>", "<temperature>", "</temperature>",
           '<x a="1">', "<y/>", "<z>]]></z>", "<pid>1</pid>", "<processes></processes>", "<gpu_temp>\x01</gpu_temp>")
TEXTS = ("1", "Active", "Yes", "99 C", " x ", "", "N/A", "&lt;", "a]b", "\t", "\x7f", "é")


def _four_gpus() -> str:
    text = (CAPTURE / "smi.xml").read_text()
    first, last = text.index("\t<gpu id="), text.rindex("</gpu>") + len("</gpu>\n")
    return text[:last] + text[first:last].replace('id="00000000:00:', 'id="00000000:01:') + text[last:]


def _damaged(text: str, rnd: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rnd.randint(1, 3)):
        j, op = rnd.randrange(len(lines)), rnd.random()
        ln = lines[j]
        if op < 0.4 and ">" in ln and "</" in ln:
            lines[j] = ln[:ln.index(">") + 1] + rnd.choice(TEXTS) + ln[ln.index("</"):]
        elif op < 0.7:
            lines.insert(j, rnd.choice(INSERTS))
        elif op < 0.85:
            del lines[j]
        else:
            lines[j] = ln.replace('id="', 'id="0', 1)
    return "\n".join(lines)


def _outcome(text: str, mod=nvidia_smi_xml) -> str:
    res = mod.parse(Artefact(path="n/smi", text=text, node="n"))
    return json.dumps({"facts": [f.model_dump(mode="json") for f in res.facts],
                       "errors": [[e.line, e.message] for e in res.errors],
                       "limits": [[h.limit, h.line, h.detail] for h in res.limits], "lines": res.lines_used})


def _callbacks_only(reader, doc, final, *_):
    reader.parser.Parse(doc, final)


@pytest.mark.parametrize("seed", range(6))
def test_planned_gpus_read_as_the_callbacks_read_them(seed, monkeypatch):
    rnd = random.Random(seed)
    text = _four_gpus()
    planned, made = 0, nvidia_smi_xml_blocks.GpuRecord
    for i in range(25):
        variant = text if i == 0 else _damaged(text, rnd)
        monkeypatch.setattr(nvidia_smi_xml, "MAX_DEPTH", rnd.choice((32, 32, 4, 5, 6, 7)))
        monkeypatch.setattr(nvidia_smi_xml, "MAX_ELEMENTS", rnd.choice((500_000, rnd.randint(1, 1200))))
        monkeypatch.setattr(nvidia_smi_xml, "feed", nvidia_smi_xml_blocks.feed)
        counted = []
        monkeypatch.setattr(nvidia_smi_xml_blocks, "GpuRecord", lambda **kw: counted.append(1) or made(**kw))
        fast = _outcome(variant)
        planned += len(counted)
        assert i or len(counted) == 4 or nvidia_smi_xml.MAX_DEPTH < 8 or nvidia_smi_xml.MAX_ELEMENTS < 1200
        monkeypatch.setattr(nvidia_smi_xml, "feed", _callbacks_only)
        assert fast == _outcome(variant), f"seed {seed} case {i}"
    assert planned >= 8  # the plan was used, damaged copies included


VALUES = ("0", "1", "Active", "Not Active", "Yes", "No", "None", "N/A", "99 C", "", " x", "a : b", "\r", "garbage")
TEXT_INSERTS = ("GPU 00000000:77:00.0", "Timestamp  : x", "    Processes   : None", "        Idle    : Active", "",
           "    Temperature", "$ nvidia-smi -q", "      Deep Section", "    :", "\tKey  : v")


def _four_gpus_text() -> str:
    text = (CAPTURE / "smi.txt").read_text()
    first = text.index("\nGPU ") + 1
    return text + "\n" + text[first:].replace("GPU 00000000:00:", "GPU 00000000:01:")


def _damaged_text(text: str, rnd: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rnd.randint(1, 4)):
        j, op = rnd.randrange(len(lines)), rnd.random()
        if op < 0.5 and " : " in lines[j]:
            lines[j] = lines[j][:lines[j].index(" : ") + 3] + rnd.choice(VALUES)
        elif op < 0.75:
            lines.insert(j, rnd.choice(TEXT_INSERTS))
        elif op < 0.9:
            del lines[j]
        else:
            lines[j] = " " + lines[j]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(6))
def test_planned_gpu_blocks_read_as_their_rows_read(seed, monkeypatch):
    rnd = random.Random(seed)
    text = _four_gpus_text()
    blocks, read = nvidia_smi_q._gpu_blocks, nvidia_smi_q._Plan.read
    planned = []
    monkeypatch.setattr(nvidia_smi_q._Plan, "read", lambda self, *a: planned.append(1) or read(self, *a))
    for i in range(25):
        variant = text if i == 0 else _damaged_text(text, rnd)
        if rnd.random() < 0.3:
            nvidia_smi_q._PLANS.clear()
        monkeypatch.setattr(nvidia_smi_q, "_gpu_blocks", blocks)
        fast = _outcome(variant, nvidia_smi_q)
        monkeypatch.setattr(nvidia_smi_q, "_gpu_blocks", lambda *a: {})  # every row read
        assert fast == _outcome(variant, nvidia_smi_q), f"seed {seed} case {i}"
    assert len(planned) >= 8  # plans were used, damaged copies included

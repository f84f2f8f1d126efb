"""unrecognised_text.unread_failures: the failure lines of a recognised file that no fact cites."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.unrecognised_text import unread_failures

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_log"


def _lines(text: str) -> list[tuple[int, str]]:
    return [(f.evidence.line, f.message) for f in unread_failures(Artefact(path="t.log", text=text, node="n"), set()).facts]


def test_a_logger_record_over_many_lines_is_one_failure_at_its_exception():
    # PyTorch's logger (TorchLogsFormatter) prefixes each of the record's 8 lines alike
    got = _lines((FIX / "nvres18_elastic_logger_traceback.log").read_text())
    assert len(got) == 1
    assert got[0][0] == 6 and got[0][1].endswith("torch.multiprocessing.spawn.ProcessRaisedException:")


def test_records_of_other_prefixes_stay_apart():
    # the real record of nccl#1504 (api.py:869) beside a line of another record (api.py:732): two failures
    text = ("E1106 04:43:02.651000 26021 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
            "(exitcode: -6) local_rank: 3 (pid: 26026) of binary: /root/miniconda3/envs/pippy/bin/python\n"
            "E0228 00:35:58.954000 724855 site-packages/torch/distributed/elastic/multiprocessing/api.py:732]     self._pc.join(-1)\n")
    assert [n for n, _ in _lines(text)] == [1, 2]

"""sharp_log: NVIDIA SHARP's library and Aggregation Manager lines, on a real paste (NVIDIA/nccl#1460) and the forms."""
import pytest

from stethoscope.facts.parsers import sharp_log
from stethoscope.facts.parsers.base import Artefact

FIX = "fixtures/artefacts/sharp_log/nccl1460_sharp_am_no_resource_two_gpus_per_process.log"

ROWS = [
    # (line, (source, level, message, job_id, status, hca, port) or None for no fact)
    ("[snail01][Sep 24 16:15:29 847428][GENERAL][3745742][warn ] - Begin job id: 9370583446459220315 failed with status: No resource",
     ("sharp_am", "warn", "Begin job id: 9370583446459220315 failed with status: No resource", "9370583446459220315", "No resource",
      None, None)),   # NVIDIA/nccl#1460
    ("[snail01:0:3745196 unique id 9370583446459220315][2024-09-24 16:15:29] ERROR Job error in sharp_get_job_data_len.",
     ("libsharp", "ERROR", "Job error in sharp_get_job_data_len.", "9370583446459220315", None, None, None)),   # NVIDIA/nccl#1460
    ("[snail01:0:3745196 - context.c:709][2024-09-24 16:15:29] ERROR",
     ("libsharp", "ERROR", "", None, None, None, None)),   # NVIDIA/nccl#1460, the excerpt cut after the level
    # CONSTRUCTED from the library's form without the date (older releases) and a message naming a device and port
    ("[n1:1:2817 - context.c:415] ERROR failed to use device mlx5_3 port 1 for this job",
     ("libsharp", "ERROR", "failed to use device mlx5_3 port 1 for this job", None, None, "mlx5_3", 1)),
    # under an mpirun prefix (CONSTRUCTED: the #1460 line as Open MPI's --tag-output forwards it)
    ("[1,0]<stdout>:[snail01:0:3745196 unique id 9370583446459220315][2024-09-24 16:15:29] ERROR Job error in sharp_get_job_data_len.",
     ("libsharp", "ERROR", "Job error in sharp_get_job_data_len.", "9370583446459220315", None, None, None)),
    # must not: the Aggregation Manager's info lines of a job that ran (NVIDIA/nccl#1292), the library's INFO
    ("[May 22 02:20:08 752213][GENERAL][336070][info ] - Begin Job: job_id_external: 1516164047242882094 reservation_key:  job_id_sharp: 211 "
     "absolute quota values requested. qps: 1 user_data_per_ost: 0 osts: 0 groups: 0 limited by max quota_percent: 100.00", None),
    ("[May 22 02:20:08 758415][JOBS   ][336070][info ] - job_id_external: 1516164047242882094 reservation_key:  job_id_sharp: 211 - "
     "Allocated quota { q:2, ud:1024 o:23 g:23 } child_index_per_port: 1 tree_id: 0", None),
    ("[n1:0:24972 - context.c:702] INFO job (ID: 1201) resource request quota: ( osts:0 user_data_per_ost:0 max_groups:0 max_qps:1)",
     None),   # CONSTRUCTED, the library's INFO form
    # must not: NCCL's own lines about SHARP (nccl_log's)
    ("hostname:174:4057 [3] NCCL INFO SHARP rank 0/8 initialized on mlx5_4:1", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = sharp_log.parse(Artefact(path="log.txt", text=line + "\n")).facts
    got = [(f.source, f.level, f.message, f.job_id, f.status, f.hca, f.port) for f in facts]
    assert got == ([want] if want else [])


def test_fixture_nccl1460():
    text = open(FIX).read()
    assert sharp_log.detect(text)
    facts = sharp_log.parse(Artefact(path="nccl.log", text=text)).facts
    assert [(f.evidence.line, f.source, f.node) for f in facts] == [(1, "sharp_am", "snail01"), (2, "libsharp", "snail01"),
                                                                    (4, "libsharp", "snail01")]


def test_empty():
    assert sharp_log.parse(Artefact(path="log.txt", text="")).facts == []
    assert not sharp_log.detect("")

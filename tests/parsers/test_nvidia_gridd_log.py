"""nvidia_gridd_log: nvidia-gridd's licensing outcomes, table-driven on real lines."""
import pytest

from stethoscope.facts.parsers import nvidia_gridd_log
from stethoscope.facts.parsers.base import Artefact

ROWS = [
    # (line, event or None for a notice / no fact, server)
    ("Jun 05 16:36:01 CMS-AU-CENTOS76 nvidia-gridd[5805]: Invalid feature type requested", "invalid_feature", None),
    ("nvidia-gridd: License acquired successfully. (Info: license.nvidia.space, NVIDIA RTX Virtual Workstation; Expiry: 2023-1-29 22:3:0 GMT)",
     "acquired", "license.nvidia.space"),
    ("Oct 5 15:05:17 localhost nvidia-gridd: License acquired successfully. Server URL : http://51.179.209.134:7070/request",
     "acquired", "http://51.179.209.134:7070/request"),
    ("nvidia-gridd: Failed to acquire NVIDIA GRID Virtual Workstation license.", "failed", None),
    ("Oct 12 17:22:37 node3 nvidia-gridd: Failed to acquire license from 10.20.0.5", "failed", "10.20.0.5"),
    ("Jun 05 16:36:00 CMS-AU-CENTOS76 nvidia-gridd[5805]: Configuration parameter ( ServerAddress  FeatureType) not set", None, None),
    ("nvidia-gridd: Acquiring license. (Info: license.nvidia.space; NVIDIA RTX Virtual Workstation)", None, None),
]


@pytest.mark.parametrize("line,event,server", ROWS)
def test_line(line, event, server):
    facts = nvidia_gridd_log.parse(Artefact(path="gridd.log", text=line + "\n")).facts
    if event is None:
        assert facts == []
        return
    (f,) = facts
    assert (f.event, f.server, f.last) == (event, server, True)


def test_last_outcome_marked():
    text = "nvidia-gridd: Failed to acquire license from 10.0.0.1\nnvidia-gridd: License acquired successfully. (Info: ls1, vCS; Expiry: x)\n"
    facts = nvidia_gridd_log.parse(Artefact(path="m", text=text)).facts
    assert [(f.event, f.last) for f in facts] == [("failed", False), ("acquired", True)]

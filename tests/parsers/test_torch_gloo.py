"""torch_gloo: Gloo's connect failures, ProcessGroupGloo's wrapped form and older Gloo's bare pair IoException."""
from stethoscope.facts.parsers import torch_gloo, torch_log


def test_bare_pair_connect_reads_the_peer_and_its_loopback():
    # pytorch/pytorch#15592 (PyTorch 1.0, after "terminate called after throwing an instance of 'gloo::IoException'")
    line = ("  what():  [/opt/conda/conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] "
            "connect [127.0.1.1]:3210: Connection refused")
    assert torch_gloo.read_connect(line) == (dict(detail="Connection refused", remote="127.0.1.1", remote_loopback=True), False)
    # pytorch/examples#812 (raised as a RuntimeError)
    line = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:769] connect [127.0.1.1]:25472: Connection refused"
    got = torch_gloo.read_connect(line)
    assert got is not None and got[0]["remote"] == "127.0.1.1" and got[0]["remote_loopback"]
    assert torch_log.detect(line + "\n")


def test_other_programs_connect_lines_are_not_gloo():
    # OpenSSH's own wording: no pair.cc source in brackets, no [address]:port
    line = "ssh: connect to host 127.0.0.1 port 22: Connection refused"
    assert torch_gloo.read_connect(line) is None
    assert not torch_log.detect(line + "\n")

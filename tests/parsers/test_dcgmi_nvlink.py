"""dcgmi nvlink -s on real output: every link down (NVIDIA/DCGM#198) and every link up."""

from stethoscope.facts.parsers import dcgmi_nvlink

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_all_links_down_on_two_gpus():
    r = _parse(dcgmi_nvlink, "dcgmi_nvlink/dcgm198_h100nvl_link_status_all_down.txt")
    states = [f for f in r.facts if f.kind == "nvlink_link_state"]
    assert len(states) == 36 and {f.state for f in states} == {"inactive"} and r.errors == []
    assert {f.gpu for f in states} == {"GPU0", "GPU1"} and {f.gpu_active_links for f in states} == {0}
    assert states[0].evidence.line == 7 and states[0].expected is None and states[0].source == "dcgmi"


def test_all_links_up():
    r = _parse(dcgmi_nvlink, "dcgmi_nvlink/dcgm_docs_8gpu_12_up.txt")
    states = [f for f in r.facts if f.kind == "nvlink_link_state"]
    assert len(states) == 96 and {f.state for f in states} == {"active"} and {f.gpu_active_links for f in states} == {12}


def test_not_supported_and_disabled_links_are_not_states_and_a_bad_row_is_an_error():
    text = ("GPUs:\n    gpuId 0:\n        U U X _ D\n    gpuId 1:\n        U U ? U\n"
            "Key: Up=U, Down=D, Disabled=X, Not Supported=_\n")
    r = _parse(dcgmi_nvlink, text=text)
    got = [(f.gpu, f.link, f.state) for f in r.facts if f.kind == "nvlink_link_state"]
    assert got == [("GPU0", 0, "active"), ("GPU0", 1, "active"), ("GPU0", 4, "inactive")]
    assert len(r.errors) == 1 and r.errors[0].line == 5

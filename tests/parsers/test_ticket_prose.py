"""ticket_prose: what a reporter states in words (versions, platform, settings, figures, the symptom),
read from verbatim sentences of public threads (fixtures/artefacts/ticket_prose/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ticket_prose
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/ticket_prose"


def facts(name: str):
    text = (FIX / name).read_text()
    assert ticket_prose.detect(text)
    return ticket_prose.parse(Artefact(path=name, text=text, node="n1")).facts


def of(fs, kind: str) -> list[dict]:
    return [{k: v for k, v in f.model_dump().items() if k not in ("id", "node", "evidence", "kind") and v is not None}
            for f in fs if f.kind == kind]


def test_measured_and_expected_figure_in_one_sentence():
    fs = facts("nccl1244_h20_measured_vs_expected.txt")
    assert of(fs, "stated_figure") == [
        {"quantity": "bandwidth", "value": 343.0, "unit": "GBps", "gb_per_s": 343.0, "role": "measured"},
        {"quantity": "bandwidth", "value": 460.0, "unit": "GBps", "gb_per_s": 460.0, "role": "expected"}]
    assert of(fs, "stated_platform") == [{"what": "gpus", "count": 16, "product": "H20"}, {"what": "nodes", "count": 2}]
    assert of(fs, "reported_symptom") == [{"symptom": "below_expected", "component": "nccl", "words": "should be able to reach"}]


def test_versions_written_in_words():
    assert of(facts("ucx4770_ompi_drop.txt"), "stated_version") == [
        {"software": "openmpi", "version": "4.0.2"}, {"software": "hpcx", "version": "2.5"},
        {"software": "mofed", "version": "4.7-1.0.0.1"}]
    assert of(facts("pytorch117748_title.txt"), "stated_version") == [{"software": "nccl", "version": "2.19.3"}]
    assert of(facts("nccl330_hw_version_mpirun.txt"), "stated_version") == [{"software": "nccl", "version": "2.6.4-1"}]
    assert of(facts("nccl1244_comment_versions.txt"), "stated_version") == [
        {"software": "nccl", "version": "2.21.5"}, {"software": "cuda", "version": "12.3"}]


def test_nccl_banner_quoted_is_nccl_version_too():
    fs = facts("nccl278_version_settings.txt")
    assert of(fs, "nccl_version") == [{"version": "2.5.6", "cuda": "10.1"}]
    assert of(fs, "stated_setting") == [
        {"name": "NCCL_SOCKET_IFNAME", "value": "enP1p1s0f0,enP1p1s0f1"}, {"name": "NCCL_DEBUG", "value": "INFO"},
        {"name": "NCCL_SOCKET_NTHREADS", "value": "2"}, {"name": "NCCL_NSOCKS_PERTHREAD", "value": "2"}]


def test_platform_written_in_words():
    assert of(facts("nccltests196_hw_setup.txt"), "stated_platform") == [
        {"what": "gpus", "count": 8, "product": "H100 PCIe"}, {"what": "nvswitch", "present": False},
        {"what": "nics", "count": 1, "nic_gbps": 100.0}, {"what": "nodes", "count": 2}]
    assert of(facts("nccl812_dgx_a100_nics.txt"), "stated_platform") == [
        {"what": "system", "product": "DGX A100"}, {"what": "nics", "count": 8, "nic_gbps": 100.0}]
    assert of(facts("nccl330_hw_version_mpirun.txt"), "stated_platform") == [
        {"what": "gpus", "count": 8}, {"what": "nodes", "count": 2}, {"what": "nics", "product": "CX5", "nic_gbps": 25.0}]
    assert of(facts("dcgm184_pcie_violations.txt"), "stated_platform") == [{"what": "system", "product": "p5"}]


def test_figure_roles():
    assert [(f["value"], f["role"]) for f in of(facts("nccltests22_efa_125gbps.txt"), "stated_figure")] == [
        (125.0, "measured"), (100.0, "expected")]
    assert [(f["quantity"], f["role"]) for f in of(facts("nccltests196_hw_setup.txt"), "stated_figure")] == [("busbw", "compared")]
    assert of(facts("nccltests284_avg_busbw.txt"), "stated_figure") == [
        {"quantity": "busbw", "value": 0.176812, "unit": "GB/s", "gb_per_s": 0.176812, "role": "measured"}]


@pytest.mark.parametrize("name, symptom, component", [
    ("ucx4770_ompi_drop.txt", "slow", "network"),
    ("pytorch117748_title.txt", "slow", "nccl"),
    ("nccltests284_avg_busbw.txt", "slow", "nccl"),
    ("dcgm184_pcie_violations.txt", "violations", "pcie"),
])
def test_symptom_in_words(name, symptom, component):
    assert [(s["symptom"], s["component"]) for s in of(facts(name), "reported_symptom")] == [(symptom, component)]


def test_an_out_of_memory_claimed_beside_the_platform():
    # huggingface/trl#2688's title: the platform read, and the claim beside it (once lost: the line was read for its
    # platform alone)
    fs = facts("trl2688_title_oom_platform.txt")
    assert of(fs, "stated_platform") == [{"what": "gpus", "count": 8, "product": "H100"}]
    assert of(fs, "reported_symptom") == [{"symptom": "error", "component": "application", "words": "OOM"}]


@pytest.mark.parametrize("line", [
    # CONSTRUCTED near misses: a count of none, and PyTorch's own message (cuda_app reads it as the error it is)
    "Training on 8xH100 with no OOM, vLLM 0.7.2",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB on 8xH100",
])
def test_no_out_of_memory_claim(line):
    fs = ticket_prose.parse(Artefact(path="t.txt", text=line + "\n", node="n1")).facts
    assert of(fs, "reported_symptom") == []


@pytest.mark.parametrize("name", ["nccltests196_hw_setup.txt", "nccl946_tree_vs_ring.txt", "nccltests22_efa_125gbps.txt",
                                  "nccl812_dgx_a100_nics.txt"])
def test_no_symptom_where_none_is_stated(name):
    assert of(facts(name), "reported_symptom") == []


def test_a_line_that_is_not_prose_keeps_the_file_unclaimed():
    # a shell line and its output: what it says nobody read, so the file stays unrecognised (inconclusive)
    assert not ticket_prose.detect((FIX / "nccl330_shell_average_not_prose.txt").read_text())
    # a program's log lines read as sentences after their time stamp and level: output, not a ticket
    assert not ticket_prose.detect((FIX / "nbminer_log_lines_not_prose.txt").read_text())
    # a real capture that names the driver and CUDA versions among table rows is no prose
    for smi in sorted((ROOT / "fixtures/artefacts/nvidia_smi_table").glob("*.txt")):
        assert not ticket_prose.detect(smi.read_text()), smi.name


def test_a_journal_line_or_a_logrus_line_is_output_not_prose():
    # NVIDIA/gpu-operator#432: containerd's journal line, its month in the locale's lowercase (read raw, the label on),
    # and the same line once a journal label comes off (logrus's time="..." level=... first): a program's output,
    # left to the readers (unrecognised_text: an error nobody explains), not a reporter's claim
    line = ('nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox '
            'for &PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,Uid:02c7d4ad-db02-4145-846b-616a94416008,Namespace:'
            'gpu-operator,Attempt:2,} failed, error" error="failed to get sandbox runtime: no runtime for \\"nvidia\\" is configured"')
    for text in (line, line.split(": ", 1)[1]):
        assert not ticket_prose.detect(text + "\n"), text[:40]
        assert ticket_prose.reported_errors([text]) == set()


def test_prose_that_states_nothing_usable_says_why():
    # the device plugin's Xid told in a sentence: a reported Xid (facts/parsers/prose_codes.py), once a remark
    fs = facts("k8sdp1014_sentence_nothing_stated.txt")
    assert of(fs, "reported_fault_code") == [{"code_kind": "xid", "code": 94, "words": "XID 94", "named": "no GPU or node"}]
    assert of(fs, "reported_symptom") == []
    # no phrase read, but the sentence names the GPU: a remark, quoted (it may be the complaint)
    # CN 110 has had its GPU replaced, tested and has been put back into service.   (ai4d-iasc/trixie#38)
    text = "CN 110 has had its GPU replaced, tested and has been put back into service.\n"
    assert [(f.symptom, f.component) for f in ticket_prose.parse(Artefact(path="t.txt", text=text, node="n1")).facts] == [
        ("remark", "gpu")]
    # prose that names no diagnostic term, or only in a command typed, is not claimed (parse_pool: uninformative)
    assert not ticket_prose.detect("Thanks for the quick reply.\nWe will try this on Monday.\n")
    assert not ticket_prose.detect("I ran this:\n$ nvidia-smi\n")
    assert ticket_prose.nothing_stated(text) == "prose: no artefact, version, setting, figure or symptom stated"
    assert ticket_prose.nothing_stated((FIX / "nccl946_tree_vs_ring.txt").read_text()) is None
    assert ticket_prose.nothing_stated("") is None


def test_issue_template_with_links_and_versions_compared():
    # NVIDIA/nccl#1830: NCCL's issue template, attachment links, a working and a problematic set of versions
    fs = facts("nccl1830_issue_template_versions.txt")
    assert [(s["symptom"], s["words"]) for s in of(fs, "reported_symptom")][:2] == [("hang", "hang"), ("hang", "hangs")]
    assert [(f.evidence.line, f.software, f.version) for f in fs if f.kind == "stated_version" and f.evidence.line == 15] == [
        (15, "cuda", "12.4"), (15, "nccl", "2.20.5"), (15, "driver", "550.163.01")]
    # versions compared in a sentence are no NCCL banner: nothing says which one ran
    assert of(fs, "nccl_version") == []


def test_issue_form_answers_are_the_reporters():
    # NVIDIA/nccl#1992: NCCL's issue form answered with bare values (a version with no software named, a GPU model):
    # the field's label makes them the reporter's, so the file is prose and the version is NCCL's
    text = (FIX / "nccl1992_issue_form_answers.txt").read_text()
    assert ticket_prose.detect(text)
    fs = facts("nccl1992_issue_form_answers.txt")
    assert [(f.evidence.line, f.software, f.version) for f in fs if f.kind == "stated_version"] == [
        (11, "nccl", "2.28.9"), (11, "cuda", "12.8")]
    assert [(s["symptom"], s["words"]) for s in of(fs, "reported_symptom")] == [("error", "crash"), ("error", "crashed")]
    # the placeholder's form with NCCL's package revision (NVIDIA/nccl's "e.g. 2.27.1+cuda12.8"), CONSTRUCTED
    form = "### How is this issue impacting you?\n\nApplication hang\n\n### NCCL Version\n\nv2.21.5-1+cuda12.4\n"
    fs = ticket_prose.parse(Artefact(path="t.txt", text=form, node="n1")).facts
    assert [(f.software, f.version) for f in fs if f.kind == "stated_version"] == [("nccl", "2.21.5-1"), ("cuda", "12.4")]
    # a value under a field that asks for no version, platform or impact stays another program's line: not prose
    assert not ticket_prose.detect("### How is this issue impacting you?\n\nApplication crash\n\n### Error Message & Behavior\n\n"
                                   "cudaErrorIllegalAddress 0x7f3a\n")
    # a log line under a version field is still a program's output
    assert not ticket_prose.detect("### How is this issue impacting you?\n\nApplication crash\n\n### NCCL Version\n\n"
                                   "[2026-01-22 10:00:01] NCCL version 2.28.9\n")
    # a bare version under a field of no software named is read as no version
    fs = ticket_prose.parse(Artefact(path="t.txt", text="### How is this issue impacting you?\n\nApplication crash\n\n"
                                                          "### Driver Version\n\n580.65.06\n", node="n1")).facts
    assert [f for f in fs if f.kind == "stated_version"] == []


def test_instance_type_and_versions_compared():
    # NVIDIA/nccl#1298: two NCCL versions compared (neither is "the" version), the instance type, 8 x A10G
    fs = facts("nccl1298_title_and_description.txt")
    assert of(fs, "stated_platform")[:2] == [{"what": "gpus", "count": 8, "product": "A10G"}, {"what": "system", "product": "g5.48xlarge"}]
    assert [v["version"] for v in of(fs, "stated_version")] == ["2.20.5", "2.18.5"]
    assert [(s["symptom"], s["component"]) for s in of(fs, "reported_symptom")] == [("slow", "nccl"), ("slow", "nccl")]


HARVEST = ROOT / "fixtures/harvest/cases"


@pytest.mark.parametrize("case, line, component, words", [
    # aws/aws-k8s-tester#806: a concession ('even though') in the reporter's account of DCGM's failing sub-test
    ("2405-healthy-dcgm-diag-pcie-width-46-on-instance-with-reduced-lanes-by-design", 1, "pcie", "error"),
    # NVIDIA/DCGM#126: the first person, a sentence opened with 'But'
    ("2407-healthy-dcgmi-injected-double-bit-ecc-not-seen-by-nvidia-smi", 2, "application", "error"),
    # dsx-ai-factory/infra-controller#384: reported speech ('Users reported that ...') about a failing DCGM diagnostic
    ("2702-dcgm-diag-fails-os-error-2-cuda12-dcgm-packages-on-580-cuda13-driver", 3, "gpu", "error"),
])
def test_a_reporters_sentence_telling_of_an_error_is_a_reported_symptom(case, line, component, words):
    text = (HARVEST / case / "other-quoted-in-text.txt").read_text()
    assert ticket_prose.detect(text)
    fs = ticket_prose.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    told = [f for f in fs if f.kind == "reported_symptom" and f.symptom == "error"]
    assert [(f.evidence.line, f.component, f.words) for f in told] == [(line, component, words)]


@pytest.mark.parametrize("line", [
    # a program's own lines, whatever words surround the error: an exception's line, 'Error: ', ERROR, a signal
    "RuntimeError: I could not find the GPU you asked for, and the error was raised by the driver when it started",
    "Error: Failed to initialize NVML because the driver and the library I found on this host disagree",
    "[2024-03-01 10:00:00] I1025 worker: error while the collective was running and it never completed since then",
    "Segmentation fault (core dumped) but I never saw it happen before on this machine with the same job",
    # too short to be a reporter's sentence
    "But the sub-test fails with error 46",
    # no mark of the reporter: a program's message in words
    "The sub-test fails with DCGM_FR_PCIE_WIDTH (error 46) because the link width is below its minimum of 16 lanes",
    # a program's failure form that reports something is still the program's line
    "Error: the health check reported that GPU 3 failed the memory test and was removed from service",
    # I/O is no first person
    "blk_update_request: I/O error, dev nvme0n1, sector 123456 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 0",
])
def test_a_programs_line_is_no_reporters_sentence(line):
    assert not ticket_prose.reported_error(line)


def test_a_suspicion_and_a_story_are_the_reporters_sentences():
    # ormandj/sglang-glm53-flash-sm120#2: the first person elided, a failure told as a story and a suspicion
    text = (ROOT / "fixtures/artefacts/ticket_prose/sglangglm53_2_summary_suspicion_untold_first_person.md").read_text()
    lines = text.split("\n")
    assert [n for n in ticket_prose.reported_errors(lines)] == [5]
    from stethoscope.facts.parsers import unrecognised_text
    art = Artefact(path="t.txt", text=text, node="n1")
    art.normalise()
    assert [f for f in unrecognised_text.parse(art).facts if f.kind == "text_error_line"] == []
    # CONSTRUCTED near misses: a program's line that says something appears (its own failure form), a story's verb
    # without its time
    assert not ticket_prose.reported_error(
        "ERROR: An NVIDIA kernel module 'nvidia-drm' appears to already be loaded in your kernel, so the installer failed.")
    assert not ticket_prose.reported_error("The failure began because the NCCL communicator could not be created on rank 3")
    # jax-ml/jax#4950: what the reporter did, told as a story ("After some debugging, ..."); CONSTRUCTED near miss: a
    # program's "after N retries" is no story's opener
    assert ticket_prose.reported_error(
        "After some debugging, enabling NCCL_DEBUG=INFO, it appears that the NCCL init is hitting an OOM condition. It only "
        "logs the OOM as a warning, and eventually propagates as a non-specific error. See log dump below.")
    assert not ticket_prose.reported_error("After 5 retries the connection to the NCCL bootstrap root failed with error 111 on rank 3")


def test_environment_lists_and_bold_keys_are_prose():
    # NVIDIA/nccl#384: "PCIE: Gen3 16X" among the environment fields; the figures and settings read
    fs = facts("nccl384_shm_figures_env_fields.txt")
    assert [f["value"] for f in of(fs, "stated_figure")] == [3.9, 3.17, 3.17, 10.31, 9.62]
    assert of(fs, "stated_version") == [{"software": "nccl", "version": "2.4.8"}, {"software": "cuda", "version": "10.0"}]
    assert [s["name"] for s in of(fs, "stated_setting")] == ["NCCL_MAX_NCHANNELS", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"]
    # NVIDIA/DCGM#238: "- **Driver Version:** 570.153.02", the key in markdown bold
    assert of(facts("dcgm238_markdown_bold_versions.txt"), "stated_version") == [
        {"software": "driver", "version": "570.153.02"}, {"software": "cuda", "version": "12.8"},
        {"software": "dcgm", "version": "4.2.3"}]


def test_driver_package_titles_and_outcomes():
    # NVIDIA/open-gpu-kernel-modules#1030: "nvidia-open 595.71.05-5", "--- machine A ---", "driver: Works" / ": Crashes"
    fs = facts("ogkm1030_nvidia_open_works_crashes.txt")
    assert of(fs, "stated_version") == [{"software": "driver_open", "version": "595.71.05"}]
    assert [(s["symptom"], s["words"]) for s in of(fs, "reported_symptom")] == [("error", "Crashes")]
    # a tool's capital verdicts are no reporter's outcome
    assert not ticket_prose.detect("We ran the checks on the node today.\nMemory test: PASS\nNCCL 2.21.5\n")


@pytest.mark.parametrize("name, symptom, words", [
    ("vllm4238_gpu_underutilized.txt", "slow", "underutilized"),
    ("trixie38_gpu_not_working.txt", "error", "not working"),
    # NVIDIA/nccl#1914's title: "torchrun segfaults with exit code -11" (the verb; the noun a shell or the kernel prints is not)
    ("nccl1914_title_torchrun_segfaults.txt", "error", "segfaults"),
])
def test_symptoms_in_other_words(name, symptom, words):
    assert [(s["symptom"], s["words"]) for s in of(facts(name), "reported_symptom")] == [(symptom, words)]


def test_a_segfault_printed_is_no_claim():
    assert not ticket_prose.CLAIM_WORDS.search("Segmentation fault (core dumped)")
    assert not ticket_prose.CLAIM_WORDS.search("python[3144]: segfault at 8 ip 00007f3a2c1b4e2f sp 00007ffd error 4 in libnccl.so.2")


def test_commands_typed_in_a_ticket_are_prose():
    # NVIDIA/nccl#76: "cd nccl", "make -j 8 test", "rm -r build/lib" typed without a prompt, "I followed " wrapped
    fs = facts("nccl76_recipe_commands_typed.txt")
    assert of(fs, "stated_figure") == [{"quantity": "busbw", "value": 10.0, "unit": "GB/s", "gb_per_s": 10.0, "role": "compared"}]
    # a tool's own line after its name ("make: ***", "cat: <file>: ...") is output, not a command typed
    assert not ticket_prose.detect("I built NCCL 2.18.3 from source.\nmake: *** [Makefile:25: src.build] Error 2\n")


@pytest.mark.parametrize("title, claim", [
    # a pull request's subject naming no fault: what the change does (NVIDIA/gpu-operator#2168)
    ("Collect events and upgrade state in must-gather.sh", False),
    # the verb's past, as a pull request's title may have it (mej/nhc#90)
    ("Added check for Infiniband PCIe link width and speed.", False),
    # a change's subject that names a fault met stays the reporter's claim (local-inference-lab/rtx6kpro#88)
    ("Document PCIe link speed flapping on c-payne switches", True),
    # not a change's subject: a remark about the system (nokyan/resources#512)
    ("GPU link info should consider upstream PCIe switches", True),
])
def test_a_change_subject_naming_no_fault_is_no_claim(title, claim):
    """A change's subject (an imperative verb first) is read as a request for a feature is: no remark about the
    system unless it names a fault; ticket_prose then leaves it to the uninformative files."""
    assert ticket_prose.feature_request(title) is not claim
    assert bool(ticket_prose.remarks([title])) is claim


def test_a_programs_failure_line_is_no_remark():
    """A program's failure line pasted alone (three words in a row like a sentence, a diagnostic term in it) is what the
    program printed, not the reporter's remark: a remark would cite the line, count its error as judged and leave the
    verdict inconclusive (awslabs/amazon-eks-ami#2062, wild sweep rM4: containerd's task failure, in inline code)."""
    from stethoscope.facts.parsers import unrecognised_text

    line = ("Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
            "failed: unable to start container process: error during container init: error running hook #0: error running "
            "hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy' nvidia-container-cli: error parsing IMEX "
            "info: unsupported IMEX channel value: all: unknown")
    for text in (line, f"`{line}`"):
        assert ticket_prose.printed_failure(text)
        assert ticket_prose.remarks([text]) == []
        art = Artefact(path="error.txt", text=text + "\n", node="n1")
        assert [f.kind for f in unrecognised_text.parse(art).facts] == ["text_error_line"]
    # must not: the reporter's sentences stay remarks (ai4d-iasc/trixie#38; a sentence that mentions an error class
    # in words, no program's form), and a line that only quotes code inline within a sentence is no program's line
    for text in ("CN 110 has had its GPU replaced, tested and has been put back into service.",
                 "After the driver upgrade the `nvidia-smi` output looks different on the GPU nodes."):
        assert not ticket_prose.printed_failure(text)
        assert ticket_prose.remarks([text]) == [1]


@pytest.mark.parametrize("title, remark, error", [
    # an error word in the title: unrecognised_text's claim of an error alone, no remark beside it (pytorch/pytorch#163546)
    ("Better nccl timeout handling", False, True),
    # no error word: the remark alone, which unrecognised_text does not read (local-inference-lab/rtx6kpro#88)
    ("Document PCIe link speed flapping on c-payne switches", True, False),
])
def test_a_title_line_is_one_claim(title, remark, error):
    """The two fallback readers read a title line once between them: the reporter's claim of an error (unrecognised_text's
    reporter_summary) where the line has an error word, the stronger reading; else ticket_prose's remark."""
    from stethoscope.facts.parsers import unrecognised_text

    art = Artefact(path="title.txt", text=title + "\n", node="n1")
    read = [(f.symptom, f.words) for p in (ticket_prose, unrecognised_text) if p.detect(art.text)
            for f in p.parse(art).facts if f.kind == "reported_symptom"]
    assert read == [("remark", title)] * remark + [("error", title)] * error


# --- a reporter's markdown table and before/after lines (round rD9, harvest 3007) ----------------------------------

def test_a_reporters_markdown_table_and_before_after_lines_are_measurements():
    fs = facts("geti5958_measured_numbers_table.txt")
    assert of(fs, "stated_measurement") == [
        {"form": "table_row", "what": "data_time per batch", "values": "CPU training: ~0.002 s; GPU training: ~0.217 s"},
        {"form": "labelled_line", "what": "Before", "values": "3 it /s, data_time 0.217"},
        {"form": "labelled_line", "what": "Now", "values": "13 it / s data_time 0.003-0.005"}]
    assert [f.evidence.line for f in fs if f.kind == "stated_measurement"] == [3, 5, 6]
    assert not of(fs, "reported_symptom")  # figures side by side are no complaint


@pytest.mark.parametrize("name, rows, first", [
    ("mscclpp210_allreduce_latency_table.txt", 16, {"form": "table_row", "what": "n_ctx 1", "values": "size: 24.0KiB; custom (us): 15.6"}),
    ("sglang22734_allreduce_latency_table.txt", 10, {
        "form": "table_row", "what": "msg_size 2.0 KiB",
        "values": "torch eager: 19.77; msccl eager: 11.70; msccl graph: **5.86**; pynccl graph: 16.84"}),
])
def test_tables_of_collective_latencies_are_read_row_by_row(name, rows, first):
    got = of(facts(name), "stated_measurement")
    assert len(got) == rows and got[0] == first


@pytest.mark.parametrize("path", [
    "fixtures/artefacts/nvidia_smi_table/ogkm446_r525_a40_gpu4_err.txt",
    "fixtures/artefacts/nvidia_smi_table/toolkit394_r550_rtx3060.txt",
    "fixtures/artefacts/dcgmi_diag/dcgm198_r2_dcgm337_metadata_excerpt.txt",
    "fixtures/artefacts/fabric_manager_log/fm_unit_failed_geforce_gpuoperator356_console_paste.txt",
])
def test_a_tools_box_of_dashes_and_plus_signs_is_no_markdown_table(path):
    lines = (ROOT / path).read_text().split("\n")
    assert ticket_prose.tables(lines) == {} and ticket_prose.measurements(lines) == {}


def test_a_table_with_a_failure_row_is_left_to_the_error_reader():
    """3007's table with dcgmi diag's real result cell of a failed test planted as a row (as fragment_audit --plant
    does): not the reporter's measurements, the failure is unrecognised_text's."""
    from stethoscope.facts.parsers import unrecognised_text

    table = (FIX / "geti5958_measured_numbers_table.txt").read_text().split("\n")[:3]
    text = "\n".join(table + ["|                           | Fail - GPU: 0                                  |"]) + "\n"
    assert ticket_prose.tables(text.split("\n")) == {}
    assert not ticket_prose.detect(text)
    assert unrecognised_text.detect(text)


def test_a_file_of_a_reporters_table_is_read_and_inconclusive(ruleset, tmp_path):
    from stethoscope.engine.pipeline import diagnose_bundle

    (tmp_path / "measured.txt").write_text((FIX / "geti5958_measured_numbers_table.txt").read_text())
    report = diagnose_bundle(tmp_path, ruleset)
    assert report.verdict == "inconclusive"
    assert not report.coverage.unrecognised and [c.kind for c in report.coverage.files] == ["ticket_prose"]
    assert not [f for f in report.findings if f.severity in ("warning", "critical", "fatal")]


def test_a_table_whose_error_words_are_a_count_of_none_is_the_reporters():
    """ashalliants/ninfer-3090#76: a cell quoting compute-sanitizer's "ERROR SUMMARY: 0 errors" tells of no failure;
    the table is the reporter's (read, inconclusive), not an unexplained error."""
    from stethoscope.facts.parsers import unrecognised_text

    text = (FIX / "ninfer76_sanitizer_zero_errors_table.txt").read_text()
    lines = text.split("\n")
    assert sorted(ticket_prose.tables(lines)) == [1, 2, 3, 4]
    assert [f["what"] for f in of(facts("ninfer76_sanitizer_zero_errors_table.txt"), "stated_measurement")] == [
        "copy `CUDA/v12.4/compute-sanitizer/`", "copy `CUDA/v12.8/compute-sanitizer/`"]
    assert not unrecognised_text.detect(text)


def test_faults_told_in_words_are_a_claim():
    # round rG4's probe: harvest 2701's paragraph (NVIDIA/open-gpu-kernel-modules#1370, verbatim) pasted beside a
    # healthy nvidia-smi table read HEALTHY: "Rolling back ... stopped the faults", "a deterministic single-machine
    # reproduction that faults within 2–3 minutes" tell of faults met, as "crashes" does; a claim (inconclusive)
    [path] = (ROOT / "fixtures/harvest/cases").glob("2701-*/other-quoted-in-text.txt")
    line = next(ln for ln in path.read_text().splitlines() if "stopped the faults" in ln)
    fs = ticket_prose.parse(Artefact(path="p.txt", text=line + "\n", node="n1")).facts
    assert [(s["symptom"], s["words"]) for s in of(fs, "reported_symptom")] == [("error", "faults")]
    # must not (CONSTRUCTED near misses): a count of none, a process's page faults, fault tolerance
    error = dict(ticket_prose._SYMPTOMS)["error"]
    for said in ("We saw no faults on 580.159.03 across the fleet.", "zero faults in the same window",
                 "Minor (reclaiming a frame) page faults: 38451", "the page-faulting path of UVM",
                 "The trainer has fault tolerance enabled."):
        assert error.search(said) is None, said


def test_a_kernel_record_is_no_reporters_remark():
    """A kernel log no reader parsed a line of (a healthy amdgpu node's talosctl dmesg, siderolabs/pkgs#792; a bare NVRM
    notice, harvest 1711) is what the kernel wrote: no "the reporter says" remark of its lines (round rQ5, issue 11);
    a reporter's sentence beside it still is one."""
    text = (ROOT / "fixtures/artefacts/kernel_log/pkgs792_talosctl_dmesg_amdgpu_healthy.log").read_text()
    assert not [f for f in ticket_prose.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts
                if f.kind == "reported_symptom"]
    nvrm = ("NVRM: Persistence mode is deprecated and will be removed in a future release. "
            "Please use nvidia-persistenced instead.\n")
    assert not ticket_prose.parse(Artefact(path="dmesg.log", text=nvrm, node="n1")).facts
    # CONSTRUCTED: the same records under a reporter's sentence that names the GPU: the sentence alone is the remark
    told = "After the reboot the GPU was visible again.\n" + text
    said = [f for f in ticket_prose.parse(Artefact(path="ticket.txt", text=told, node="n1")).facts
            if f.kind == "reported_symptom"]
    assert [(f.symptom, f.evidence.line) for f in said] == [("remark", 1)]


# A reporter's sentence that points at an error shown elsewhere names no error of its own: alone it is their claim
# (reported_symptom, the verdict inconclusive), never an error line nobody explains (round rS2)
@pytest.mark.parametrize("name, line", [
    ("mdb66_have_this_error_screenshot.txt", 1),  # TomMelt/mdb#66: "I have this error:", the error a screenshot
    ("easyr1_20_report_above_error.txt", 2),  # etheneyur/EasyR1#20: "will report above error", a screenshot above
])
def test_a_sentence_pointing_at_an_error_elsewhere_is_a_claim(name, line):
    from stethoscope.facts.parsers import unrecognised_text
    text = (FIX / name).read_text()
    fs = unrecognised_text.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert [(f.kind, f.evidence.line) for f in fs] == [("reported_symptom", line)]


def test_a_sentence_pointing_at_the_error_below_it_makes_no_claim():
    # ray-project/ray#22764: "This simple code can't run, and throw this error:" above the traceback it points at (cut):
    # the traceback's line says what failed, the sentence is neither an error line nor a claim of its own
    from pathlib import Path
    from stethoscope.facts.parsers import unrecognised_text
    path = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_worker_death/ray22764_collective_ncclerror_wrapper_cut.txt"
    fs = unrecognised_text.parse(Artefact(path="t.txt", text=path.read_text(), node="n1")).facts
    assert 1 not in {f.evidence.line for f in fs} and not [f for f in fs if f.kind == "reported_symptom"]
    assert [f.kind for f in fs if f.kind == "text_error_line"]


@pytest.mark.parametrize("line, pointing", [
    # CONSTRUCTED (reported_error's ten words, too few here): the first person, a reference to an error shown elsewhere
    ("I got this error when running training.", True),
    ("Got this error when running on 2 nodes.", True),
    ("I got the following error:", True),
    ("I encountered an error.", True),
    ("I retrained again, put the GPU[1,3] and batch_size:2, and then prompted such an error.", True),
    # the error named: what the program printed, quoted or after a colon, or a failure form
    ("I got this error: CUDA error: out of memory", False),
    ("I got this error: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, unhandled system error", False),
    ('I got this error "NCCL WARN Call to ibv_create_cq failed"', False),
    ("I got this error and then Segmentation fault (core dumped)", False),
    # a program's own lines: no verb of meeting the error, or another error word beside the pointer
    ("An error occurred while the collective was running", False),
    ("This error may indicate that your module has parameters that were not used in producing loss.", False),
    ("Error when running multi-node training", False),
    ("I got this error and the job failed with a timeout", False),
    ("[2024-03-01 10:00:00] got this error from worker 3", False),
])
def test_points_at_error(line, pointing):
    assert ticket_prose.points_at_error(line) is pointing

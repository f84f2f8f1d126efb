"""nvidia_smi_util parser: real dmon and query-gpu captures, composed stall series, malformed rows."""
from pathlib import Path

from stethoscope.facts.parsers import mpstat, nvidia_smi_util
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_smi_util"


def _parse(name: str):
    return nvidia_smi_util.parse(Artefact(path=name, text=(FIX / name).read_text(), node="n1"))


def test_real_idle_dmon_two_gpus_by_index():
    r = _parse("dmon_idle.txt")
    assert r.errors == [] and r.lines_used == 8
    assert [(f.index, f.pci_bus_id, f.samples, f.dips, f.mean_pct) for f in r.facts] == [(0, None, 3, 1, 0.0), (1, None, 3, 1, 0.0)]


def test_real_query_gpu_csv_names_the_bus_id():
    r = _parse("query-gpu.csv")
    series = [f for f in r.facts if f.kind == "gpu_util_series"]
    assert [(f.index, f.pci_bus_id, f.source) for f in series] == [(0, "0000:00:06.0", "query-gpu"), (1, "0000:00:07.0", "query-gpu")]


def test_real_query_without_index_or_bus_id_is_recognised_not_read():
    # bpytop#26: two GPUs' rows with neither index nor pci.bus_id: no row can be tied to a GPU, and
    # the header alone reads nothing (it made a bundle HEALTHY with no fact)
    text = (FIX / "bpytop26_query_gpu_csv_no_index_2gpus.txt").read_text()
    assert nvidia_smi_util.detect(text)
    r = _parse("bpytop26_query_gpu_csv_no_index_2gpus.txt")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)


def test_dmon_header_escaped_in_a_markdown_quote_is_read():
    # mozilla/DeepSpeech#178: dmon -s pucvmet (2016 columns: temp, pviol, tviol, sbecc, ...) pasted in a markdown quote,
    # its header's "#" escaped as "\#"; the quote's "> " goes before any reader
    text = (FIX / "deepspeech178_dmon_pucvmet_markdown_quoted.txt").read_text()
    art = Artefact(path="dmon.txt", text=text, node="n1")
    art.normalise()
    assert art.text.startswith("\\# gpu") and nvidia_smi_util.detect(art.text)
    r = nvidia_smi_util.parse(art)
    assert r.errors == [] and r.lines_used == 6
    assert [(f.index, f.samples, f.mean_pct, f.source) for f in r.facts] == [
        (0, 1, 25.0, "dmon"), (1, 1, 18.0, "dmon"), (2, 1, 24.0, "dmon"), (3, 1, 18.0, "dmon")]
    # a backslash before anything else is no header
    assert not nvidia_smi_util.detect("\\ gpu   pwr  temp    sm   mem\n    0   111    83    25     7\n")


def test_stall_series_counts_dips_and_busy_mean():
    (f,) = _parse("dmon_input_stall.txt").facts
    assert (f.samples, f.dips, f.zero_fraction, f.busy_mean_pct) == (18, 3, 0.389, 96.9)
    assert f.evidence.line == 18 and f.evidence.text.split()[4] == "0"  # the last zero sample


def test_bad_value_is_a_parse_error_and_other_text_is_not_claimed():
    text = "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n    0    148     36     35     xx      0\n"
    r = nvidia_smi_util.parse(Artefact(path="d.txt", text=text, node="n1"))
    assert [(e.line, "not a number" in e.message) for e in r.errors] == [(3, True)]
    assert not nvidia_smi_util.detect((FIX.parent / "mpstat" / "mpstat_all_busy.txt").read_text())
    assert not mpstat.detect((FIX / "dmon_idle.txt").read_text())


def test_real_query_gpu_csv_every_field_camel_case_names_detected():
    """utkuozdemir/nvidia_gpu_exporter's samples/sample-output.csv (d8cb171): `--query-gpu=` every field
    of driver 471.11 (RTX 2080 SUPER, Windows), index and pci.bus_id among them. Its header holds
    nvidia-smi's camel-cased names (encoder.stats.sessionCount, ...averageFps): detect() missed it."""
    name = "nvidia_gpu_exporter_sample_all_fields_rtx2080s.csv"
    text = (FIX / name).read_text()
    assert nvidia_smi_util.detect(text[:4096])
    r = _parse(name)
    assert r.errors == []
    kinds = {f.kind: f for f in r.facts}
    assert (kinds["gpu_util_series"].index, kinds["gpu_util_series"].pci_bus_id, kinds["gpu_util_series"].mean_pct) == (0, "0000:0c:00.0", 2.0)
    assert (kinds["gpu_info"].name, kinds["gpu_info"].driver_version) == ("NVIDIA GeForce RTX 2080 SUPER", "471.11")
    active = {f.reason for f in r.facts if f.kind == "gpu_clock_reason" and f.active}
    assert active == {"gpu_idle"}

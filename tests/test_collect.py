"""steth collect runs real commands: what ran, what was missing, failed or timed out is all in
the manifest, and the bundle it writes reads back with steth diagnose."""
import json
from pathlib import Path
import tarfile

from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.facts.collect import collect, load_commands

COMMANDS = """
source: test
commands:
  - {name: uname, argv: [uname, -a], file: uname.txt, timeout: 10}
  - {name: absent, argv: [steth-no-such-program-xyz], file: absent.txt}
  - {name: fails, argv: [sh, -c, "echo partial; echo 'NVIDIA-SMI has failed because it could not communicate' >&2; exit 9"], file: fails.txt}
  - {name: slow, argv: [sleep, "5"], file: slow.txt, timeout: 0.5}
  - {name: kernel_log, argv: [steth-no-such-dmesg], file: dmesg.txt, fallback: [cat, KERNEL_LOG]}
"""
KERNEL_LOG = str(Path(__file__).resolve().parent.parent / "fixtures" / "artefacts" / "kernel_log" / "dmesg_xid79_sxid.log")


def test_outcomes_are_recorded_not_dropped(tmp_path):
    spec = tmp_path / "cmds.yaml"
    spec.write_text(COMMANDS.replace("KERNEL_LOG", KERNEL_LOG))
    outcomes = {o.name: o for o in collect(tmp_path / "out", "node9", load_commands(spec))}
    assert outcomes["uname"].status == "ok" and (tmp_path / "out/node9/uname.txt").read_text().strip()
    assert outcomes["absent"].status == "missing" and outcomes["absent"].file is None
    assert outcomes["fails"].status == "failed" and outcomes["fails"].returncode == 9
    assert "could not communicate" in outcomes["fails"].note and outcomes["fails"].file == "fails.txt"
    assert outcomes["slow"].status == "timeout" and outcomes["slow"].seconds < 3
    assert outcomes["kernel_log"].status == "ok" and "used cat" in outcomes["kernel_log"].note
    manifest = json.loads((tmp_path / "out/node9/steth-collect.json").read_text())
    assert [c["name"] for c in manifest["commands"]] == ["uname", "absent", "fails", "slow", "kernel_log"]


def test_collected_bundle_diagnoses_and_archives(tmp_path):
    spec = tmp_path / "cmds.yaml"
    spec.write_text(COMMANDS.replace("KERNEL_LOG", KERNEL_LOG))
    res = CliRunner().invoke(app, ["collect", "--out", str(tmp_path / "b"), "--node", "node9", "--commands", str(spec),
                                   "--archive", str(tmp_path / "b.tgz")])
    assert res.exit_code == 0, res.output
    with tarfile.open(tmp_path / "b.tgz") as tar:
        assert "b/node9/steth-collect.json" in tar.getnames()
    for target in (tmp_path / "b", tmp_path / "b.tgz"):
        report = diagnose_bundle(target)
        assert report.findings[0].cause == "gpu_fell_off_bus" and report.findings[0].entity.node == "node9"
        kinds = {c.path: c.kind for c in report.coverage.files}
        assert kinds["node9/steth-collect.json"] == "steth_collect"


def test_bad_command_list_exits_3(tmp_path):
    spec = tmp_path / "cmds.yaml"
    spec.write_text("commands:\n  - {name: x, argv: [], file: ../escape}\n")
    res = CliRunner().invoke(app, ["collect", "--out", str(tmp_path / "o"), "--commands", str(spec)])
    assert res.exit_code == 3 and "not a valid command list" in res.output


def test_shipped_command_list_is_valid_and_names_parsed_kinds():
    cmds = load_commands()
    names = {c.name for c in cmds.commands}
    assert {"nvidia_smi_q", "nvidia_smi_q_xml", "kernel_log", "ibstat", "perfquery"} <= names
    assert len({c.file for c in cmds.commands}) == len(cmds.commands)


def test_real_collect_bundle_from_an_h200_host_reads_back_cleanly():
    """fixtures/bundles/device-h200-collect: steth collect run on a real H200 host."""
    bundle = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "device-h200-collect" / "bundle"
    report = diagnose_bundle(bundle)
    assert report.verdict == "healthy" and not report.coverage.errors
    kinds = {c.path: c.kind for c in report.coverage.files}
    assert kinds["vm/nvidia-smi-q.txt"] == "nvidia_smi_q" and kinds["vm/nvidia-smi-q.xml"] == "nvidia_smi_xml"
    assert kinds["vm/dmesg.txt"] == "kernel_log" and "nccl_log" in kinds["vm/torch-allreduce.log"]
    manifest = json.loads((bundle / "vm" / "steth-collect.json").read_text())
    status = {c["name"]: c["status"] for c in manifest["commands"]}
    assert status["nvidia_smi_q"] == "ok" and status["ibstat"] == "missing"

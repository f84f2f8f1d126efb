#!/usr/bin/env python3
"""Never a false HEALTHY: real failure lines pasted beside a healthy artefact, under the prefixes people paste with.

Round rF5 (issue 11, bench/wild_sweep_rF5.md). The evidence lines of the harvest's faulty labels
(fixtures/harvest/cases/*/label.yaml ``evidence``: real lines, each a case's failure) are pasted, up to 3 a
case, beside a healthy artefact (BASES: an nvidia-smi table, nccl-tests results, an nvidia-smi -q section,
an ibstat; each read alone first), under each of PREFIXES (raw, journald with a program's tag and with the
kernel's, ``kubectl logs --prefix``, ``kubectl logs --timestamps``, docker compose, ``> `` quoting, a code
fence, a bracketed time, four blanks), in the same file below the artefact and in a file of their own. Each
bundle is diagnosed in-process (``jobs=1``); every HEALTHY is printed (the case, its category, the prefix,
the base, the layout, the findings) and the verdict counts last. A HEALTHY is a candidate for a person to
judge: a line the readers drop or claim and skip (a form not read), or a line that shows no fault alone.

The kernel's tag (``journald_kernel``) is CONSTRUCTED over whatever lines a case has: a user-space line (Slurm's
sinfo, a logfmt record, a reporter's sentence, an nvidia-smi row) never reaches the journal under the kernel's tag,
and the kernel log's reader owns every ``kernel:`` line. A HEALTHY under that tag where none of the planted lines is
a kernel line (``kernel_line``: a kmsg/dmesg stamp, or a message head of the kernel's own, an NVIDIA kernel module's
``NVRM:`` / ``nvidia-...:`` or a device's dev_printk ``<driver> <PCI address>:``) is the probe's artefact, not a miss
of the tool: it is printed as ``ARTEFACT`` and counted apart (``healthy_kernel_tag_artefact``), so ``healthy`` counts
only real misses (round rK3). A case with one kernel line among its lines is judged as any other.

Prefixes people paste that the probe plants besides (round rK3): Loki's ``logcli query`` default output (an RFC 3339
time, the stream's labels, the line), a GitHub Actions log as downloaded (each line after the runner's time in
100 ns, ``Z``) and as ``gh run view --log`` prints it (job and step names, a tab each, before that time), and the
runner's ``##[error]`` annotation of a step's line.

Prefixes planted since round rL3: pdsh / clush's host label (pdsh src/pdsh/dsh.c ``out("%S: %s", a->host, buf)``) on
one host's lines and on two hosts' lines interleaved, a ``journalctl -o json`` record per line (systemd's JSON export:
``__CURSOR``, ``__REALTIME_TIMESTAMP``, ``__MONOTONIC_TIMESTAMP``, ``_BOOT_ID`` first, the entry's fields, the line in
``MESSAGE``, JSON-escaped), and Filebeat's ECS document per line (``@timestamp``, ``log.offset`` / ``log.file.path``,
the line in ``message``), as a log shipper's or Elasticsearch's export holds them. Since round rL8: Fluent Bit's json_lines record
(``date``, the line in ``log``), Vector's log event (``timestamp``, the line in ``message``) and a log search's CSV
export (a header naming ``@timestamp``, the line a quoted cell): no reader reads these records; a failure inside them
must still leave the verdict inconclusive at least (engine/foreign_runs.py ``records_report``); since round rM2 they are
read as their lines (facts/lines.py). Since round rM2: Fluent Bit's record with the kubernetes filter's metadata, Vector's
kubernetes_logs record, LogCLI's jsonl line and journalctl -o json-pretty's record over several lines. ``--prefixes rK3`` / ``rL3`` plant
one round's additions (``new``: the latest round's), ``all`` every prefix. Each diagnosis under a prefix other than
``raw`` is compared with the same lines planted bare (``raw``, same base, same layout): ``read_as_raw`` counts those
whose verdict and serious findings (critical / warning rules) are the bare lines' own, ``read_otherwise`` the rest (a
form not read, or read less: ``--show-differs`` prints each).

    .venv/bin/python bench/plant_prefix_probe.py                 # 40 cases (seed 7), all bases
    .venv/bin/python bench/plant_prefix_probe.py --cases 10 --bases smi_table,nccl_tests
    .venv/bin/python bench/plant_prefix_probe.py --prefixes rL3 --show-differs

A benchmark script (it prints what it finds), not a test; about 0.15 s a diagnosis on 2 cores.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import re
import shutil
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BASES = {
    "smi_table": ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi.txt",
    "nccl_tests": ROOT / "fixtures/observations/h200-x2/nccl-tests/allreduce_healthy_g2.txt",
    "ibstat": ROOT / "fixtures/artefacts/ibstat/l2fwd_nv6_roce_100.txt",  # (INCONCLUSIVE alone: a RoCE port)
    "smi_q": ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi-q-ECC.txt",
}
PREFIXES = {
    "raw": lambda ln, i: ln,
    "journald": lambda ln, i: f"Dec 05 11:22:{i:02d} gpu-node-7 python3[48211]: {ln}",
    "journald_kernel": lambda ln, i: f"Dec 05 11:22:{i:02d} gpu-node-7 kernel: {ln}",  # (CONSTRUCTED: any line under the kernel's tag)
    "kubectl_prefix": lambda ln, i: f"[pod/trainer-0/pytorch] {ln}",
    "kubectl_ts": lambda ln, i: f"2026-12-05T11:22:{i:02d}.123456789Z {ln}",
    "docker_compose": lambda ln, i: f"trainer-1  | {ln}",
    "quote": lambda ln, i: f"> {ln}",
    "fence": None,  # the lines between ``` fences
    "bracket_ts": lambda ln, i: f"[2026-12-05 11:22:{i:02d}] {ln}",
    "indent4": lambda ln, i: f"    {ln}",
    # logcli query's default output (grafana/loki pkg/logcli/output/default.go: fmt.Sprintf("%s %s %s", timestamp in
    # time.RFC3339, padLabel(labels, maxLabelsLen), strings.TrimSpace(line)); docs/logcli.md's sample:
    # 2018-06-25T12:52:09Z {instance="consul-8576459955-pl75w"} 2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete
    "logcli": lambda ln, i: f'2026-12-05T11:22:{i:02d}Z {{app="trainer", pod="trainer-0"}} {ln.strip()}',
    # a GitHub Actions job log as downloaded (the runner's time in 100 ns before every line):
    # 2026-07-28T16:19:59.9229909Z  ELIFECYCLE  Command failed with exit code 2.
    "gha_log": lambda ln, i: f"2026-12-05T11:22:{i:02d}.1234567Z {ln}",
    # gh run view --log: job, step, then the same line, tab-separated:
    # quality (node 24)\tRun npm test\t2026-08-14T05:58:44.3460626Z ##[group]Run npm test
    "gh_run_log": lambda ln, i: f"train (gpu)\tRun python train.py\t2026-12-05T11:22:{i:02d}.1234567Z {ln}",
    # the runner's error annotation on a step's line (::error:: written by the step):
    # 2026-06-30T11:36:02.1044260Z ##[error]Error: failed to run script step: Error: command terminated with ...
    "gha_error": lambda ln, i: f"2026-12-05T11:22:{i:02d}.1234567Z ##[error]{ln.strip()}",
    # pdsh / clush, one host (pdsh src/pdsh/dsh.c rsh(): out("%S: %s", a->host, buf)), and two hosts interleaved as
    # their lines arrive (the pdsh -w gpu-node[07-08] form facts/lines.line_hosts reads apart):
    # gpu-node01: [   12.345678] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.
    "pdsh": lambda ln, i: f"gpu-node07: {ln}",
    "pdsh_hosts": lambda ln, i: f"gpu-node{7 + i % 2:02d}: {ln}",
    # journalctl -o json: one JSON object a line, the cursor, the two clocks and the boot first, the line in MESSAGE
    # (a real record, kept in the search index as file 26140624753, a Rust test of an sshd log reader):
    # {"__REALTIME_TIMESTAMP":"1655046591494032","_SOURCE_REALTIME_TIMESTAMP":"1655046591493997","__CURSOR":"s=5726468a2162439e9e18a191202b1a7b;i=28e9c;b=e8ee305cff53408da12356a3876792ba;m=370bd562e;t=5e141902c3790;x=ec3c36f10424aa47","__MONOTONIC_TIMESTAMP":"14776358446","MESSAGE":"Invalid user ark from 43.154.144.211 port 42608","_BOOT_ID":"e8ee305cff53408da12356a3876792ba"}
    "journal_json": lambda ln, i: (
        '{"__CURSOR":"s=5726468a2162439e9e18a191202b1a7b;i=28e9c;b=e8ee305cff53408da12356a3876792ba;m=370bd562e;'
        't=5e141902c3790;x=ec3c36f10424aa47","__REALTIME_TIMESTAMP":"17649336%02d494032","__MONOTONIC_TIMESTAMP":'
        '"14776358446","_BOOT_ID":"e8ee305cff53408da12356a3876792ba","_TRANSPORT":"stdout","PRIORITY":"6",'
        '"SYSLOG_IDENTIFIER":"python3","_PID":"48211","_HOSTNAME":"gpu-node-7","MESSAGE":%s}' % (i, json.dumps(ln))),
    # Filebeat's ECS document (as an Elasticsearch export or a bulk request holds it; a real one, kept in the search
    # index as file 7263426428, VictoriaLogs' Elasticsearch bulk test):
    # {"@timestamp":"2023-06-06T04:48:11.735Z","log":{"offset":71770,"file":{"path":"/var/log/auth.log"}},"message":"foobar"}
    "filebeat_json": lambda ln, i: ('{"@timestamp":"2026-12-05T11:22:%02d.735Z","log":{"offset":%d,"file":{"path":'
                                    '"/var/log/trainer.log"}},"message":%s}' % (i, 71770 + 200 * i, json.dumps(ln))),
    # Fluent Bit's stdout / file output, format json_lines (docs.fluentbit.io pipeline/outputs/standard-output:
    # json_date_key "date", json_date_format "double"); the tail input keeps the line in "log"
    # {"date":1599862267.483684,"log":"<line>"}
    "fluentbit_json": lambda ln, i: '{"date":17649337%02d.735196,"log":%s}' % (i, json.dumps(ln)),
    # Vector's log event as its console / file sink's json codec writes it (vector.dev docs/architecture/data-model/log:
    # {"custom":"field","host":"my.host.com","message":"Hello world","timestamp":"2020-11-01T21:15:47+00:00"}), the
    # file source's fields (file, host, source_type)
    "vector_json": lambda ln, i: ('{"file":"/var/log/trainer.log","host":"gpu-node-7","message":%s,"source_type":"file",'
                                  '"timestamp":"2026-12-05T11:22:%02d.735196Z"}' % (json.dumps(ln), i)),
    # a log search's CSV export: Kibana Discover's "Generate CSV" of a saved search with the message column, its
    # header the fields' names, the time in Kibana's dateFormat (default "MMM D, YYYY @ HH:mm:ss.SSS"), every cell
    # quoted where it holds a comma or a quote (RFC 4180); the header line comes first (csv_export_header)
    "csv_export": lambda ln, i: '"Dec 5, 2026 @ 11:22:%02d.735",%s' % (i, _csv_cell(ln)),
    # inference servers and RL trainers on several GPUs (round rM3): a Ray actor's tag on its worker's lines (python/ray/
    # _private/worker.py print_worker_logs: f"{actor_name} pid=", ", ip=<ip>" for another node):
    # (RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072   (ray-project/ray#59778)
    "ray_actor": lambda ln, i: f"(RayWorkerWrapper pid=58{i}, ip=10.225.128.18) {ln}",
    # a Ray task without an actor name: "(pid=<pid>)" (the same function's prefix for a task; CONSTRUCTED from it)
    "ray_task": lambda ln, i: f"(pid=42{i:02d}) {ln}",
    # vLLM V1's API server and engine core, nested (vllm/utils _add_prefix on each process's stdout):
    # (APIServer pid=1) (EngineCore_DP0 pid=68) INFO 02-06 16:34:06 [core.py:97] Initializing a V1 LLM engine (v0.14.1) ...   (llm-d/llm-d#706)
    "vllm_nested": lambda ln, i: f"(APIServer pid=1) (EngineCore_DP0 pid=68) {ln}",
    # vLLM's worker tag and its logger's head on every line of a message (vllm/logger.py _FORMAT):
    # (VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511]     self.device_communicator = ...   (vllm#20226)
    "vllm_worker_logger": lambda ln, i: f"(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:{i:02d} [multiproc_executor.py:511] {ln}",
    # SGLang's scheduler logger (python/sglang/srt/utils configure_logger: format=f"[%(asctime)s{prefix}] %(message)s",
    # datefmt "%Y-%m-%d %H:%M:%S"; prefix " DP<n>", " PP<n>", " TP<n>", " EP<n>" as set, managers/scheduler.py):
    # [2025-09-09 08:32:09 TP0 EP0] Decode batch. #running-req: 1, #token: 2625, token usage: 0.01, ...   (sgl-project/sglang#10216)
    "sglang_tp": lambda ln, i: f"[2025-09-09 08:32:{i:02d} TP0 EP0] {ln}",
    # Fluent Bit's record with its cri parser's fields (time, stream, _p: aws-samples/stable-diffusion-on-eks#96's
    # records) and the kubernetes filter's metadata (docs.fluentbit.io pipeline/filters/kubernetes: pod_name,
    # namespace_name, host (the node), container_name), written by the file / stdout output's json_lines
    "fluentbit_k8s": lambda ln, i: json.dumps({"date": 1764933700.735196 + i, "time": "2026-12-05T11:22:%02d.735196Z" % i,
                                               "stream": "stderr", "_p": "F", "log": ln, "kubernetes": {
                                                   "pod_name": "trainer-0", "namespace_name": "default",
                                                   "host": "gpu-node-7", "container_name": "pytorch"}},
                                              separators=(",", ":")),
    # Vector's kubernetes_logs source (vector.dev docs/reference/configuration/sources/kubernetes_logs: file,
    # kubernetes.{container_name, pod_name, pod_namespace, pod_node_name}, message, source_type, stream, timestamp)
    "vector_k8s": lambda ln, i: json.dumps({"file": "/var/log/pods/default_trainer-0_1/pytorch/0.log", "kubernetes": {
        "container_name": "pytorch", "pod_name": "trainer-0", "pod_namespace": "default", "pod_node_name": "gpu-node-7"},
        "message": ln, "source_type": "kubernetes_logs", "stream": "stderr",
        "timestamp": "2026-12-05T11:22:%02d.735196Z" % i}, separators=(",", ":")),
    # LogCLI --output jsonl (grafana/loki pkg/logcli/output/jsonl.go: timestamp, line, labels; json.Marshal sorts the keys)
    "logcli_jsonl": lambda ln, i: json.dumps({"labels": {"app": "trainer", "pod": "trainer-0"}, "line": ln,
                                              "timestamp": "2026-12-05T11:22:%02dZ" % i}, separators=(",", ":")),
    # journalctl -o json-pretty: the record over several lines (systemd logs-show.c output_json with JSON_FORMAT_PRETTY)
    "journal_pretty": lambda ln, i: json.dumps({"__CURSOR": "s=5726468a2162439e9e18a191202b1a7b;i=28e9%d" % i,
                                                "__REALTIME_TIMESTAMP": "17649336%02d494032" % i,
                                                "_HOSTNAME": "gpu-node-7", "SYSLOG_IDENTIFIER": "python3", "MESSAGE": ln},
                                               indent=8),
}
CSV_HEADER = {"csv_export": '"@timestamp",message'}


def _csv_cell(value: str) -> str:
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n') else value


ROUND_PREFIXES = {"rK3": ("logcli", "gha_log", "gh_run_log", "gha_error"),
                  "rL3": ("pdsh", "pdsh_hosts", "journal_json", "filebeat_json"),
                  "rL8": ("fluentbit_json", "vector_json", "csv_export"),
                  "rM2": ("fluentbit_k8s", "vector_k8s", "logcli_jsonl", "journal_pretty"),
                  "rM3": ("ray_actor", "ray_task", "vllm_nested", "vllm_worker_logger", "sglang_tp")}
NEW_PREFIXES = tuple(p for ps in ROUND_PREFIXES.values() for p in ps)

# A line the kernel logs (CONSTRUCTED from the forms the harvest's kernel lines take): after an optional syslog /
# journald kernel tag, a dmesg stamp (printk's "[%5lu.%06lu]", dmesg -T's ctime, dmesg -H/--reltime's "[  +0.000004]";
# any line under one came through kmsg), or one of the kernel's own message heads: an NVIDIA kernel module's
# ("NVRM: Xid (PCI:0000:3b:00): 119, ...", "nvidia-nvswitch3: ...", "nvidia-fs:rw_verify_area failed with -14",
# "nv_peer_mem: disagrees about version of symbol nvidia_p2p_get_pages"), a device's dev_printk ("%s %s: ", driver,
# device: "pcieport 0000:00:03.0: AER: device recovery failed"), or a kernel report's ("BUG: ", "INFO: task ",
# "Call Trace", "watchdog: ", "Out of memory", "mce: ", "EDAC ", "Kernel panic").
_KSTAMP = r"(?:<\d>)?(?:\[ *\+?\d+\.\d+\]|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\])"
_KHEAD = (r"(?:NVRM: |nvidia[-_][\w-]*:|nv_peer_mem:|[\w-]+ [0-9a-f]{4,5}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: |BUG: |"
          r"INFO: task |Call Trace|watchdog: |Out of memory|mce: |EDAC |Kernel panic)")
_KERNEL_LINE = re.compile(r"^\s*(?:(?:\S+ +){1,4}kernel: )?(?:" + _KSTAMP + r"|" + _KHEAD + r")")


def kernel_line(line: str) -> bool:
    """Whether a planted line is one the kernel logs (see _KERNEL_LINE), not another program's or a person's."""
    return bool(_KERNEL_LINE.match(line))


def cases(limit: int, seed: int) -> list[tuple[str, str, list[str]]]:
    out = []
    for lab in sorted((ROOT / "fixtures/harvest/cases").glob("*/label.yaml")):
        d = yaml.safe_load(lab.read_text())
        cat = str(d.get("category", ""))
        ev = [e for e in d.get("evidence") or [] if isinstance(e, str) and e.strip()][:3]
        if ev and not cat.startswith("healthy"):
            out.append((lab.parent.name, cat, ev))
    random.Random(seed).shuffle(out)
    return out[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bases", default=",".join(BASES))
    ap.add_argument("--prefixes", default=",".join(p for p in PREFIXES if p not in NEW_PREFIXES),
                    help="comma-separated; 'all' for every prefix, 'rK3' / 'rL3' / 'rL8' / 'rM2' / 'rM3' for a round's additions, 'new' for "
                         "the latest round's")
    ap.add_argument("--show-differs", action="store_true",
                    help="print each diagnosis whose serious findings differ from the bare lines' (raw)")
    args = ap.parse_args()
    groups = {"all": list(PREFIXES), "new": list(list(ROUND_PREFIXES.values())[-1]),
              **{k: list(v) for k, v in ROUND_PREFIXES.items()}}
    prefixes = groups.get(args.prefixes, args.prefixes.split(","))
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    bases = args.bases.split(",")

    def diag(files: dict[str, str]):
        tmp = Path(tempfile.mkdtemp())
        try:
            for name, text in files.items():
                (tmp / name).write_text(text)
            return diagnose_bundle(tmp, rules, jobs=1)
        finally:
            shutil.rmtree(tmp)

    for bn in bases:
        print("base", bn, diag({"base.txt": BASES[bn].read_text()}).verdict, flush=True)
    def serious(rep) -> tuple[str, list[str]]:
        return rep.verdict, sorted({f.rule for f in rep.findings if f.severity in ("critical", "warning")})

    counts: collections.Counter[str] = collections.Counter()
    for name, cat, ev in cases(args.cases, args.seed):
        artefact = not any(kernel_line(ln) for ln in ev)
        bare: dict[tuple[str, str], tuple[str, list[str]]] = {}  # (base, layout) -> the bare lines' verdict, findings
        for pn in ["raw"] + [p for p in prefixes if p != "raw"]:
            pf = PREFIXES[pn]
            block = "```\n" + "\n".join(ev) + "\n```" if pf is None else "\n".join(pf(ln, i) for i, ln in enumerate(ev))
            if pn in CSV_HEADER:
                block = CSV_HEADER[pn] + "\n" + block
            for bn in bases:
                base = BASES[bn].read_text()
                for layout, files in (("same_file", {"paste.txt": base.rstrip("\n") + "\n\n" + block + "\n"}),
                                      ("own_file", {"base.txt": base, "error.txt": block + "\n"})):
                    rep = diag(files)
                    if pn == "raw":
                        bare[(bn, layout)] = serious(rep)
                        if "raw" not in prefixes:
                            continue
                    else:
                        same = serious(rep) == bare[(bn, layout)]
                        counts["read_as_raw" if same else "read_otherwise"] += 1
                        if not same and args.show_differs:
                            print("DIFFERS", name, cat, pn, bn, layout, *serious(rep), "bare:", *bare[(bn, layout)],
                                  flush=True)
                    if rep.verdict == "healthy" and pn == "journald_kernel" and artefact:
                        counts["healthy_kernel_tag_artefact"] += 1
                        print("ARTEFACT", name, cat, pn, bn, layout, flush=True)
                        continue
                    counts[rep.verdict] += 1
                    if rep.verdict == "healthy":
                        print("HEALTHY", name, cat, pn, bn, layout, [f.rule for f in rep.findings][:4], flush=True)
    print(dict(counts))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Metamorphic robustness study: does the diagnosis survive the wrappers people paste? (issue 11)

Real incidents arrive as fragments pasted into tickets: a kernel line under a journald prefix, a
pod log in the CRI format, NCCL lines under an mpirun tag, a traceback under Ray's actor tag or a
``> `` quote. For every faulty case of ``fixtures/harvest/cases`` (its own diagnosis faulty, with a
serious top finding), every line of every artefact is re-wrapped with one wrapper form at a time
(all lines of a file, as a real pipeline would), the case is diagnosed again, and the top serious
finding's cause must stay the one of the unwrapped case. The table says, per form, how many cases
kept their cause, and how many fell to a healthy verdict (a false HEALTHY: never acceptable).

    .venv/bin/python bench/wrap_study.py                 # every form, every faulty case
    .venv/bin/python bench/wrap_study.py --only cri,srun --cases '^1'  -v   # a few, with the misses

A benchmark script (it prints figures), not a test; it reads only the project's own fixtures.
Each form below carries a real sample of it as posted in a public thread, and the thread.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "harvest" / "cases"
NOT_ARTEFACTS = {"label.yaml", "README.md"}
SERIOUS = {"warning", "critical", "fatal"}

Wrap = Callable[[str, int, bool], str]  # (line, file index, file is a kernel log) -> wrapped line


@dataclass(frozen=True)
class Form:
    name: str
    #: a real line of the form, as posted, and the public thread it was posted in
    sample: str
    source: str
    line: Wrap | None = None  # applied to every line of a file
    text: Callable[[str], str] | None = None  # or to the whole text (forms that add or split lines)
    kernel_only: bool = False  # a wrapper only kernel logs get (talosctl dmesg)
    encode: Callable[[str], bytes] | None = None  # or the file written in another encoding


def _json_line(line: str, i: int, kernel: bool) -> str:
    return json.dumps({"log": line + "\n", "stream": "stderr", "time": "2024-05-01T10:00:00.123456789Z"},
                      separators=(",", ":"))


# GitHub's rich text links the tokens that look like domains (a known top-level domain: .cc, .py,
# .sh, .io) and IPv4 addresses; copied back into an issue, the link text and its address both stay
_LINKABLE = re.compile(r"(?<![\w/.-])(?:[A-Za-z_][\w-]*\.(?:cc|py|sh|io)(?::\d+)?|\d{1,3}(?:\.\d{1,3}){3})(?![\w.-])")


def _autolink(line: str, i: int, kernel: bool) -> str:
    return _LINKABLE.sub(lambda m: f"[{m[0]}](http://{m[0]}/)", line)


def _fence(text: str) -> str:
    return "```\n" + text.rstrip("\n") + "\n```\n"


def _terminal_wrap(text: str, width: int = 80) -> str:
    out = []
    for ln in text.split("\n"):
        while len(ln) > width:
            out.append(ln[:width])
            ln = ln[width:]
        out.append(ln)
    return "\n".join(out)


def _journal(stamp: str) -> Wrap:
    """journald's short forms: a stamp, the host, the tag (``kernel`` for a kernel log)."""
    return lambda s, i, k: f"{stamp} gpu-node-{i} {'kernel' if k else 'python3[4242]'}: {s}"


def _numbered(fmt: str) -> Callable[[str], str]:
    """Every line of a text after ``fmt`` formatted with its number ``n`` (from 1), and ``s`` / ``c`` (its number mod 60
    / mod 100, for a stamp's seconds and an epoch's hundredths)."""
    return lambda t: "".join(fmt.format(n=n, s=n % 60, c=n % 100) + ln + "\n"
                             for n, ln in enumerate(t.rstrip("\n").split("\n"), 1))


def _prefix(fmt: str) -> Wrap:
    """The same prefix on every line; ``{i}`` is the file's index (its rank, task or pod)."""
    return lambda s, i, k: fmt.format(i=i) + s


FORMS: list[Form] = [
    Form("journald short",
         "Mar 05 23:33:35 ivosung bumblebeed[1734]: [91063.874832] [ERROR][XORG] (EE) NVIDIA(GPU-0): Failed to initialize "
         "the NVIDIA GPU at PCI:1:0:0.  Please", "https://github.com/Bumblebee-Project/Bumblebee/issues/550",
         line=_journal("Apr 22 21:30:51")),
    Form("journald short-iso",
         "2026-11-29T18:32:13+0000 node17 kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, ...",
         "journalctl -o short-iso (fixtures/artefacts/kernel_log/journal_iso_xid45.log)",
         line=_journal("2026-04-22T21:30:51+0000")),
    Form("talosctl dmesg",
         "192.168.11.119: kern: warning: [2026-04-22T21:25:20.458998481Z]: NVRM: GPU at PCI:0000:48:00: GPU-5fc0bcec-...",
         "https://github.com/vllm-project/vllm/issues/40652",
         line=lambda s, i, k: f"192.168.11.{119 + i}: kern: warning: [2026-04-22T21:30:51.87Z]: {s}", kernel_only=True),
    Form("CRI log file", "2019-04-30T02:12:41.8443515Z stdout F message",
         "https://grafana.com/docs/loki/latest/send-data/promtail/stages/cri/",
         line=_prefix("2024-05-01T10:00:00.123456789Z stderr F ")),
    Form("docker json-file", '{"log":"Log line is here\\n","stream":"stdout","time":"2019-01-01T11:11:11.111111111Z"}',
         "https://docs.docker.com/engine/logging/drivers/json-file/", line=_json_line),
    Form("kubectl logs --timestamps", "2019-04-30T02:12:41.8443515Z message (RFC 3339, one blank)",
         "kubectl logs --timestamps (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/)",
         line=_prefix("2024-05-01T10:00:00.123456789Z ")),
    Form("kubectl logs --prefix", "[pod/<pod>/<container>] ...",
         'kubectl pkg/cmd/logs/logs.go addPrefixIfNeeded: fmt.Sprintf("[pod/%s/%s] ", ref.Name, containerName)',
         line=_prefix("[pod/trainer-worker-{i}/pytorch] ")),
    Form("mpirun --tag-output",
         "        [1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket",
         "https://github.com/aws/aws-k8s-tester/pull/464", line=_prefix("[1,{i}]<stdout>:")),
    Form("torchrun [defaultN]:", "[default0]:... (torchrun --tee: role 'default', local rank)",
         "torchrun --tee/--redirects (torch.distributed.elastic)", line=_prefix("[default{i}]:")),
    Form("torch [rankN]:",
         "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/common_distributed.py:939] Caught exception: ",
         "https://github.com/pytorch/helion/pull/1396", line=_prefix("[rank{i}]:")),
    Form("srun --label", "10: torch.distributed.DistBackendError: NCCL error in: ...",
         "srun(1) -l, --label: prepend task number to lines of stdout/err", line=_prefix("{i}: ")),
    Form("Ray actor tag",
         "(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072",
         "https://github.com/ray-project/ray/issues/59778", line=_prefix("(RayWorkerWrapper pid=58{i}, ip=10.225.128.18) ")),
    Form("Ray nested tags",
         "(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO P2P Chunksize set to 131072",
         "https://github.com/foundation-model-stack/fastsafetensors/issues/36",
         line=_prefix("(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=28{i}, ip=192.168.177.12) ")),
    # --- issue 11, session 24: forms people paste that the list above did not carry ---
    Form("srun --label, 10+ tasks",
         "slurm src/common/write_labelled_message.c _write_label: snprintf(buf, 16, \"%0*d: \", label_width, taskid)",
         "slurm write_labelled_message.c (label_width: the digits of the last task id: '07: ', '12: ')",
         line=lambda s, i, k: "%0*d: " % (2, i + 8) + s),
    Form("docker compose v2 (every line)", "webui-docker-auto-1  | Mounted .cache",
         "https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/388 (compose cmd/formatter/logs.go "
         "\"%-*s | \": the longest name + 1)",
         line=lambda s, i, k: "%-*s | " % (len("gpu-job-trainer-1") + 1, f"gpu-job-trainer-{i % 9 + 1}") + s),
    Form("docker compose v1 (every line)", "bug_1  | initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2",
         "https://github.com/pytorch/pytorch/issues/73790", line=lambda s, i, k: f"job_trainer_{i % 9 + 1}  | " + s),
    Form("docker compose container_name", "scalellm          | ./entrypoint.sh: line 28:     7 Killed  ...",
         "https://github.com/vectorch-ai/ScaleLLM/issues/38 (a fixed container_name: no index; \"%-*s | \", the "
         "longest name + 1)", line=lambda s, i, k: "%-*s | " % (len("scalellm") + 9, "scalellm") + s),
    Form("pdsh host label (every line)", 'pdsh src/pdsh/dsh.c rsh(): out("%S: %s", a->host, buf) (host, colon, blank)',
         "https://github.com/chaos/pdsh/blob/master/src/pdsh/dsh.c", line=_prefix("node17: ")),
    Form("journald short-monotonic",
         "[ 4600.189351] fovo.local systemd[1]: Sent message type=signal sender=n/a destination=n/a ...",
         "https://github.com/systemd/systemd/issues/22554 (logs-show.c \"[%5llu.%06llu]\")",
         line=_journal("[ 4274.052063]")),
    Form("rsyslog RFC 5424",
         '<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%',
         "rsyslog runtime/rsconf.c template_SyslogProtocol23Format (RSYSLOG_SyslogProtocol23Format)",
         line=lambda s, i, k: (f"<4>1 2024-05-01T10:00:00.123456+00:00 gpu-node-{i} kernel - - - " if k else
                               f"<14>1 2024-05-01T10:00:00.123456+00:00 gpu-node-{i} python3 4242 - - ") + s),
    Form("python logging",
         "2021-08-13 10:46:03 - INFO - torch.distributed.elastic.agent.server.api - [default] Starting worker group",
         "https://github.com/shun-zheng/Doc2EDAG/issues/24", line=_prefix("2024-05-01 10:00:00,123 - trainer - INFO - ")),
    Form("bracketed time",
         "[2026-01-04 21:33:04] test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3] transport/net_ib.cc:2360 "
         "NCCL WARN NET/IB: Got completion from peer ...", "https://github.com/scitix/sichek/issues/44",
         line=_prefix("[2026-01-04 21:33:04] ")),
    Form("indented 4", "        [1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket",
         "https://github.com/aws/aws-k8s-tester/pull/464", line=_prefix("    ")),
    Form("tab", "\t... (a tab-indented paste)", "", line=_prefix("\t")),
    Form("> quote",
         "> [Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception ...",
         "https://github.com/leptonai/gpud/pull/46", line=_prefix("> ")),
    Form("> > nested quote", "> > `nvidia-smi`", "tests/test_lines.py", line=_prefix("> > ")),
    Form("code fence", "```bash ... ```", "tests/test_lines.py (fal-ai video-diffusion-speedrun#2)", text=_fence),
    Form("backticks", "`init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls ...`",
         "tests/test_lines.py (NVIDIA/nccl#296, #304)", line=lambda s, i, k: f"`{s}`" if s.strip() else s),
    Form("GitHub autolinks",
         "node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : ...",
         "https://github.com/NVIDIA/nccl/issues/1710", line=_autolink),
    Form("CRLF", "...\\r\\n (a Windows clipboard)", "", line=lambda s, i, k: s + "\r"),
    Form("terminal wrap at 80", "(a line cut every 80 columns by a terminal's copy)", "", text=_terminal_wrap),
    Form("terminal wrap at 120", "(a line cut every 120 columns)", "", text=lambda t: _terminal_wrap(t, 120)),
    Form("terminal wrap at 97", "(a resized window's odd width)", "", text=lambda t: _terminal_wrap(t, 97)),
    Form("terminal wrap at 80, quoted", "(cut at 80, then pasted as a '> ' quote)", "",
         text=lambda t: "\n".join("> " + r for r in _terminal_wrap(t).split("\n"))),
    # --- issue 11, session 54 round rCA2: stamps of other locales and offsets, line numbers, exports, encodings ---
    Form("journald short, fr_FR",
         "déc. 02 09:56:04 host kernel: ... (journalctl under LANG=fr_FR.UTF-8: strftime's %b, 'déc.', 'févr.', 'août')",
         "systemd src/shared/logs-show.c output_short: strftime(\"%b %d %H:%M:%S\") in the user's locale",
         line=_journal("déc. 02 09:56:04")),
    Form("journald short, de_DE", "Mär 26 07:38:49 host kernel: ... (de_DE: 'Mär', 'Okt', 'Dez')",
         "systemd logs-show.c (%b of de_DE)", line=_journal("Mär 26 07:38:49")),
    Form("journald short, zh_CN", "6月 28 02:52:53 jjf-Super-Server kernel: NVRM: Xid (PCI:0000:c2:00): 79, ...",
         "a nvidia-bug-report.log grepped, posted in a blog's repository (zh_CN: %b is '6月')",
         line=_journal("12月 02 09:56:04")),
    Form("journald short, lowercase", "sep 03 13:25:15 cachyos kernel: NVRM: loading NVIDIA UNIX Open Kernel Module ...",
         "es_ES / it_IT / nl_NL: %b in lower case ('sep', 'dic', 'ott')", line=_journal("dic 02 09:56:04")),
    Form("journald short-iso (colon)", "2025-03-04T10:11:12+01:00 host kernel: ... (systemd >= 250: '%:z')",
         "systemd logs-show.c format_timestamp_style TIMESTAMP_ISO", line=_journal("2025-03-04T10:11:12+01:00")),
    Form("journald short-iso-precise", "2025-03-04T10:11:12.123456+01:00 host kernel: ...",
         "journalctl -o short-iso-precise; rsyslog RSYSLOG_FileFormat (date-rfc3339), Ubuntu 24.04's /var/log/syslog",
         line=_journal("2025-03-04T10:11:12.123456+01:00")),
    Form("journald short-full", "Tue 2025-03-04 10:11:12 CET host kernel: ...",
         "journalctl -o short-full (systemd logs-show.c: format_timestamp, '%a %Y-%m-%d %H:%M:%S %Z')",
         line=_journal("Tue 2025-03-04 10:11:12 CET")),
    Form("kubectl logs --timestamps, offset", "2025-07-25T07:53:08.21748708+08:00 <line>",
         "kubelet's RFC3339Nano of the CRI log's own time (a node kept in UTC+8)",
         line=_prefix("2025-07-25T07:53:08.217487080+08:00 ")),
    Form("cat -n", "     12\t<line> (coreutils cat -n: '%6d\\t')", "coreutils src/cat.c next_line_num",
         text=_numbered("{n:6d}\t")),
    Form("grep -n", "12:<line> (grep -n over one file)", "GNU grep -n, --line-number",
         text=_numbered("{n}:")),
    Form("grep -n, files", "dmesg.log:12:<line> (grep -n over several files)", "GNU grep -Hn",
         text=_numbered("/var/log/syslog:{n}:")),
    Form("line numbers, bar", "  12 | <line> (an editor's or viewer's gutter copied)", "",
         text=_numbered("{n:4d} | ")),
    Form("Grafana txt (ISO)", "2024-01-01T10:00:00+01:00\t<line>",
         "grafana public/app/core/utils/explore.ts downloadLogsModelAsTxt: dateTimeFormatISO(row.timeEpochMs) + '\\t' + row.entry",
         text=lambda t: 'Common labels: {"job":"trainer"}\n\n\n' + _numbered("2024-05-01T10:00:{s:02d}+02:00\t")(t)),
    Form("Grafana txt (ms)", "1714550400123\t2024-05-01T08:00:00.123Z\t<line>",
         "grafana downloadLogsModelAsTxt (10.x-11.x): row.timeEpochMs + '\\t' + dateTime(...).toISOString() + '\\t' + row.entry",
         text=lambda t: "\n\n" + _numbered("17145504{c:02d}123\t2024-05-01T08:00:{s:02d}.123Z\t")(t)),
    Form("UTF-16 (PowerShell >)", "(Windows PowerShell 5's '>' writes UTF-16LE with a BOM)", "",
         encode=lambda t: t.replace("\n", "\r\n").encode("utf-16")),
]


def _artefacts(case: Path) -> list[tuple[Path, str]]:
    out = []
    for src in sorted(case.rglob("*")):
        rel = src.relative_to(case)
        if src.is_file() and not (len(rel.parts) == 1 and rel.name in NOT_ARTEFACTS):
            out.append((rel, src.read_bytes().decode("utf-8", "replace")))
    return out


def _is_kernel_log(text: str) -> bool:
    from stethoscope.facts.classify import recognise
    return any(p.KIND == "kernel_log" for p in recognise(text))


def wrap_text(form: Form, text: str, index: int, kernel: bool) -> str | bytes:
    if form.encode is not None:
        return form.encode(text)
    if form.text is not None:
        return form.text(text)
    lines = text.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None
    out = [form.line(ln[:-1] if ln.endswith("\r") else ln, index, kernel) for ln in lines]
    return "\n".join(out) + ("\n" if last is not None else "")


def top(files: list[tuple[Path, str | bytes]], ruleset) -> tuple[str, str]:
    """(verdict, cause of the top serious finding or '-') of a bundle made of ``files``."""
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory(prefix="tmp-wrap-") as tmp:
        for rel, text in files:
            dst = Path(tmp) / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                dst.write_bytes(text)
            else:
                dst.write_text(text, encoding="utf-8", newline="")
        rep = diagnose(observe_bundle(tmp, 1, ruleset=ruleset), ruleset)
    serious = [f for f in sorted(rep.findings, key=lambda f: f.rank) if f.severity in SERIOUS]
    return rep.verdict, serious[0].cause if serious else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="", help="only cases whose folder name matches this regex")
    ap.add_argument("--only", default="", help="only these forms (comma-separated substrings of their names)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list each case a form lost")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()
    forms = [f for f in FORMS if not args.only or any(o.strip() in f.name for o in args.only.split(","))]
    started = time.time()
    base: list[tuple[str, list[tuple[Path, str]], list[bool], str]] = []
    for case in sorted(CASES.iterdir()):
        if not (case / "label.yaml").is_file() or (args.cases and not re.search(args.cases, case.name)):
            continue
        files = _artefacts(case)
        verdict, cause = top(files, ruleset)
        if verdict == "faulty" and cause != "-":
            base.append((case.name, files, [_is_kernel_log(t) for _, t in files], cause))
    print(f"{len(base)} faulty cases (of fixtures/harvest/cases) with a serious top finding\n")
    print(f"{'wrapper form':28s} {'kept':>5s} / {'tried':<5s}  {'lost':>4s}  {'healthy':>7s}")
    total_kept = total_tried = 0
    for form in forms:
        kept = tried = healthy = 0
        lost: list[str] = []
        for name, files, kernel, cause in base:
            if form.kernel_only and not any(kernel):
                continue
            wrapped = [(rel, wrap_text(form, text, i, k) if (k or not form.kernel_only) else text)
                       for i, ((rel, text), k) in enumerate(zip(files, kernel))]
            verdict, got = top(wrapped, ruleset)
            tried += 1
            if got == cause:
                kept += 1
            else:
                lost.append(f"{name}: {cause} -> {got} ({verdict})")
                healthy += verdict == "healthy"
        total_kept, total_tried = total_kept + kept, total_tried + tried
        print(f"{form.name:28s} {kept:5d} / {tried:<5d}  {tried - kept:4d}  {healthy:7d}")
        if args.verbose:
            for row in lost:
                print(f"    {row}")
    print(f"\n{'all forms':28s} {total_kept:5d} / {total_tried:<5d}   in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

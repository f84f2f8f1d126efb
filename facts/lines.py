"""Line normalisation: the wrappers that pasting, launchers and log shippers put around lines.

People paste logs into tickets and threads, launchers label every line with its rank, and log
shippers stamp every line with their own time. None of that belongs to the artefact's format,
so it is stripped before any parser looks at a line. Format-specific prefixes (syslog,
journald, Talos, ``dmesg -T``, NCCL's ``host:pid:tid [dev]``, which carry a host, a time or a
device) are left to the parser that owns the format. A label that carries a rank or a pid
(``[rank3]:``, Ray's ``pid=``) is stripped too: its reader reads it back from the line as read
(``label_rank``, ``Artefact.raw_line``). bench/wrap_study.py measures what each form costs the
diagnosis of the harvested cases.

Stripping keeps one line for one line, so line numbers do not move: a parser reads the
normalised text and its evidence quotes the original line (``Artefact.raw_line``). A line a
terminal's copy cut into rows of its width is joined on its first row, the rows after it left
blank (``Normalised.joined``): its facts cite that first row, and their evidence quotes the rows
joined as read.

Wrappers, each with a real sample:

- markdown quoting ``> `` (GitHub and mail replies), possibly nested::

      > [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer

- a code-fence line (dropped) or a line wrapped in backticks or a one-line fence (unwrapped)::

      ```docker run --gpus all --rm -it video-diffusion /bin/bash```
      `init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`
      `ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`

  and an inline code span over several lines loses its opening backtick (at a line's start) and its closing one
  (ending the first later line with a backtick, alone on it), if the paste has it::

      `==============NVSMI LOG==============

- a whole line in double quotes, as a message is quoted in prose (straight or typographic
  quotes; the quotes go, an end-of-sentence dot inside them stays)::

      "# Reducing maxBytes to 12156305408 due to memory limitation."

- Open MPI's ``--tag-output``: ``[1,3]<stdout>:node2:1234:1290 [3] NCCL INFO ...``
- Slurm's ``srun -l`` label: ``10: torch.distributed.DistBackendError: NCCL error in: ...``
- container runtimes: CRI log files (``/var/log/pods``) and ``docker logs -t`` / ``kubectl logs
  --timestamps`` stamp each line with an RFC 3339 time in UTC (``Z``)::

      2024-05-01T12:00:00.123456789Z stdout F gpu-operator-validator: Failed to initialize NVML
      2023-09-12T08:14:05.000000001Z I0912 08:14:05.123 1 main.go:154] Starting FS watcher.

  A time followed by a syslog host and tag (``2024-05-01T12:00:00Z node1 kernel: ...``,
  journald's ``short-iso``) is journald's, not a container's: it is left to the kernel log.
- links a rich-text paste leaves inside a line, where the link's text is its own address
  (GitHub turns ``net_ib.cc:101`` and ``10.1.3.201`` into links when a rendered page is
  copied back into an issue): the text stays, the address goes::

      node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error

- log viewers' and CI runners' copies: Loki's ``logcli query`` (an RFC 3339 time and the stream's labels before
  every line), a GitHub Actions job log (the runner's time in 100 ns, ``Z``; ``gh run view --log`` puts the job's
  and the step's names before it, a tab after each) and the runner's own tags at a line's start (``##[error]``,
  ``##[group]``, ...)::

      2018-06-25T12:52:09Z {instance="consul-8576459955-pl75w"} 2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete
      quality (node 24)	Run npm test	2026-08-14T05:58:44.3460626Z ##[group]Run npm test

- Docker's json-file log lines (``/var/lib/docker/containers/*/*-json.log``): the line is the
  ``log`` string, unescaped: ``{"log":"NCCL WARN ...\n","stream":"stderr","time":"..."}``
- one JSON record a line as the journal and log shippers export them: ``journalctl -o json`` (the line is the
  record's ``MESSAGE``) and Filebeat's / Logstash's Elastic Common Schema document (``@timestamp``, the line in
  ``message``)::

      {"__REALTIME_TIMESTAMP":"1655046591494032","__CURSOR":"s=...","MESSAGE":"Invalid user ark from 43.154.144.211 port 42608","_BOOT_ID":"..."}
      {"@timestamp":"2023-06-06T04:48:11.735Z","log":{"offset":71770,"file":{"path":"/var/log/auth.log"}},"message":"foobar"}
- ``kubectl logs --prefix``: ``[pod/trainer-worker-0/pytorch] ...``
- Ray's actor tag, possibly nested (vLLM's engine core around a Ray worker)::

      (RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072
      (EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO ...
      (VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511]     initialize_model_parallel(

  (vLLM's worker tags take the same form: ``(VllmWorkerProcess pid=759)``, V1's ``(VllmWorker rank=1 pid=...)``)

- torchrun's local-rank label (``--tee``/``--redirects``: ``[default0]:``) and PyTorch's global
  rank label (``[rank1]:``); the rank stays readable from the line as read (``label_rank``)
- Python ``logging`` prefixes a program puts on lines it relays: ``%(asctime)s - %(name)s -
  %(levelname)s - `` and ``%(levelname)s:%(name)s:`` (logging.basicConfig's default)
- a bracketed local time a collector stamps on each line (``[2026-01-04 21:33:04] ...``)
- one label on every line of an indented report (``nvidia-smi -q`` run by pdsh ``node01: ``,
  docker compose ``trainer-1  | ``, or a logger: ``Nov 29 18:30:18 host nvidia-smi[4242]: ``)::

      node01:     Remapped Rows

  (pdsh's and compose's only over a report, whose indentation they hide: a log's lines under
  them are read by their readers)
- a program's syslog / journald label, line by line (a service's output in the journal reads as
  its lines do bare): ``Nov 29 18:30:18 gpu-node-3 python3[4242]: ...``; the kernel's lines and
  those of the daemons whose readers read their tag (``OWN_TAGS``) keep it
- a terminal's colours (ANSI SGR escapes anywhere in a line: ``dmesg --color=always``,
  journalctl, docker compose), also as the kernel log escapes them (``\\x1b[41m``)
- a kernel record of several lines as a reader of /dev/kmsg prints it, on one line with its newlines escaped
  (``talosctl dmesg``: ``NVRM: ...)\\x0aNVRM: installed in this system ...``): its lines joined by a blank
- a terminal UI's pane copied with its frame (k9s's log view, a boxed panel): every row between ``│`` borders,
  padded to the pane's width, a line longer than the pane cut at its border: the borders and the padding go where
  two rows or more of the text are framed so, with no other ``│`` inside (a table's rows keep theirs; see
  ``_PANE_ROW``)::

      │ E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected                     │

- a terminal's cut: a line longer than the terminal copied as rows of its width (see ``_unwrap``)::

      **hostname:26407:26474 NCCL INFO Call to connect returned Connection refused, re
      trying...**

- a one-line JSON record (a journal's, a shipper's, zap's / slog's) that a ticket's word wrap or a terminal broke
  over rows: joined on its first row where the rows together parse as one object (``records.rejoin_records``),
  then read as its line as a whole record is

- a record a paste hard-wrapped into indented rows (a kernel line, an NCCL line, an exception's message cut inside its
  sentence, its tail a few blanks in): joined on its first row, a blank between (see ``_indented_tails``)::

      NVRM: Xid (PCI:0000:01:00): 31, pid=<varies>, name=python3, channel 0x00000002,
        intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted

- markdown emphasis around a whole line (a message pasted in bold or italics: ``**...**``,
  ``__...__``, ``*...*``, ``_..._``, ``***...***``): the marks go when the same run opens and closes
  the line, the opener followed and the closer preceded by a non-blank, the run nowhere inside, and
  a blank in between (a log line: not ``__init__``, ``*args*``); glibc's ``*** Error in ...***``
  (blanks inside the stars), a rule of stars or underscores and ``*`` / ``_`` inside a line are kept::

      **docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].**

- an indentation every line of the text shares (a markdown code block, a quoted e-mail): the
  common margin goes, the text's own indentation stays
- a progress bar's last refresh that the next log line was written after, on the same line (tqdm's
  ``n/total [elapsed<remaining, rate]`` end, or ``n [elapsed, rate]`` of a bar of unknown total, then a known log
  prefix; or a terminal's overwrite, ``\\r``, before one): the bar goes, the log line stays (see ``_BAR_END``;
  sgl-project/sglang#15598)::

      DeepGEMM warmup:   2%|█▌     | 11/512 [01:09<57:05,  6.84s/it][2025-12-22 11:36:30 TP1 EP1] Scheduler hit an exception: ...

Near misses, kept: NCCL's own ``host:pid:tid [dev]`` and a bare ``[0]`` device index (they
carry the host and the GPU); torchrun's failure table ``[1]:``; ``dcgm``'s ``2024-05-01
10:00:00.123 ERROR`` and dpkg's ``2024-05-01 10:00:00 install`` stamps (their readers use them).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import compress
from operator import methodcaller

import re2

from stethoscope.facts.records import read_records, rejoin_records

# ```bash   /   ```   /   ```docker run --gpus all --rm -it video-diffusion /bin/bash```
_FENCE = re.compile(r"\n[ \t]*```(?P<body>[^\n]*?)[ \t]*(?=\n)")
# `ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`
_TICKS = re.compile(r"\n[ \t]*`(?P<body>[^`\n]+)`[ \t]*(?=\n)")
# A log line a reporter quotes as inline code inside a sentence (one span on the row; eth-cscs/cscs-reframe-tests#224):
#   getting `srun: error: _fwd_tree_get_addr: can't find address for host nid006677, check slurm.conf`
# is read as the line the span holds, the sentence's words around it off (line for line; the evidence quotes the row as
# written), where the span starts as a program's line of a known form does, never prose words in code: a program's
# "<name>: error: " / "<name>: fatal: " (Slurm's src/common/log.c, "%s: error: "), a Python exception's line
# ("<qualname>Error: ", traceback.format_exception_only), NCCL's prefix ("<host>:<pid>:<tid> [<dev>] NCCL WARN "), the
# NVIDIA kernel module's "NVRM: " and the driver's "NVIDIA-SMI has failed", an Xid; (a span of a command, a setting, a
# file name, a word is kept: `nvidia-smi`, `NCCL_IB_HCA=mlx5`, `error: true`)
_LOG_SPAN = (r"(?:[\w.-]{1,64}(?:\[\d{1,10}\])?: (?:error|fatal): |[A-Za-z_][\w.]{0,200}(?:Error|Exception): \S"
             r"|[\w.-]{1,128}:\d{1,10}:\d{1,10} \[\d{1,3}\] NCCL (?:WARN|ATTN|INFO|ERROR) |(?:\[ {0,12}\d{1,12}\.\d{1,9}\] )?NVRM: "
             r"|NVIDIA-SMI has failed )")
_PROSE_TICK = re.compile(r"\n(?P<pre>[^`\n]{1,300})`(?P<body>" + _LOG_SPAN + r"[^`\n]{0,2000})`(?P<post>[^`\n\r]{0,300})(?P<cr>\r?)(?=\n)")
# a markdown inline code span over several lines: its opening backtick starts a line that holds no other, its closing
# one (if the paste has it) ends the first later line that holds a backtick, and holds no other (GitHub renders the
# lines between as code; paradoxxxzero/gnome-shell-system-monitor-applet#356, nvidia-smi -q under R375, cut before
# the close; NVIDIA/nvidia-settings#80, a --query-gpu csv):
#   `==============NVSMI LOG==============
_TICK_OPEN = re.compile(r"\n[ \t]*`(?=[^`\n]*\n)")
# > [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>
_QUOTE = re.compile(r"\n(?:[ \t]{0,3}>(?:[ \t]|(?=\n)))+")
# "# Reducing maxBytes to 12156305408 due to memory limitation."      (nccl-tests#198, quoted in the issue text)
# (at the left margin only, no quote inside: an indented JSON string or a "key": "value" line is kept)
_DQUOTE = re.compile(r'\n["\u201c](?P<body>[^"\u201c\u201d\n]+)["\u201d][ \t]*(?=\n)')
# [1,3]<stdout>:node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM
# (Open MPI writes the tag and the line, no blank between: a blank after it is the line's own, an
# indented report's indentation under it stays). With --timestamp-output ctime's stamp comes first,
# before the tag or alone (orte/mca/iof/base/iof_base_output.c: "%s[%s,%s]<%s>:" / "%s<%s>:", the
# stamp ctime() without its newline; openucx/ucx#2718's MTT run):
# Mon Jul  2 19:35:38 2018[1,2704]<stdout>:[1530549338.249536] [clx-hercules-007:20543:0]       rc_iface.c:966  UCX  ERROR failed to create qp: Invalid argument
# horovodrun's own launcher (gloo, and its ssh/local runs) tags a worker's line with its rank alone, the same ctime
# stamp first with --prefix-output-with-timestamp (horovod/runner/common/util/safe_shell_exec.py forward_stream:
# '{time}[{rank}]<{prefix}>:{line}', time.asctime() or ''; horovod/horovod#2640):
# [0]<stderr>:[2021-02-02 03:23:51. 70957: W /tmp/pip-install-wztcejga/horovod_5b3931a7e1ed48ce93cf2eda4263910e/horovod/common/stall_inspector.cc:105] One or more tensors were submitted ...
_CTIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}"
_MPIRUN = re.compile(r"\n(?:(?:" + _CTIME + r")?\[\d+(?:,\d+)?\]|" + _CTIME + r")<(?:stdout|stderr|stddiag)>:")
# 10: torch.distributed.DistBackendError: NCCL error in: .../ProcessGroupNCCL.cpp:1331, unhandled system error
# 3:         default gid:     fe80:0000:0000:0000:88e9:a4ff:ff4c:2bdc      (the line's own indentation stays)
# (not ``ip addr``'s "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536", whose number is the interface's)
_SRUN = re.compile(r"\n\d{1,5}: (?![\w.@-]+: <)")
# A cloud log viewer's copy: its severity column (Cloud Logging's LogSeverity names; every stderr
# line is ERROR there, so the word is the viewer's, not the program's), then the entry's time:
#   ERROR 2025-04-05T00:01:19.509514570Z ./entrypoint.sh: line 48: 28 Killed python3 -m sglang.launch_server ...
#     (Logs Explorer, GKE/Cloud Run: sgl-project/sglang#5096)
#   ERROR   2022-01-26 14:19:41 +1100       workerpool0-0   Configuration saved in /tmp/xlm-roberta-large/...
#     (Vertex AI's job log, replica column after the local time: GoogleCloudPlatform/vertex-ai-samples#242)
_VIEWER_SEVERITY = r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY)"
_CLOUD_VIEWER = re.compile(
    r"\n" + _VIEWER_SEVERITY + r"(?: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z "
    r"|[ \t]+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}[ \t]+workerpool\d+-\d+[ \t]+)"
)
# 2024-05-01T12:00:00.123456789Z stdout F gpu-operator-validator: Failed to initialize NVML
# 2023-09-12T08:14:05.000000001Z I0912 08:14:05.123 1 main.go:154] Starting FS watcher.
# (one blank after each field: the line's own indentation stays)
# A CRI log file's time is the node's local time with its offset, not always UTC: containerd writes Go's
# time.RFC3339Nano ("Z" only on a node kept in UTC), CRI-O "%Y-%m-%dT%H:%M:%S.%9N%:z" (OpenTelemetry's container
# parser), so a node in UTC+8 writes (sgl-project/sglang#8336, a pod's /var/log/containers file):
# 2025-07-25T07:53:08.21748708+08:00 stdout F [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):
# (an offset only with the stream and its tag after it: "<time>+08:00 host kernel: ..." stays journald's)
# kubectl logs --timestamps (and docker logs -t) print that time as RFC3339Nano, the node's offset kept (the kubelet
# re-formats the CRI file's own time, kuberuntime/logs: timestamp.Format(time.RFC3339Nano)), and Grafana's log download
# writes each entry after its ISO time and a tab (public/app/core/utils/explore.ts downloadLogsModelAsTxt,
# dateTimeFormatISO(row.timeEpochMs) + '\t' + row.entry), so with an offset and no stream (CONSTRUCTED from the formats):
# 2025-07-25T07:53:08.217487080+08:00 [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):
_CONTAINER_TS = re.compile(
    r"\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z[ \t](?:(?:stdout|stderr) [FP][ \t])?"
    r"|[+-]\d\d:\d\d[ \t](?:(?:stdout|stderr) [FP][ \t])?|[+-]\d\d\d\d[ \t](?:stdout|stderr) [FP][ \t])"
    r"(?![A-Za-z0-9][\w.-]* [\w./-]+(?:\[\d+\])?: )",  # "node1 kernel: ..." is journald's: kept
)
# an RFC 3339 time with its offset at a line's start, then a blank or a tab (the gate of _CONTAINER_TS's offset forms)
_OFFSET_TS = re.compile(r"\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:\d\d[ \t]")
# Grafana's log download (Explore, a panel's inspector: "Download logs" as .txt), each entry after its time and a tab
# (grafana public/app/features/logs/utils.ts downloadLogsModelAsTxt, 10.x-11.x: row.timeEpochMs + '\t' +
# dateTime(row.timeEpochMs).toISOString() + '\t' + row.entry; 9.x: dateTimeFormat(row.timeEpochMs, {defaultWithMS:
# true}) + '\t' + row.entry; earlier an ISO time with its offset, _CONTAINER_TS), CONSTRUCTED from the formats:
# 1714550400123\t2024-05-01T08:00:00.123Z\tnode1:1633:1633 [0] NCCL WARN NET/IB : Got async event : port error
# 2024-05-01 10:00:00.123\tnode1:1633:1633 [0] NCCL WARN NET/IB : Got async event : port error
# (the epoch's milliseconds go here, the ISO time after them with _CONTAINER_TS)
_GRAFANA_TXT = re.compile(r"\n(?:\d{13}\t(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\t)|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\t)")
# Loki's logcli query, default output (grafana/loki pkg/logcli/output/default.go: fmt.Sprintf("%s %s %s", the
# entry's time as time.RFC3339, padLabel(labels, maxLabelsLen): the stream's labels as Prometheus prints a label set,
# padded with blanks to the longest, strings.TrimSpace(line)); grafana/loki docs/logcli.md:
# 2018-06-25T12:52:09Z {instance="consul-8576459955-pl75w"} 2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete
# (--no-labels leaves "<time> <line>": a container's stamp where the time is in UTC)
_LOGCLI = re.compile(r'\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d) \{(?:[A-Za-z_]\w*="[^{}\n]*")?\} +')
# gh run view --log (cli/cli pkg/cmd/run/view/view.go: prefix := fmt.Sprintf("%s\t%s\t", job.Name, step.Name) before
# every line of the runner's log, whose lines carry the runner's time in 100 ns, .NET's round-trip form):
# quality (node 24)\tRun npm test\t2026-08-14T05:58:44.3460626Z ##[group]Run npm test
# (the names go; the time after them is a container's stamp, _CONTAINER_TS)
_GH_RUN_LOG = re.compile(r"\n[^\t\n]+\t[^\t\n]+\t(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z )")
# the GitHub Actions runner's tags at a line's start (actions/runner src/Runner.Worker/ExecutionContext.cs WellKnownTags
# "##[section]", "##[command]", "##[error]", "##[warning]", "##[debug]"; a step's ::group:: / ::notice:: shown as
# "##[group]", "##[endgroup]", "##[notice]"), after the runner's time or in a copy of the page without it:
# 2026-06-30T11:36:02.1044260Z ##[error]Error: failed to run script step: Error: command terminated with non-zero exit code: command terminated with exit code 1
_GHA_TAG = re.compile(r"\n##\[(?:error|warning|notice|debug|section|command|group|endgroup)\]")
# {"log":"node1:1633:1633 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1\u003c0\u003e\n","stream":"stderr","time":"2024-05-01T10:00:00.123456789Z"}
_DOCKER_JSON = re.compile(r'\n\{"log":"(?P<body>(?:[^"\\\n]|\\.)*)","stream":"(?:stdout|stderr)","time":"[^"\n]*"\}[ \t]*(?=\n)')
# [pod/trainer-worker-0/pytorch] node1:1633:1633 [0] NCCL INFO ...      (kubectl logs --prefix)
_KUBECTL = re.compile(r"\n\[pod/[\w.-]+/[\w.-]+\] ?")
# (RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072
# (EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO ...
# (VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511]     self.device_communicator = device_comm_cls(
#   (vLLM V1's worker, vllm/v1/executor/multiproc_executor.py: _add_prefix(sys.stdout, f"VllmWorker rank={rank}", pid);
#   vllm#20226)
# Ray Data's actors carry their operator in the name, and a collector's local time (nanoseconds) may come first
# (vllm-project/vllm#37250, vLLM under Ray Data's map_batches):
# 2026-03-09 01:31:29.489157625 (MapWorker(MapBatches(vLLMEngineActor)) pid=1202, ip=10.53.120.118) (EngineCore_DP0 pid=32080) ERROR 03-08 17:31:28 [core.py:1102]     raise self._exception
#   (the stamp goes only with a tag after it)
# The name is whatever Ray was told (python/ray/_private/worker.py print_worker_logs: prefix_for's
# f"{data['actor_name']} pid=" or the task's name, then ", ip=<ip>" for another node): Ray Serve's replicas are
# actors of class DeploymentID.to_replica_actor_class_name(), f"ServeReplica:{app_name}:{name}" (ray/serve/_private/
# common.py), and a Ray Serve LLM deployment is named after its model, a Hugging Face id with its slash
# (ray-project/ray#55754):
# (ServeReplica:default:meta-llama/Llama-2-7b-hf:meta-llama--Llama-2-7b-hf pid=522173) INFO 08-29 18:02:22 [__init__.py:235] Automatically detected platform cuda.
# SkyPilot runs a task's command as a Ray task named with a comma at its end (sky/backends/task_codegen.py RayCodeGen:
# name_str = '{task_name},' or 'task,' on one node, f'{node_name}, rank={rank},' on several), so its output reads:
# (task, pid=201122) torch.cuda.is_available(): False      (skypilot-org/skypilot#2510)
# (head, rank=0, pid=2898911) Starting Ray cluster...      (skypilot-org/skypilot#8604; a worker's on another node ends
#   with Ray's ', ip=<ip>')
_RAY = re.compile(r"\n(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} (?=\())?"
                  r"(?:\((?:[\w.:/-]+(?:\([\w.:/-]+(?:\([\w.:/-]+\))?\))?,?(?: [\w.=-]+,?)? )?pid=\d+(?:, ip=[\w.:-]+)?\) ?)+")
# [default0]:[rank0]: torch.distributed.DistBackendError: NCCL error in: ...   (torchrun --tee; PyTorch >= 2.2)
# (not the failure table's "[1]:" nor NCCL's "[0] " device index)
# (torchrun's "[default0]:" is followed by the line as the worker printed it, its indentation
# kept: an nvidia-smi -q report under it stays nested; PyTorch's "[rank0]: " takes one blank)
_RANK_LABEL = re.compile(r"\n(?:\[default\d+\]:|\[rank\d+\]:[ \t]?)+")
_GLOBAL_LABEL = re.compile(r"\[rank(\d+)\]:")
# 2021-08-13 10:46:03 - INFO - torch.distributed.elastic.agent.server.api - [default] Starting worker group   (Doc2EDAG#24)
# 2024-05-01 10:00:00,123 - trainer - INFO - ...      ERROR:torch.distributed.elastic.multiprocessing.api:failed ...
# [2026-01-04 21:33:04] test-...-master-0:617:2799 [3] transport/net_ib.cc:2360 NCCL WARN NET/IB: Got completion ...  (sichek#44)
# 2023-04-15 22:25:49 INFO [__main__] [2023-04-15 22:25:49,992] [INFO] [launch.py:229:main] WORLD INFO DICT: {'localhost': [3, 5]}
#   (deepspeedai/DeepSpeed#3262: DeepSpeed's launcher relayed by a logger set up as databrickslabs/dolly training/trainer.py
#   does, logging.basicConfig(format="%(asctime)s %(levelname)s [%(name)s] %(message)s", datefmt="%Y-%m-%d %H:%M:%S");
#   the launcher's own "[<asctime>] [LEVEL] " comes off on the next pass)
# vLLM's logger on every line of a message, a traceback's too (vllm/logger.py _FORMAT, datefmt "%m-%d %H:%M:%S";
# "%(filename)s:%(lineno)d]" up to 0.6, "[%(filename)s:%(lineno)d]" later), its worker tag stripped above:
# ERROR 07-24 08:26:01 multiproc_worker_utils.py:226]   File ".../vllm/worker/worker.py", line 132, in init_device   (vllm#6732)
# ERROR 04-14 13:46:59 [multiproc_executor.py:857]     return GroupCoordinator(                                     (vllm#39774)
_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)"
# SGLang's processes log through the same stamp with their ranks inside it (python/sglang/srt/utils configure_logger:
# format=f"[%(asctime)s{prefix}] %(message)s", datefmt "%Y-%m-%d %H:%M:%S"; the scheduler's prefix, managers/scheduler.py
# run_scheduler_process: " DP<n>", " PP<n>", " ATTN_CP<n>", " MOE_DP<n>", " TP<n>", " EP<n>", each where that size > 1):
# [2025-09-09 08:32:09 TP0 EP0] Decode batch. #running-req: 1, #token: 2625, token usage: 0.01, ...   (sgl-project/sglang#10216)
# [2025-11-10 19:59:09 TP1] Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB.   (sgl-project/sglang#12978)
_SGLANG_RANKS = r"(?: (?:DP|PP|TP|EP|ATTN_CP|MOE_DP)\d{1,5}){0,6}"
_PYLOG = re.compile(
    r"\n(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d{3})? - (?:[\w.<>-]+ - )?" + _LEVEL + r" - (?:[\w.<>]+ - )?"
    r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d{3})? " + _LEVEL + r" \[[\w.<>-]{1,200}\] "
    r"|" + _LEVEL + r":[\w.]+:"
    r"|" + _LEVEL + r" \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?:\[[\w./-]+\.py:\d+\]|[\w./-]+\.py:\d+\]) ?"
    r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?" + _SGLANG_RANKS + r"\] (?:\[" + _LEVEL + r"\] )?)"
)
# **docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].**   (nvidia-docker#1352)
# (the run that opens the line closes it; its run inside, or no blank in it: kept, see _emphasis)
_EMPHASIS = re.compile(r"\n(?P<d>\*{1,3}|_{1,3})(?P<body>[^\s*_][^\n]*?)(?P=d)[ \t]*(?P<cr>\r?)(?=\n)")
# every line indented alike (a markdown code block): the first line without ends the check.
# (Tabs deeper than the margin are the text's own structure: lspci -vvv, "\t\tLnkSta:\tSpeed 16GT/s")
_UNINDENTED = re.compile(r"\n[^ \t\n]")
_INDENTED = re.compile(r"[\r\n]*[ \t]")
_MARGIN = re.compile(r"\n([ \t]+)(?=[^ \t\n])")

# a terminal's colours kept by the copy: SGR escapes anywhere in a line (``dmesg --color=always``:
# "\x1b[32m[  12.345678] \x1b[0m\x1b[33mNVRM: \x1b[0m..."; journalctl's "\x1b[0;1;31m", systemd >= 256
# "\x1b[0;1;38:5:185m"; docker compose's "\x1b[36mtrainer-1  | \x1b[0m"), tput sgr0's "\x1b(B", and
# the same as the kernel log escapes them (util-linux#858):
# [49357.243822] user[31957]: \x1b[41mthis be in red\x1b(B\x1b[m but this in normal.
# and as rsyslog writes them (control characters as '#' and three octal digits, ESC = #033; vllm#1160):
# #033[2m#033[33m(raylet)#033[0m [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /
_ANSI = re.compile(r"(?:\x1b|\\x1b|#033)(?:\[[0-9;:]*[mK]|\([B0])")

# a kernel record of several lines as /dev/kmsg hands it out: one line, each newline (and tab) inside the record escaped
# (kernel/printk/printk.c msg_add_ext_text: 'if (c < ' ' || c >= 127 || c == '\\') p += scnprintf(p, e - p, "\\x%02x", c);'),
# as a reader of /dev/kmsg prints it (talosctl dmesg; the driver's one nv_printf of six lines, osinit.c
# print_unsupported, CONSTRUCTED from its format with Talos' prefix):
# node1: kern: warning: [2023-09-14T03:08:37.411164757Z]: NVRM: The NVIDIA GPU 0000:00:10.0 (PCI ID: 10de:1b38)\x0aNVRM: installed in this system is not supported by the\x0aNVRM: NVIDIA 535.54.03 driver release.\x0aNVRM: Please see ...
# read as the record's lines joined by a blank (line for line: the readers take a message pasted joined)
# (not one quoted: a program's repr of a byte, b'\x0a')
_KMSG_BREAK = re.compile(r"(?<!['\"])\\x0[9a](?!['\"])")

# one label on every line of a report (nvidia-smi -q, ibstat) run under a launcher or a logger,
# hiding the report's own indentation (a log's lines are read under any label by their readers):
# node01:     Remapped Rows              (pdsh / clush "host: ": a host name holding a digit)
# trainer-1  |     Remapped Rows         (docker compose cmd/formatter/logs.go "%-*s | ", the longest name + 1;
#                                          its names end in the container's index: "svc-1", v1 "proj_svc_1")
# Nov 29 18:30:18 gpu-node-3 nvidia-smi[4242]:     Remapped Rows     (syslog, journald short, -precise, -iso,
#   -unix: systemd logs-show.c; not the kernel's, which the kernel log's reader owns)
# a syslog / journald stamp: short (-precise), -iso (-precise) with its UTC offset, -unix, -full; short's month is the
# locale's abbreviation (strftime's %b), lowercase in some locales:
# nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox ...
#   (NVIDIA/gpu-operator#432)
# journalctl prints it in the reader's locale (systemd src/shared/logs-show.c output_short: strftime(buf, sizeof(buf),
# "%b %d %H:%M:%S", ...)), glibc's abmon: C "Dec", es_ES "dic", de_DE "Dez" / "Mär", fr_FR "déc." / "févr." / "août",
# ru_RU "дек", el_GR "Δεκ", fi_FI "joulu", zh_CN "12月", ja_JP " 6月" (padded), ko_KR "12월"; an nvidia-bug-report.log
# of a zh_CN host, grepped (ThreeStones1029/ThreeStones1029.github.io, _posts/2024-06-28-服务器nvidia-smi报错Unable to
# determine the device handle for GPU0000:C2:00.0: Unknown Error.md):
# 6月 28 02:52:53 jjf-Super-Server kernel: NVRM: Xid (PCI:0000:c2:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
# (the letters of the Latin, Greek and Cyrillic scripts written as themselves, not as escapes: RE2 reads the same class)
MONTH = "(?:[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]{2,6}\\.?|[ \\d]?\\d[\u6708\uc6d4])"
# journalctl -o short-full (logs-show.c format_timestamp: "%a %Y-%m-%d %H:%M:%S %Z"; the zone's abbreviation, or its
# offset where the zone has none):
# Tue 2025-03-04 10:11:12 CET gpu-node-3 python3[4242]: ...      (CONSTRUCTED from the format)
_FULL_STAMP = (r"[A-Za-z]{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?:[A-Z][A-Za-z]{1,5}|[+-]\d\d(?:\d\d)?)")
_JOURNAL_STAMP = (MONTH + r" [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:?\d\d"
                  r"|\d{9,10}\.\d{6}|" + _FULL_STAMP)
# pdsh's host given by its IPv4 address (a hostfile of addresses: DeepSpeed's launcher runs pdsh -w 10.0.0.6,10.0.0.7):
#   10.0.0.7: 719f2593e03a4bbc8d6dff88bf662002000003:97:97 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>   (Azure/azureml-assets#302)
_IPV4 = r"\d{1,3}(?:\.\d{1,3}){3}"
_LABEL = (  # (a host name's parts bounded: a long run of letters and digits without the colon is read once, not once a digit)
    r"(?:(?:[A-Za-z][\w.-]{0,127}\d[\w.-]{0,127}|" + _IPV4 + r"):"
    r"|[\w.-]*[-_]\d+ +\|"
    r"|(?:" + _JOURNAL_STAMP + r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) [\w.-]+ (?!kernel:)[\w.@/-]+(?:\[\d+\])?:)"
    r"(?: |(?=\r?\n))"
)
_REPORT_LABEL = re.compile(r"\n" + _LABEL)
#: journal tags whose readers read the tag itself (the kernel's lines: the kernel log's readers,
#: with their host and time; fabric_manager_log's _JOURNAL; nvidia_persistenced_log's _DAEMON; nvidia_gridd_log's _TAG)
OWN_TAGS = ("kernel", "nv-fabricmanager", "nvidia-fabricmanager-start.sh", "nvidia-persistenced", "nvidia-gridd")
# a syslog / journald label on a program's line, whatever the line holds: a service's output in
# the journal (a vLLM or SGLang server, a job's prolog, nccl-tests run by a unit) reads as its
# lines do bare; one blank, journald's own, goes with it (the line's own indentation stays). Not
# after an RFC 3339 time in Z (a container's stamp: "...Z Last error:" is a message), and a tag
# without its [pid] only before a message (a "Word word:" line ending there is prose)
# Nov 29 18:30:18 gpu-node-3 python3[4242]: [rank0]:[E1129 18:30:18.123] Watchdog caught collective operation timeout
# 2026-11-29T18:32:13+0000 node17 sglang[981]: # Avg bus bandwidth    : 33.3227
_NOT_OWN_TAG = r"(?!(?:" + "|".join(map(re.escape, OWN_TAGS)) + r")(?:\[\d+\])?:)"
# journalctl -o short-monotonic: the monotonic clock in brackets (systemd logs-show.c "[%5llu.%06llu]"), then the
# host and tag; only a tag with its [pid] (a kernel line of dmesg, "[    4.5] usb 1-1: new device", looks alike):
# [   20.888224] localhost systemd[1]: Hostname set to <localhost>.         (systemd/systemd#30054)
_MONOTONIC = r"\[ {0,12}\d{1,12}\.\d{6}\] [\w.-]+ "
_JOURNAL = re.compile(
    r"\n(?:(?:" + _JOURNAL_STAMP + r") [\w.-]+ " + _NOT_OWN_TAG +
    r"[\w.@/-]+(?:\[\d+\]:(?: |(?=\r?\n))|: (?=\S))"
    r"|" + _MONOTONIC + _NOT_OWN_TAG + r"[\w.@/-]+\[\d+\]:(?: |(?=\r?\n)))"
)
# RFC 5424 syslog as rsyslog writes it with its RSYSLOG_SyslogProtocol23Format template (runtime/rsconf.c:
# "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%"), also
# the format of syslog-ng's and journald-remote's RFC 5424 outputs: PRI, version 1, time (or "-"), host, app,
# procid, msgid (each "-" when absent), structured data ("-" or [id param="value"]...), then the message.
# The whole header goes, the kernel's too (its messages read as dmesg -t prints them):
# <34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed for lonvick on /dev/pts/8
#   (RFC 5424 section 6.5, example 1, its BOM left out)
_RFC5424 = re.compile(
    r"\n<\d{1,3}>1 (?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)|-)"
    r" [!-~]{1,255} [!-~]{1,48} [!-~]{1,128} [!-~]{1,32} (?:-|(?:\[[^\]\n]{0,1000}\]){1,20})(?: |(?=\r?\n))"
)
_UNLABELLED = re.compile(r"\n(?=[ \t\r]*[^\s])(?!" + _LABEL + ")")
_LABELLED_INDENT = re.compile(r"\n" + _LABEL + r"[ \t]")

# One launcher's label on every line of a text that is no report (a log, a table, a command's output), whatever
# the line holds: pdsh / clush's host (pdsh src/pdsh/dsh.c rsh(): out("%S: %s", a->host, buf), an empty line as
# "host: "), docker compose's service (cmd/formatter/logs.go "%-*s | ", v2 "svc-1", v1 "proj_svc_1"):
#   webui-docker-auto-1  | Mounted .cache           (AbdBarho/stable-diffusion-webui-docker#388)
#   bug_1  | initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2     (pytorch/pytorch#73790)
# Such a label looks like a kernel device's ("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, ..."), so
# it is only offered (without_line_labels): the caller takes it off where more readers then read the text
# (engine/parse_pool.py parse_one); a report's label (indented lines under it) goes in _strip already.
# A container with a fixed ``container_name`` has no index: compose pads every name to the longest + 1 and
# writes " | " (setPrefix's "%-*s | "), so two blanks at least stand before the bar, and every label's bar in
# one column (a column that moves is no compose output: a table's cells, a hand-aligned list):
#   scalellm          | ./entrypoint.sh: line 28:     7 Killed                  LD_LIBRARY_PATH=...   (vectorch-ai/ScaleLLM#38)
_NAMED = r"[A-Za-z0-9][\w.-]{0,62}  {1,63}\|"
_LAUNCHER = r"(?:(?:[A-Za-z][\w.-]{0,62}\d[\w.-]{0,62}|" + _IPV4 + r"):|[\w.-]{0,62}[-_]\d{1,4} {1,64}\||" + _NAMED + ")"
_LINE_LABEL = re.compile(r"\n" + _LAUNCHER + r"(?: |(?=\r?\n))")
# compose's own status line between its labelled ones, unlabelled (logs.go Status: "%s%s %s\n", container, msg;
# the container's name as its label gives it), kept as it is:
#   scalellm exited with code 137          (vectorch-ai/ScaleLLM#38)
_COMPOSE_STATUS = r"[\w.-]{1,63} exited with code \d{1,3}\r?(?=\n)"
_LINE_UNLABELLED = re.compile(r"\n(?=[ \t\r]*[^\s])(?!" + _LAUNCHER + r"(?: |\r?\n)|" + _COMPOSE_STATUS + ")")
_STATUS_NAME = re.compile(r"\n([\w.-]{1,63}) exited with code \d{1,3}\r?(?=\n)")
#   (a label with compose's index, "svc-1  | ", is left out of that column test, as before)
_NAMED_LABEL = re.compile(r"\n(?![\w.-]{0,62}[-_]\d{1,4} )(?:" + _NAMED + r")(?= |\r?\n)")
_COMPOSE_NAME = re.compile(r"\n([\w.-]{1,63}) +\|(?= |\r?\n)")


# An issue's title saved as a file (``title.txt``, ``issue_title.md``: a ticket's fields as saved) may start with its
# issue template's tag, the template's "title:" default that the reporter typed after:
#   title: "[Bug]: "            (vllm-project/vllm .github/ISSUE_TEMPLATE/400-bug-report.yml; "[Usage]: ", "[Installation]: ",
#                                "[Performance]: " its other templates)
#   [Bug]: RuntimeError: CUDA error: invalid configuration argument        (vllm-project/vllm#16566, its title)
#   [BERT/TF2] ...  /  doc(nvidia/error/xid): ...                          (a project's area tag, a commit's type)
# The tag is the template's, no part of what a program printed: it comes off the title's line before the readers see
# it (Artefact.normalise), as a launcher's label does. Tags run into one another ("[Bug][ROCm] "); the last is followed
# by a colon or a blank. Not a program's level or logger tag: "[ERROR]", "[TM][FATAL]", "[TensorRT-LLM][ERROR] Failed"
# (a tag followed by a level's), "[E ProcessGroupNCCL.cpp:474]" (a colon inside), "[rank0]:" / "[Rank 1]" (a rank).
_TITLE_NAME = re.compile(r"^(?:issue[_-]?)?title$", re.I)
_TAG = r"\[(?!(?:ERROR|FATAL|CRITICAL|WARN|WARNING|E|F|W)\]|[Rr]ank ?\d)[^\]:\n]{1,30}\]"
TITLE_TAG = re.compile(r"^\s*(?:" + _TAG + r"[ \t]*)*" + _TAG + r"(?:[ \t]*:[ \t]*|[ \t]+)"
                       r"|^\s*[a-z]{2,10}\([^)\n]{1,40}\)!?:[ \t]+")


def is_title(path: str) -> bool:
    """Whether the file's name says it holds an issue's title (``title.txt``, ``issue_title.md``)."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    return _TITLE_NAME.search(stem) is not None


def without_title_tag(text: str) -> str:
    """``text`` (an issue's title) with its template's tag off its first non-blank line, the line's number kept;
    the same object where it has none."""
    start = len(text) - len(text.lstrip())
    start = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    m = TITLE_TAG.match(text, start, end)
    if m is None or m.end() == end:  # (a tag alone is the title: nothing after it to read)
        return text
    return text[:start] + text[m.end():]


def without_line_labels(text: str) -> str | None:
    """``text`` without the launcher label (pdsh's host, compose's service) every non-blank line of it
    carries, line for line; None where a line has none (or the text none at all). Compose's own
    "<container> exited with code N" lines, of a container a label names, stay as they are; labels
    without compose's index ("name  | ") count only with their bars in one column."""
    if _LINE_LABEL.match("\n" + text[:200]) is None:
        return None
    out = "\n" + text + "\n"
    if _LINE_UNLABELLED.search(out, 0, len(out) - 1) is not None:
        return None
    if "exited with code" in out:
        names = {m[1] for m in _COMPOSE_NAME.finditer(out)}
        if any(m[1] not in names for m in _STATUS_NAME.finditer(out)):
            return None
    if len({len(m[0]) for m in _NAMED_LABEL.finditer(out)}) > 1:
        return None
    return _LINE_LABEL.sub("\n", out)[1:-1]


# pdsh / clush over several hosts (pdsh src/pdsh/dsh.c: every line of a host's output as "host: line"; DeepSpeed's
# multi-node launcher runs pdsh: its lines come the same way), the hosts' lines interleaved as they arrive:
#   gpu-node01: [1226513.120345] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
#   gpu-node02: [1226590.332110] NVRM: Xid (PCI:0000:3b:00): 13, pid=1762, name=python, Graphics Exception: ESR ...
# (CONSTRUCTED from the forms above, wild sweep rK6's probe). Each host is its own node: its lines are read apart
# (engine/parse_pool.py parse_one), so that a finding names the host that printed its line and one host's log is
# not read as the continuation of another's (a kernel log's timestamps going back read as a reboot). A label that
# names a kernel device, an interface or a rank on every line ("nvidia-nvswitch0: ", "eth0: ", "rank1: ") is no host;
# a zero-padded number is a host's ("gpu003: ", hiyouga/LlamaFactory#2470), no index a program prints. The kernel's
# libata ports and their devices label their lines alike under dmesg -t ("ata1: SATA link up 6.0 Gbps", "ata1.00:
# ATA-10: ..."): no hosts either.
_PDSH_HOST = re.compile(r"\n([A-Za-z][\w.-]{0,62}\d[\w.-]{0,62}|" + _IPV4 + r"):(?: |(?=\r?\n))")
_NOT_HOST = re.compile(
    r"(?:rank|local_rank|node_rank|gpu|cuda|device|dev|tp|pp|dp|proc|process|thread|cpu|eth|ib|bond|br|wlan|docker|nvme"
    r"|nvidia|nvidia-nvswitch|mlx\d|scsi|usb|input|loop|md|mmc|hwmon|rtc|card)[-_]?(?:0|[1-9]\d{0,5})(?:n\d{1,3})?"
    r"|ata\d{1,3}(?:\.\d{2})?|en[ospx]\w{1,20}|veth\w{1,20}", re.I)


def line_hosts(text: str, least: int = 2) -> list[str | None] | None:
    """pdsh's host on each line of ``text`` (None on a blank line), where every non-blank line carries pdsh's
    "host: " label and ``least`` hosts or more are named; None otherwise (fewer hosts, compose's labels, a line
    without a label, a label that names a device, an interface or a rank)."""
    if _PDSH_HOST.match("\n" + text.lstrip()[:130]) is None:  # (the first line tells most texts apart)
        return None
    hosts: list[str | None] = []
    names: set[str] = set()
    for line in text.split("\n"):
        if not line.strip():
            hosts.append(None)
            continue
        m = _PDSH_HOST.match("\n" + line)
        if m is None:
            return None
        hosts.append(m[1])
        names.add(m[1])
    if len(names) < least or any(_NOT_HOST.fullmatch(n) for n in names):
        return None
    return hosts


def text_host(text: str) -> str | None:
    """The one host pdsh's label names on every non-blank line of ``text`` ("b1360: [14280.445220] mlx5_core ...",
    openucx/ucx#7738's dmesg over pdsh), None otherwise: the node a pasted text of one host is, where nothing else
    places it (engine/parse_pool.py parse_one)."""
    hosts = line_hosts(text, least=1)
    names = set(hosts or ()) - {None}
    return names.pop() if len(names) == 1 else None


# DeepSpeed's multi-node launcher logs its own lines unlabelled, then runs pdsh (deepspeed/launcher/runner.py
# logger.info(f"cmd = {' '.join(cmd)}"), multinode_runner.py PDSHRunner: "pdsh -S -f 1024 -w host1,host2 ..."), whose
# hosts' lines follow, each under its host (hiyouga/LlamaFactory#2470, two hosts):
#   [2024-02-11 22:35:50,101] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w gpu003,gpu004 ...   (CONSTRUCTED)
#   gpu003: [2024-02-11 22:36:22,106] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 275125
#   gpu003: Traceback (most recent call last):
# pdsh's own complaints stand among them under its own name (src/pdsh/dsh.c: "%p: %S: %s exited with exit code
# %d", %p "pdsh@" and the local host): "pdsh@gpu003: gpu004: ssh exited with exit code 1".
_PDSH_OWN = "pdsh@"


# One or two lines of one host under pdsh's label, pasted as a block of their own below another capture (a ticket's
# nvidia-smi table, then `pdsh -w gpu-node07 'sinfo -R; scontrol show node'`'s lines: pdsh src/pdsh/dsh.c rsh()
# writes each as out("%S: %s", a->host, buf)):
#   gpu-node07: gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0        (harvest 703's sinfo -R row and
#   gpu-node07: State=IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG                            scontrol line, CONSTRUCTED label)
# are offered without the label as a longer run is: read with it, no reader's line pattern (anchored at the line's
# start) read them, and the paste read INCONCLUSIVE where the bare lines read the drained node (round rN4's probe).
# Only where the run is a block of its own (an empty line or the text's end on both sides: "Step1: ..." inside a
# paragraph is no paste of pdsh's) and names one host (two hosts' two lines are not split apart: a model's name
# before a colon, "A100: 80GB" / "H100: 94GB", would name nodes); parse_one takes the label off only where the
# readers then read more (engine/parse_pool.py), the file's node kept.
def _own_block(lines: list[str], first: int, last: int) -> bool:
    """Whether lines ``first``..``last`` (0-based) stand between empty lines or the text's ends."""
    return (first == 0 or not lines[first - 1].strip()) and (last + 1 >= len(lines) or not lines[last + 1].strip())


def run_hosts(text: str) -> tuple[list[str | None], str] | None:
    """pdsh's host on each line of the one run of labelled lines in ``text`` (None on a blank line and on every line
    outside the run or pdsh's own), and ``text`` without the labels, line for line; where the run holds three labelled
    lines or more (or one or two of one host, a block of their own: _own_block), and every non-blank line from its
    first label to its last carries one or is pdsh's own ("pdsh@host: "); None otherwise (line_hosts' text, labelled throughout, is not asked here). One host's run is offered as a
    launcher's label over a whole text is (engine/parse_pool.py: taken off where its readers then read more)."""
    lines = text.split("\n")
    hosts: list[str | None] = [None] * len(lines)
    first = last = -1
    for i, line in enumerate(lines):
        m = _PDSH_HOST.match("\n" + line) if line[:1].isalnum() else None
        if m is not None:
            hosts[i] = m[1]
            first = i if first < 0 else first
            last = i
    names = set(hosts) - {None}
    if not names or any(_NOT_HOST.fullmatch(n) for n in names):
        return None
    if sum(h is not None for h in hosts) < 3 and (len(names) > 1 or not _own_block(lines, first, last)):
        return None  # (one or two labelled lines: one host's, pasted as a block of their own)
    if any(hosts[i] is None and lines[i].strip() and not lines[i].startswith(_PDSH_OWN) for i in range(first, last + 1)):
        return None
    bare = [ln[len(h) + 1:].removeprefix(" ") if h is not None else ln for ln, h in zip(lines, hosts)]
    return hosts, "\n".join(bare)


# pdsh's output gathered by dshbak (pdsh scripts/dshbak: each host's lines, or with -c the lines of every group of hosts
# that printed the same, under a header of a dashed row, the host or the hosts' list compressed, a dashed row; each line
# as pdsh gave it after the host's colon, its blank kept; issue 11, round rS1):
#   print("----------------\n"); printf("%s\n", join(",", compress(sort(@identical, $tag)))); print("----------------\n");
# ----------------
# jazz[04,08,11-32]
# ----------------
#  link_layer: Ethernet                         (CONSTRUCTED from dshbak's format: session 43's openucx/ucx#2346 pasted
#                                                 `pdsh -w jazz[...] ibv_devinfo -d mlx5_1 | grep link_layer | dshbak -c`)
# The host (or the hosts' list, "node[01-04]", "gpu7,node[01-03]": the group that printed them) of each block is the node
# its lines are read as (engine/parse_pool.py _per_host), the headers blank, line for line; the lines above the first
# header the text's own. Only where the text holds a header of that form whose block is not empty.
_DSHBAK_RULE = "-" * 16
_DSHBAK_HOSTS = re.compile(r"[A-Za-z0-9][\w.-]{0,62}(?:\[[\d,-]{1,200}\][\w.-]{0,62})?(?:,[A-Za-z0-9][\w.-]{0,62}"
                           r"(?:\[[\d,-]{1,200}\][\w.-]{0,62})?){0,63}")


def dshbak_hosts(text: str) -> tuple[list[str | None], str] | None:
    """dshbak's host (or hosts' list) of each line of ``text`` (None on its headers, blank lines and the lines above its
    first header), and ``text`` with the headers blank and the blank dshbak kept before each line off, line for line;
    None where no dshbak header heads a block."""
    if "\n" + _DSHBAK_RULE not in "\n" + text:
        return None
    lines = text.split("\n")
    hosts: list[str | None] = [None] * len(lines)
    bare = lines[:]
    host, found, i = None, False, 0
    while i < len(lines):
        row = lines[i].rstrip("\r")
        if row == _DSHBAK_RULE and i + 2 < len(lines) and lines[i + 2].rstrip("\r") == _DSHBAK_RULE \
                and _DSHBAK_HOSTS.fullmatch(lines[i + 1].strip()) is not None:
            host = lines[i + 1].strip()
            for k in (i, i + 1, i + 2):
                bare[k] = "\r" if lines[k].endswith("\r") else ""
            i += 3
            continue
        if host is not None and row.strip():
            hosts[i] = host
            found = True
            bare[i] = lines[i][1:] if lines[i].startswith(" ") else lines[i]
        i += 1
    if not found or any(_NOT_HOST.fullmatch(h) for h in set(hosts) - {None}):
        return None
    return hosts, "\n".join(bare)


# docker compose's label on a run of lines inside a text that holds other lines too: a ticket pastes the
# host's nvidia-smi table, then `docker compose logs` of the job (cmd/formatter/logs.go "%-*s | ": every
# name padded to the longest + 1, so one column of bars; v2 names "svc-1", v1 "proj_svc_1", or a fixed
# container_name without an index, then two blanks at least before the bar):
#   trainer-1  | # Avg bus bandwidth    : 2.34598          (below a pasted nvidia-smi table: the footer unread,
#                                                            the table's GPUs read HEALTHY; rF5's probe)
# Only compose's label, not pdsh's "host: " (a kernel device's, an ifconfig's "eth0: " look alike), and only
# over a run of two lines or more whose bars stand in one column and whose labels repeat a name (a table's
# first cells, "node-1   | 8 |", "node-2   | 8 |", are all different), and not where every line of the run has
# another bar after it (a table's row, whose first cells may repeat: ipmitool sdr's
# "Temp             | 01h | ns  |  3.1 | Disabled", fixtures/artefacts/ipmitool_sdr/dell36_sdr_elist_all.txt).
_BLOCK_LABEL = re.compile(r"^(?P<name>[\w.-]{0,62}[-_]\d{1,4} {1,64}|[A-Za-z0-9][\w.-]{0,62}  {1,63})\|(?: |(?=\r?$))", re.M)


def without_block_labels(text: str) -> str | None:
    """``text`` with compose's service label off each run of lines that carries it (two lines or more, the
    bars in one column, a name repeated), the other lines as they are, line for line; None where no run does."""
    runs: list[list[tuple[int, int, str, int, bool]]] = []  # (start, label end, name, bar column, a bar after)
    prev_eol = -2
    for m in _BLOCK_LABEL.finditer(text):
        start, end = m.span()
        eol = text.find("\n", end)
        eol = len(text) if eol == -1 else eol
        hit = (start, end, m["name"].rstrip(), len(m["name"]), text.find("|", end, eol) != -1)
        if runs and start == prev_eol + 1:  # the line right below the last labelled one
            runs[-1].append(hit)
        else:
            runs.append([hit])
        prev_eol = eol
    keep = [run for run in runs if len(run) >= 2 and len({h[3] for h in run}) == 1
            and len({h[2] for h in run}) < len(run) and not all(h[4] for h in run)]
    if not keep:
        return None
    out, last = [], 0
    for run in keep:
        for start, end, _name, _col, _bar in run:
            out.append(text[last:start])
            last = end
    out.append(text[last:])
    return "".join(out)


# The CloudWatch Logs console's event table copied: the column separator before every row after the first (the copy
# starts inside the first row's cell), each row the program's line:
# 2020-09-21 11:24:10,359 [INFO ] pool-1-thread-3 ACCESS_LOG - /127.0.0.1:32868 "GET /ping HTTP/1.1" 200 0
#   | 2020-09-21 11:24:15,359 [INFO ] pool-1-thread-3 ACCESS_LOG - /127.0.0.1:32868 "GET /ping HTTP/1.1" 200 0
#   (aws/sagemaker-inference-toolkit#70). Only over a text whose every row after the first has it, and not as a table's
#   rows that all end in "|" too (a markdown table, an indented nvidia-smi table)
_CLOUDWATCH_ROW = re.compile(r"\n[ \t]{1,4}\|[ \t]")


def _cloudwatch_column(out: str) -> str:
    """``out`` (newline-framed) without the console's column, when its rows carry it (else ``out``)."""
    first = out.find("\n", 1)
    rows = [r for r in out[first:-1].split("\n") if r.strip()]
    if len(rows) < 2 or sum(1 for _ in _CLOUDWATCH_ROW.finditer(out, first)) < len(rows) \
            or all(r.rstrip().endswith("|") for r in rows):
        return out
    return _CLOUDWATCH_ROW.sub("\n", out)


# transport/[net_ib.cc:101](http://net_ib.cc:101/)     peer [10.1.3.201](http://10.1.3.201/)<33057>   (nccl#1710)
_AUTOLINK = re.compile(r"\[(?P<text>[^\]\n]{1,200})\]\(https?://(?P=text)/?\)")

# A progress bar drawn without a newline shares its line with the next line written (issue 11): tqdm ends each
# refresh with "\r" (or nothing, where stderr is a file) and a log record written after it follows on the same line,
# its own stamp no longer at the line's start (real lines: sgl-project/sglang#15598, #7324, CarperAI/trlx#342):
#   DeepGEMM warmup:   2%|█▌      | 11/512 [01:09<57:05,  6.84s/it][2025-12-22 11:36:30 TP1 EP1] Scheduler hit an exception: ...
#   Capturing batches (avail_mem=7.08 GB):   0%|          | 0/17 [00:00<?, ?it/s]2025-06-25 11:25:59,453 - INFO - flashinfer.jit: ...
# tqdm's right part (tqdm/std.py format_meter: r_bar = '| {0}/{1} [{2}<{3}, {4}{5}]'.format(n_fmt, total_fmt,
# elapsed_str, remaining_str, rate_fmt, postfix); rate_fmt '{0:5.2f}{unit}/s' or '{0:5.2f}s/{unit}' or '?{unit}/s',
# postfix ', ' + postfix; format_interval 'mm:ss' or 'h:mm:ss'; format_sizeof's '4.97G' where unit_scale; vLLM's
# and SGLang's weight loaders' _BAR_FORMAT "{desc}: {percentage:3.0f}% Completed | {n_fmt}/{total_fmt}
# [{elapsed}<{remaining}, {rate_fmt}]\n" keeps it, and its newline) is the bar's end; where a
# log line's own prefix starts right after it, the bar goes and the line is the log line's (one line for one line: the
# line as read keeps the bar, Artefact.raw_line). A "\r" inside a line is a terminal's overwrite: where the text after
# the last one is a log line (or the last refresh glued to one), that is the line. A bar alone, a bar followed by
# anything else, and a "\r" before anything else stay as they are. tqdm's bar of an unknown total (a generator, an
# iterable without len: PyTorch Lightning's 'Sanity Checking: 0it [00:00, ?it/s]', datasets' '0 examples [00:00,
# ? examples/s]') ends alike without its total and remaining time: format_meter's "no total" return,
# '{0}{1} [{2}, {3}{4}]'.format(n_fmt, unit, elapsed_str, rate_fmt, postfix), tqdm 4.x), its count standing alone
# (not '5/8', which no tqdm prints without '<'). A rate's unit may open with a blank (unit=" examples").
_INTERVAL = r"(?:\d{1,6}:)?\d\d:\d\d"
_RATE = r"[^\s\],/]{0,40}(?: [^\s\],/\d][^\s\],/]{0,39})?/ ?[^\s\],]{1,40}(?:, [^\]\n]{0,400})?\]"
_BAR_END = (r"(?:[\d.]{1,20}[kMGTPEZY]?/[\d.]{1,20}[kMGTPEZY]? \[" + _INTERVAL + r"<(?:" + _INTERVAL + r"|\?), +" + _RATE
            + r"|(?<![\w./])\d[\d.]{0,19}[kMGTPEZY]?(?: ?[^\s\d\[\]/,<][^\s\[\]/,<]{0,39})? \[" + _INTERVAL + r", +" + _RATE + ")")
# the log prefixes a glued line is split before, each its reader's (the stamps and tags _strip and the readers know):
# [2025-11-02 10:12:13 TP0] / [2023-04-15 22:25:49,992] [INFO]   (SGLang's and DeepSpeed's stamps, a collector's)
# 2024-05-01 10:00:00,123 - trainer - INFO - / 2023-09-12T08:14:05.000000001Z   (Python logging's asctime, ISO times)
# INFO 08-11 10:45:36 [core.py:1102]   (vLLM)   (VllmWorker rank=1 pid=2699412) / (VllmWorker PP0_TP0 pid=4797) / (RayWorkerWrapper pid=581, ip=...)
# [rank0]: / [default0]:   (PyTorch, torchrun)        I0912 08:14:05.123456   (glog)
# node201:127799:127863 [0] NCCL INFO ...   (NCCL)   Traceback (most recent call last):   (Python)
_GLUED_PREFIX = (r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|" + _LEVEL + r" \d\d-\d\d \d\d:\d\d:\d\d"
                 r"|\([\w.:/-]{1,200},?(?: [\w.=-]{1,60},?)? pid=\d{1,9}[,)]|\[(?:rank|default)\d{1,6}\]:"
                 r"|[IWEF]\d{4} \d\d:\d\d:\d\d|[\w.-]{1,200}:\d{1,9}:\d{1,9} \[\d{1,4}\] NCCL "
                 r"|Traceback \(most recent call last\):")
_GLUED_BAR = re.compile(_BAR_END + r"(?=" + _GLUED_PREFIX + ")")
_LOG_START = re.compile(_GLUED_PREFIX)
#: the gate (one RE2 pass, after a substring test): a bar's end or a "\r" followed by a log prefix. A member of the
#: classifier's set too (facts/classify.py), so a file it scanned is not scanned again for it (normalise's ``glued``)
_GLUE_DFA = re2.compile(r"(?:\]|\r)(?:" + _GLUED_PREFIX + ")")
GLUE_GATE = _GLUE_DFA


# A terminal UI's pane copied with its frame: k9s's log view (a kubectl logs stream in a box, each row padded to the
# pane's width; a longer line cut at the border), read with the frame off (awslabs/amazon-eks-ami#1618, the NVIDIA
# device plugin's log copied from k9s):
# │ E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected                                                                 │
# Only a row whose one "│" pair is its first and last character (blanks aside): a table's rows ("│ GPU │ Name │") and a
# tree's ("│   ├── lib") keep theirs. The body is empty or ends in a character that is no blank, taken greedily: the
# same match as a lazy body before "[ \t]*│", in one pass over a row (a lazy body rescans the padding after each of
# its characters: a row of 16,000 blanks without its closing border took 0.7 s, quadratic in the padding)
_PANE_ROW = re.compile(r"^[ \t]*\u2502[ \t](?P<body>(?:[^\u2502\n]*[^\u2502\n \t])?)[ \t]*\u2502[ \t]*(?P<cr>\r?)$", re.M)


def _unframed(text: str) -> str:
    """``text`` with the pane frame off its framed rows, where two rows or more are framed (else ``text``):
    one pass, its count deciding (no row framed: ``text`` itself comes back from it)."""
    out, framed = _PANE_ROW.subn(r"\g<body>\g<cr>", text)
    return out if framed >= 2 else text


def _unglued(text: str) -> str:
    """``text`` with each line that a progress bar's last refresh (or a terminal's overwrite, "\\r") was glued
    to read from the log line's prefix on (see _BAR_END): ``text`` itself where there is none. Only the lines
    the gate's pass finds are looked at."""
    if not ("]" in text or "\r" in text):  # (what the gate's every hit holds; a caller the classifier answered comes not here)
        return text
    parts: list[str] = []
    pos = seen = 0
    for g in _GLUE_DFA.finditer(text):
        if g.start() < seen:  # another hit on a line already looked at
            continue
        start = text.rfind("\n", 0, g.start()) + 1
        end = text.find("\n", g.start())
        end = seen = len(text) if end == -1 else end
        body = text[start:end - 1] if text[end - 1:end] == "\r" and end > start else text[start:end]
        k = body.rfind("\r")
        seg = body[k + 1:]
        m = _GLUED_BAR.search(seg) if " [" in seg else None
        if m is not None:
            seg = seg[m.end():]
        elif k < 0 or _LOG_START.match(seg) is None:
            continue
        parts.append(text[pos:start])
        parts.append(seg)
        pos = start + len(body)  # (the line's own "\r" before its newline stays)
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


#: literal gates: a text holding none of these has no wrapper, and is returned as it is
_GATES = ("`", ">", '"', "\u201c", "<std", ">1 ", ": ", "Z ", '{"log":', "[pod/", "pid=", "]:", " - ", "] ", " | ", "\n*", "\n_",
          "##[", "Z\t", ":00 ", ":00\t", ":30 ", ":30\t", ":45 ", ":45\t")  # (the last: a time's UTC offset, then a blank or a tab)
#: one scan that says whether any line starts like a wrapper (most files: none, and no more work)
_ANY = re.compile(
    r"\n(?:[ \t]{0,3}>|[ \t]*`|[\"\u201c]|\[\d+(?:,\d+)?\]<|" + _CTIME + r"[\[<]|\d{1,5}: |\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d|\{\"log\":|\x1e?[ \t]*(?:\[[ \t]*)?\{ ?\"|[ \t]{0,16}\"(?:MESSAGE|message|log|line)\" ?: ?\"|\"?(?:@timestamp|_?time|[Tt]ime(?:stamp)?|[Dd]ate)\"?,|\[pod/|\([\w. =():/,-]*pid=\d"
    r"|\d{13}\t\d{4}-|\[(?:default|rank)\d|\[\d{4}-|(?:\*{1,3}|_{1,3})[^\s*_]|" + _LEVEL + r"[: ]|(?:DEFAULT|NOTICE|ALERT|EMERGENCY)[ \t]+\d{4}-"
    r"|[^`\n]*`(?:[\w.-]+(?:\[\d+\])?: (?:error|fatal): |[A-Za-z_][\w.]*(?:Error|Exception): |[\w.-]+:\d+:\d+ \[\d+\] NCCL "
    r"|(?:\[ *\d+\.\d+\] )?NVRM: |NVIDIA-SMI has failed )"  # (_PROSE_TICK's spans, unbounded: one DFA state a run)
    r"|[ \t]{1,4}\|[ \t]|<\d{1,3}>1 |" + _MONOTONIC + r"[\w.@/-]+\[\d+\]:|##\[|[^\t\n]+\t[^\t\n]+\t\d{4}-\d\d-\d\dT|" + _LABEL + ")"
)
#: _ANY for RE2 (a DFA: its ~20 alternatives cost one pass, where ``re`` tries each at every
#: newline): the look-aheads RE2 lacks dropped or made plain, so it finds a superset of _ANY's lines; only a
#: text it finds something in is searched by _ANY itself. Measured on a bench node's 20 files
#: (bench/synth_bundle.py, 1.3 MB, none wrapped; one run, VM busy): _ANY 40 ms, this 2.4 ms.
_ANY_DFA = re2.compile(_ANY.pattern.replace("(?!kernel:)", "").replace("(?=\\r?\\n)", "\\r?\\n")
                      .replace("\\u201c", "\u201c"))
#: one scan of the text as read that finds nothing where normalise has nothing to strip (it may
#: still join a terminal's cuts): no colour, no link, and no line _ANY_DFA finds (the text not
#: framed by newlines: its first line from \A, its last line up to \z). Measured on a bench
#: node's 40 files (busy VM): the three ``in`` scans, the framing copy and _ANY_DFA's pass cost
#: ~3 ms a node.
_PLAIN_DFA = re2.compile(r"\x1b|\\x1b|\\x0a|#033\[|\]\(http|(?:\A|\n)"
                        + _ANY_DFA.pattern.removeprefix("\\n").replace("\\r?\\n", "(?:\\r?\\n|\\r?\\z)"))
#: the same gate for a caller that runs it inside its own scan (facts/classify.py's set)
PLAIN_GATE = _PLAIN_DFA

# A terminal's copy cuts a line longer than the terminal into rows of its width W (issue 11): no
# row is longer than W, every row but a line's last is W columns, and a row that continues a line
# starts wherever the cut fell (real line of harvest 404, copied at 80 columns):
#   **hostname:26407:26474 NCCL INFO Call to connect returned Connection refused, re
#   trying...**
# A row of W columns is joined with the next when the text is cut at W: W a width terminals open
# with (80, the VT100's 132, ...), or one the text's longest rows share (a resized window), and
# the next row starts no record: no stamp, label, NCCL prefix, indentation, table rule, frame or
# capitalised word, and not the first word a record of the text starts with; a rule printed across
# the terminal and a table's rows (padded to one width) are lines of their own.
_TERMINAL_WIDTHS = frozenset((80, 100, 120, 132, 160, 200))
_MIN_WIDTH = 80  # terminals open 80 wide; a text wrapped narrower is a program's (Open MPI's help)
# ... or a narrow window's (a phone's terminal, a split pane): a wall of rows of one width under 80 whose cuts fall
# inside words, as no program's word wrap does (linux-surface/linux-surface#1884, dkms and dpkg copied 36 wide):
#   env NV_VERBOSE=1 make -j8 modules KE
#   RNEL_UNAME=6.17.1-surface-2
#   Error! Bad return status for module 
#   build on kernel: 6.17.1-surface-2 (x
#   86_64)
# taken only from _NARROW_MIN columns up, with _NARROW_WALL rows of the width at least, one of them cut inside a word
# (see _narrow_cut), and in a text without tabs or "\r" (whose rows' widths _joinable does not measure under 80)
_NARROW_MIN, _NARROW_WALL = 30, 3
# what a record's own first row starts with (any of these ends a wrapped line): an indentation
#   node1:1633:1633 [0] NCCL INFO ...   [ 4564.303884] NVRM: ...   2024-05-01T12:00:00Z ...   Nov 29 18:30:18 host ...
#   E1206 18:44:12.715298 ...   | GPU  Name ... |   +----+   10: <srun -l label>   (RayWorkerWrapper pid=581, ...)
#   ```   # nThread 1 ...   $ nvidia-smi   root@node1:~#   {"log": ...}   > quoted
#   libfabric:...:core:core:fi_getinfo_():1391<warn> ...   (libfabric's own log line, src/log.c "%s:%d:%ld:..." with
#     PACKAGE first; libfabric#12708: a 120-column line of it before the next one was joined with it)
#   mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, ...
#     (a kernel driver's message about a PCI device without its stamp, dev_printk's "%s %s: " of the driver and the
#     device: leptonai/gpud#1164's journal; a PCIe AER line 'pcieport 0000:00:03.0: AER: ...' pasted after an NCCL log
#     was joined with the log's widest row, two Trees lines of one length taken for a terminal's wall)
#   panic: More than one MIG device type present on node      (a Go program's last words, runtime/panic.go's "panic: ";
#     fixtures/artefacts/k8s_device_plugin/gpu_operator286_mig_single_strategy_panic_v0.log)
#   slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. ...   (Slurm's "<program>: error: ",
#     src/common/log.c; fixtures/artefacts/slurm_log/knet30_step_oom_killed.out)
#   time="2021-12-14T17:28:56Z" level=fatal msg="Error starting nv-hostengine: DCGM initialization error"   (logrus's
#     text formatter; fixtures/artefacts/dcgm_exporter_log/fatal_logrus_dcgmexporter34.log)
#   include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol   (NCCL <= 2.3's WARN,
#     file:line first; fixtures/artefacts/nccl_log/socket_creation_failed_old.log)
#   dcgm-exporter-bvzzq             0/1     CrashLoopBackOff   1          30s   (a table's row, three column gaps:
#     kubectl get pods; fixtures/artefacts/dcgm_exporter_log/gmt94_flag_env_value_not_int_pods_mixed.txt)
#   each pasted at half of an NCCL log (after its Trees lines) or of gpu-burn's progress rows was joined with the row
#   above it and read as the log's own text: the file HEALTHY (session 29 B4, fragment_audit --plant)
#   ERRO[0000] error waiting for container: context canceled      (logrus's text formatter on a terminal: its level's
#     first four capitals, the seconds since start; fixtures/artefacts/container_runtime/toolkit434_...txt, and
#     'FATA[0001] Error retrieving DCGM MIG hierarchy' of dcgm_exporter_log/version_mismatch_logrus_tty_...log)
#   nvidia-docker | 2017/12/21 05:04:46 Error: ...                 (a compose service's label: harvest 176's other.txt)
#   github.com/NVIDIA/go-dcgm/pkg/dcgm._Cfunc_dcgmGetCpuHierarchy(0x7fff...)   (a Go traceback's frame: its function,
#     package path first; go_runtime_crash/dcgm_exporter_cgo_sigsegv_dcgmexporter412.txt)
#   }                                                              (a JSON document's or a pretty-printed record's
#     closing brace or bracket alone on its row, its comma after it: journalctl -o json-pretty's record pasted below an
#     nccl-tests capture, its MESSAGE member the longest row, bench/plant_prefix_probe.py --prefixes rM2: the brace was
#     joined to the member, which was then read as a member no longer and its reader's line ended '"}')
#   each the row after a text's one longest row, which ends the text: read as that row's cut tail, it was joined to it
_RECORD_START = re.compile(
    r"$|[ \t]|[\[{|#]|[}\]],?[ \t]*\r?$|\+[-=]|>(?:[ \t]|$)|\$ |```|`[^`]*`[ \t]*$|\(\w[\w. =:/(),-]*pid=\d"
    r"|\d{4}[-/.]\d\d[-/.]\d\d|\d\d:\d\d:\d\d|[A-Za-z][a-z]{2} [ \d]\d \d\d:|[IWEF]\d{4} \d\d:\d\d"
    r"|[\w.-]+:\d+:\d+ \[\d+\]|\d{1,5}: |[\w.-]+@[\w.-]+:|libfabric:"
    r"|[\w-]{1,32} [0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: "
    r"|(?:panic|fatal error): |[\w.-]{1,64}(?:\[\d{1,10}\])?: (?:error|fatal): |time=\"|[\w./-]{1,200}\.\w{1,8}:\d{1,6} WARN "
    r"|(?:DEBU|INFO|WARN|ERRO|FATA|PANI|TRAC)\[\d{4}\] |[\w.-]{1,63} +\| |(?:[\w.-]{1,100}/){1,20}[\w-]{1,100}\.[\w.*()]{1,200}\("
)
# and what a record's first row starts with in words, as a cut row may too: these end a line at
# its first cut only (a line already cut goes on up to its shorter last row: "GiB is free",
# "Workers killed", "Error 802: system not yet initialized"); a word cut before a colon has no
# capital ("ismatch: unknown.", "ib/libtorch_cuda.so: undefined symbol"), a marker cut inside is
# in capitals only ("NCCL WA" / "RN NET/OFI Request ...")
_WORD_START = re.compile(
    r"Traceback |During handling |The above exception |File \"|(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Warning)\b"
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|NCCL|NVRM)\b"
    r"|(?![a-z][^\s:A-Z]*:)[A-Za-z_][^\s:]*:(?:[ \t]|$)|[A-Z][a-z][A-Za-z]* "
)
# a text every row of which starts a record by NCCL's prefix (_RECORD_START's "host:pid:tid [dev]"):
# no row continues a cut line, so _unwrap has nothing to join (it splits and measures every row: 0.3 ms
# of a 175 kB NCCL log). A member of the classifier's set (facts/classify.py gate()), answered in its pass:
#   node1:1633:1633 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
UNCUT_GATE = re2.compile(r"\A(?:[\w.-]+:\d+:\d+ \[\d+\][^\n]*(?:\n|\z))+\z")
# a row of _MIN_WIDTH columns or more (each group reaches the next tab stop: 8 columns, or up to 7
# and a tab, as str.expandtabs counts them) before a row a cut line could go on in (no blank or tab
# first, past one blank): without one, no row is joined. A tab-indented report has none: its wide
# rows come before indented ones (fixtures/observations/h200-x2/nvidia-smi/nvidia-smi-q.xml, line 111):
#   \t\t\t<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
#   \t\t\t<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
# A row with a "\r" inside is taken as wide whatever its length (str.expandtabs restarts its tab
# stops after it, the row's length goes on: a tab there may take more columns than counted here); a
# row's last "\r" counts one column, where _columns() drops it. So it finds every row _unwrap could
# join. For a text with tabs or "\r" only, whose rows' widths cost a pass each (str.expandtabs, then
# the rows of its copy split and measured: ~10 M instructions of a 214 kB nvidia-smi -q -x, where
# this is one DFA pass, ~3.6 M).
_JOINABLE = re2.compile(r"(?m)^(?:(?:[^\t\n]{8}|[^\t\n]{0,7}\t){%d}|[^\n]*\r[^\n])[^\n]*\n ?[^ \t\n]"
                        % (_MIN_WIDTH // 8))
# The same of a text without "\r" (a tab-indented report), without a DFA pass over it: the rows a cut line could
# go on in (_GOES_ON: Python's search skips from newline to newline), and for each the width of the row before it
# (str.expandtabs: _JOINABLE's groups count its tab stops, _JOIN_COLUMNS in all). RE2's pass with _JOINABLE's
# counted groups cost a 214 kB nvidia-smi -q -x (3 such rows) ~3.9 M instructions and ~0.5-0.8 ms, the search ~2.4 M
# and ~0.3 ms. Past _JOIN_TRIES such rows (a tab-separated table, every row at the margin) RE2's pass answers.
_GOES_ON = re.compile(r"\n ?[^ \t\n]")
_JOIN_COLUMNS, _JOIN_TRIES = _MIN_WIDTH // 8 * 8, 64


def _joinable(text: str) -> bool:
    """Whether _JOINABLE matches ``text``."""
    if "\r" not in text:
        find = text.rfind
        for n, m in enumerate(_GOES_ON.finditer(text)):
            if n == _JOIN_TRIES:
                break
            end = m.start()
            row = text[find("\n", 0, end) + 1:end]
            if len(row) * 8 >= _JOIN_COLUMNS and len(row.expandtabs()) >= _JOIN_COLUMNS:
                return True
        else:
            return False
    return _JOINABLE.search(text) is not None


# rows no cut made: a rule across the terminal (---, +----+----+), a table's row (boxed, padded
# with blanks, or with three column gaps of 3 blanks: a table's rows share their width)
_RULE_OR_PADDED = re.compile(r"[-=+*_~#|:. ]+\r?$|[|+].*[|+][ \t]*\r?$|.*(?:[ \t]{2}|\t)\r?$")
_COLUMN_GAP = re.compile(r"\S(?:[ \t]{3,}|\t)(?=\S)")


def _uncut(row: str) -> bool:
    return _RULE_OR_PADDED.match(row) is not None or len(_COLUMN_GAP.findall(row)) >= 3


# a margin pasting put on every row after the copy: a markdown quote or code block's indentation
_PASTED_MARGIN = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+|[ \t]+")


# a number in a word (decimal or hex): 0x00000400 and 0x00003c00 start alike
_NUMBER = re.compile(r"[0-9A-Fa-f]*\d[0-9A-Fa-f]*")


_NONBLANK = re.compile(r"\S")  # (re's \s is str.strip()'s whitespace)
_HEAD = re.compile(r"( *)(\S{0,16})")
_HEADS = re.compile(r"\n( *)(\S{0,16})")  # every row's, in one pass


def _head(row: str) -> str:
    """A row's indentation and first word, its numbers as 9: what the records of a text start with."""
    m = _HEAD.match(row)
    return m[1] + _NUMBER.sub("9", m[2])


def _columns(row: str) -> int:
    row = row[:-1] if row.endswith("\r") else row
    return len(row.expandtabs()) if "\t" in row else len(row)


def _unwrap(text: str, split: list[list[str]] | None = None) -> tuple[str, dict[int, int]] | None:
    """``text`` with the rows a terminal cut a line into joined on the line's first row, the
    rows after it left blank (line numbers do not move), and {first row: rows joined after it}
    (1-based); None where no line was cut. ``split``: where no line was cut and the rows were
    split on the way (a text without "\r"), they are appended to it, for the caller to keep
    instead of splitting the same text again (Artefact.lines, nonblank_lines)."""
    nonblank = _NONBLANK.search(text)
    if "\n" not in text or nonblank is None:  # one row, or blank rows only
        return None
    # a margin every row carries (pasted after the copy) is no part of the terminal's rows: the
    # first non-blank row's (the row of the text's first non-blank character), if every row has it
    start = nonblank.start()
    end = text.find("\n", start)
    m = _PASTED_MARGIN.match(text, text.rfind("\n", 0, start) + 1, len(text) if end < 0 else end)
    rows: list[str] | None = None
    if m is None and ("\r" in text or "\t" in text) and not _joinable(text):
        return None  # (rows are read from their first column: no margin)
    if "\r" in text:
        rows = text.split("\n")
        widths = [_columns(r) for r in rows]
    elif "\t" in text:  # str.expandtabs restarts its columns at each "\n": one C pass for every row
        widths = list(map(len, text.expandtabs().split("\n")))  # (the rows themselves: only if needed)
    else:
        rows = text.split("\n")
        widths = list(map(len, rows))
    width = max(widths)
    if split is not None and rows is not None and "\r" not in text:
        split.append(rows)  # (the rows are not changed below: a cut is joined in a copy)
    narrow = width < _MIN_WIDTH
    if narrow and (width < _NARROW_MIN or rows is None or "\r" in text):
        return None
    full = widths.count(width)
    if m is not None and rows is None:
        rows = text.split("\n")
    margin = m[0] if m and all(not r.strip() or r.startswith(m[0]) for r in rows) else ""
    if narrow and (full < _NARROW_WALL or not _narrow_cut(rows, widths, width, len(margin))):
        return None
    # a width terminals do not open with: two rows at least share it, and they make a wall, as
    # cut rows do (no more rows just under W than at W: a text of its own has a tail of lengths)
    single = False
    if width - len(margin) not in _TERMINAL_WIDTHS:
        if full < 2 or sum(1 for n in widths if width - 8 <= n < width) > full:
            if full != 1:
                return None
            single = True  # one row of that width: a cut only where it reads as one (_single_cut)
    if rows is None:
        rows = text.split("\n")
    cut = len(margin)
    starts: set[str] = set()

    def continues(row: str, cut_before: bool) -> bool:
        # (a cut may fall before a blank: one leading blank is no indentation)
        row = row[cut:]
        word = row[1:] if row[:1] == " " else row
        if _RECORD_START.match(word) is not None or len(_COLUMN_GAP.findall(word)) >= 3:
            return False
        if cut_before:
            return True
        if word is not row and word[:1] not in (" ", "\t"):
            # a cut that fell on the blank between two words: one blank, then the next word, whatever
            # its case (a record of its own starts at the margin, or indented deeper); the text's own
            # records that start so (its first words, below) still end the line
            #   kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous
            #    Xid 149           (harvest 131's dmesg.log copied 97 columns wide: "Xid" no capitalised record start)
            return _head(row) not in _starts()
        return _WORD_START.match(word) is None and _head(row) not in _starts()

    def _starts() -> set[str]:
        if not starts:  # the first words (and indentation) the text's records start with: its
            # first row's, and those of each row after a shorter one (read once, when first asked)
            heads = _HEADS.findall("\n" + "\n".join(r[cut:] for r in rows) if cut else "\n" + text)
            firsts = {heads[0]}.union(heads[k] for k in range(1, len(heads)) if widths[k - 1] < width)
            starts.update(indent + _NUMBER.sub("9", word) for indent, word in firsts)
        return starts

    out = rows[:]
    joined: dict[int, int] = {}
    last = len(rows) - 1
    i = widths.index(width)  # (rows before the first of W columns are no cut's)
    if single:
        # the row after it goes on from the cut (a cut after a blank: whatever word comes next, but a record's start);
        # the cheap tests first (the text's record starts are read from every row)
        nxt = rows[i + 1][cut:] if i < last else ""
        if i == last or _RECORD_START.match(nxt[1:] if nxt[:1] == " " else nxt) is not None \
                or not _single_cut(rows[i][cut:], nxt, not any(r.strip() for r in rows[i + 2:])) \
                or not continues(rows[i + 1], rows[i].rstrip("\r").endswith(" ")) or _head(nxt) in _starts():
            return None
        out[i] = (rows[i][:-1] if rows[i].endswith("\r") else rows[i]) + rows[i + 1][cut:]
        out[i + 1] = ""
        return "\n".join(out), {i + 1: 1}
    while i < last:
        j = i
        while j < last and widths[j] == width and continues(rows[j + 1], j > i) and not _uncut(rows[j][cut:]) \
                and (j > i or not _one_blank_records(rows, widths, width, cut, j + 1)) and (j > i or not _repeats(rows, i)):
            j += 1
        if j > i and widths[j] < width:  # a cut line ends on a shorter row (every row W: a padded table)
            pieces = [rows[i]] + [r[cut:] for r in rows[i + 1:j + 1]]
            out[i] = "".join(p[:-1] if p.endswith("\r") else p for p in pieces[:-1]) + pieces[-1]
            out[i + 1:j + 1] = [""] * (j - i)
            joined[i + 1] = j - i
        i = _next_row(widths, width, j + 1, last)
    return ("\n".join(out), joined) if joined else None


def _narrow_cut(rows: list[str], widths: list[int], width: int, cut: int) -> bool:
    """Whether a row of ``width`` columns (under _MIN_WIDTH) ends inside a word the next row goes on with: the two
    pieces make a word the project's messages hold and the first piece is none (``... modules KE`` / ``RNEL_UNAME=``,
    ``... package nvidi`` / ``a-kernel-dkms``): a window's cut. A program's word wrap (Open MPI's help: ``... messaging
    module`` / ``was unable to find ...``) and a padded report's rows (ibportstate's ``...10.0 Gbps`` /
    ``LinkSpeedEnabled:...``, ulimit -a's) put two words of their own there."""
    known = None
    for k in range(len(rows) - 1):
        if widths[k] != width:
            continue
        tail, head = _TAIL_LETTERS.search(rows[k]), _HEAD_LETTERS.match(rows[k + 1], cut)
        if tail is None or head is None:
            continue
        known = known or _known_words()
        piece = tail[0].lower()
        if (piece + head[0]).lower() in known and (piece not in _SHORT_WORDS if len(piece) <= 2 else piece not in known):
            return True
    return False


def _single_cut(row: str, nxt: str, ends: bool) -> bool:
    """Whether the one row of a text's odd width W (no terminal opens so wide, no wall of such rows says it) and the
    row after it are one line a window that narrow cut (harvest 133's title at 97: "... Software caused connecti" /
    "on abort"). A hand's wrap, or a program's, falls between two words, a cut anywhere: inside a word, the two pieces
    make a word the project's messages hold and the first piece is none ("connecti" + "on"; "thus causing" / "the job
    to be terminated", Open MPI's help text, "causingthe" none, and "a false alarm; a" / "lone notice", "a" one).
    A cut between two words, after the blank ("while trying " / "to connect to": a line's own last character is no
    blank) or before it ("is serviced by a" / " module of DCGM"), or inside a number, is taken only where the row after
    it is the text's last (``ends``: a paste of one line, an issue's title)."""
    row = row[:-1] if row.endswith("\r") else row
    if _uncut(row) or not row.strip():
        return False
    a, b = row[-2:], nxt[:2]
    if a[-1:].isalnum():
        if b[:1] == " ":  # (a word in lower case next: a program's own indented row starts with a capital or a
            # symbol, nvtop 3.x's " GPU 210MHz  MEM 405MHz ..." under its "Device 0 [...] PCIe GEN 4@16x ..." row)
            return ends and (b[1:2].islower() or b[1:2].isdigit())
        if a[-1:].isdigit() and b[:1].isdigit():
            return ends  # a number cut in two ("pid=12" / "345"): a hand's wrap falls between words
        # a word cut in two: the pieces make a word the project's messages hold ("connecti" / "on abort"), a hand's
        # wrap two words ("does not say which node or" / "whether the reset was done.": a README's rows, 2 of them)
        tail, head = _TAIL_LETTERS.search(row), _HEAD_LETTERS.match(nxt)
        if tail is None or head is None or not b[:1].islower():
            return False
        known, piece = _known_words(), tail[0].lower()
        # and the piece before the cut no word of its own ("runti" / "me version)!", "en" / "countered."), as a hand's
        # wrap leaves one ("a false alarm; a" / "lone notice is no evidence": "alone"); a piece of one or two letters is
        # a word where English has it so (the project's texts hold "e" of "e.g." and "en" of "en_US")
        return (piece + head[0]).lower() in known and (piece not in _SHORT_WORDS if len(piece) <= 2 else piece not in known)
    # (after a blank: a capital next only after a comma, "Requested: 1, " / "Available: 0"; nccl-tests' header row
    # ends with a blank of its own, "... validation: 1 " / "Cuda failure common.cu:891")
    return ends and a[-1:] == " " and a[:1].strip() != "" and b[:1].strip() != "" and (not b[:1].isupper() or a[:1] == ",")


# English words of one or two letters (a hand wraps after them: "... which node or" / "whether ...")
_SHORT_WORDS = frozenset("a i am an as at be by do go he if in is it me my no of oh on or so to up us we".split())
_TAIL_LETTERS = re.compile(r"[A-Za-z]{1,40}$")
_HEAD_LETTERS = re.compile(r"[A-Za-z]{1,40}")


@lru_cache(maxsize=1)
def _known_words() -> frozenset[str]:
    """The words (letters only, lower case) of the project's knowledge files: the messages of CUDA, NCCL, the driver,
    the fabric and the tools it reads (knowledge/*.yaml), read when a cut inside a word is first weighed."""
    from importlib import resources

    root = resources.files("stethoscope.knowledge")
    texts = (p.read_text(encoding="utf-8") for p in root.iterdir() if p.name.endswith(".yaml"))
    return frozenset(w.lower() for t in texts for w in _HEAD_LETTERS.findall(t))


def _one_blank_records(rows: list[str], widths: list[int], width: int, cut: int, k: int) -> bool:
    """Whether row ``k`` (after a row of the terminal's width ``width``) and the row after it are both whole (shorter
    than ``width``) and both one blank in: records a program starts so, not a cut line's tail, whose next line starts at
    the margin. perftest prints each of its lines after one blank (k8snetworkplumbingwg/sriov-cni#348's pod, 132 wide)::

        libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2
         Did not detect devices
         If device exists, check if driver is up
    """
    if k + 1 >= len(rows) or widths[k] >= width or widths[k + 1] >= width:
        return False
    a, b = rows[k][cut:], rows[k + 1][cut:]
    return a[:1] == b[:1] == " " and a[1:2].strip() != "" and b[1:2].strip() != ""


def _repeats(rows: list[str], i: int) -> bool:
    """Whether row ``i`` repeats the row before it: a line printed again, whole as it was the first time (a cut line's first
    row is followed by its tail, so a line printed twice and cut shows that tail between its two first rows). ggml's CUDA
    kernels print their error once per thread that reaches it, then the host's error follows (LostRuins/koboldcpp#1362,
    five rows of 185 columns, a wall of one width, then 'CUDA error: unspecified launch failure' joined to the last)::

        d:\\a\\koboldcpp\\...\\mmv.cu:51: ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. ...
        d:\\a\\koboldcpp\\...\\mmv.cu:51: ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. ...
        CUDA error: unspecified launch failure
    """
    return i > 0 and rows[i] == rows[i - 1]


def _next_row(widths: list[int], width: int, start: int, last: int) -> int:
    """The first row from ``start`` on that is ``width`` columns wide (``last``: none), found in C."""
    try:
        return widths.index(width, start)
    except ValueError:
        return last


# a record a paste's hard wrap went on in indented rows: the rows after its first start a few blanks deeper, and the
# record was cut inside its sentence (open-gpu-kernel-modules#1208's kernel log, wrapped at ~80 columns):
#   NVRM: Xid (PCI:0000:01:00): 31, pid=<varies>, name=python3, channel 0x00000002,
#     intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted
#     @ 0x0_00019000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
# Only a record of a form whose one line its reader reads whole (_TAIL_RECORD: the kernel's, NCCL's, a Python
# exception's message) that ends cut (a comma, or a letter: a word it goes on from), and only rows indented by blanks
# (a tab indents a Go or Java frame), deeper than the record, of one indentation, each none of: a record's start
# (_RECORD_START: a stamp, a label, a table's rule, ...; _WORD_START: a frame, a capitalised word, a "key:"), a table's
# row (_uncut), a frame ("at ..."), code (a call "name(", a caret row "^^^^").
_TAIL_RECORD = re.compile(
    r"(?:NVRM: |kernel: |\[ {0,12}\d{1,12}\.\d{6}\] |[\w.-]+:\d+:\d+ \[\d+\] (?:[\w./-]{1,200}:\d{1,6} )?NCCL "
    r"|(?<![\w.])[A-Za-z_][\w.]{0,200}(?:Error|Exception): \S)")
# a row of such a record (its marks, loosely) that ends cut (a comma, or inside a word) and an indented row after it,
# one DFA pass over the text (an nvidia-smi -q report's rows end in words before indented ones: not one row each)
_TAIL_GATE = re2.compile(r"(?m)^[^\n]*(?:NVRM: |kernel: |\] |\] NCCL |Error: |Exception: )[^\n]*[,A-Za-z]\r?\n {2,8}[^ \t\r\n]")
_TAIL_ROW = re.compile(r"( {2,8})(\S)")
# a markdown list's item (its rows after the first are the list's own indentation, a README's prose around a quoted line):
#   - `NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.` with kernel stamp
#     `[155044.078590]`: NVIDIA developer forum thread "Xid 79 GPU has fallen off the bus" (2017),
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)]) ")
# (and a report's key row, its key padded to the colon: nvidia-smi -q's "    GPU Current Temp                  : 32 C"
# pasted under a kernel line that ends in a word, tests/test_lines.py KEPT; torchrun's "  time      : 2025-05-21_...")
_TAIL_NOT = re.compile(r"at |[\w.\[\]]{1,200} {0,2}[-+*/]?= |[\^~]{2,}|[-=+*_~#|:.^ ]+\r?$|.{0,400}?\w\(|[^:\r\n]{1,100} :(?:[ \t]|\r?$)")


def _rows_taken(text: str, joined: dict[int, int] | None) -> tuple[list[str], set[int], dict[int, int]]:
    """``text``'s rows, the rows (0-based) an earlier join (``joined``: {first row (1-based): rows joined after it})
    took, and a copy of ``joined`` to add to."""
    taken: set[int] = set()
    for first, n in (joined or {}).items():
        taken.update(range(first - 1, first + n))
    return text.split("\n"), taken, dict(joined or {})


def _indented_tails(text: str, joined: dict[int, int] | None = None) -> tuple[str, dict[int, int]] | None:
    """``text`` with the indented rows a paste's hard wrap put a record's tail on joined on its first row (a blank
    between), the rows after it left blank (line for line), and {first row (1-based): rows joined after it},
    ``joined`` (an earlier join's) merged in; None where no record was so wrapped."""
    if _TAIL_GATE.search(text) is None:
        return None
    rows, taken, done = _rows_taken(text, joined)
    changed = False
    i = at = 0
    for m in _TAIL_GATE.finditer(text):
        i, at = i + text.count("\n", at, m.start()), m.start()  # (the row of the match, counted on from the last)
        if i in taken or i + 1 in taken:
            continue
        row = rows[i].rstrip("\r")
        indent = len(row) - len(row.lstrip(" "))
        if "\t" in row[:indent + 1] or _TAIL_RECORD.search(row) is None or _LIST_ITEM.match(row, indent):
            continue
        k, depth, line = i + 1, None, row
        while k < len(rows) and k not in taken and (line[-1:] == "," or line[-1:].isascii() and line[-1:].isalpha()):
            c = _TAIL_ROW.match(rows[k])
            if c is None or len(c[1]) <= indent or (depth is not None and len(c[1]) != depth):
                break
            tail = rows[k][c.end(1):].rstrip("\r")
            if _RECORD_START.match(tail) or _WORD_START.match(tail) or _TAIL_NOT.match(tail) or _uncut(tail):
                break
            depth, line = len(c[1]), line + " " + tail.rstrip()
            k += 1
        if k == i + 1:
            continue
        rows[i] = line + ("\r" if rows[i].endswith("\r") else "")
        for n in range(i + 1, k):
            rows[n] = "\r" if rows[n].endswith("\r") else ""
            taken.add(n)
        taken.add(i)
        done[i + 1] = k - 1 - i
        changed = True
    return ("\n".join(rows), done) if changed else None


# A screen's copy pads every row to the terminal's width W with blanks (GNU screen's hardcopy, a Windows console's
# selection, a web terminal's copy): a line longer than W goes on in the rows after it, and its last row is padded to
# W as a short line is (google-research/t5x#864, a 122-column screen; the reporter's own sentence above it, wider, is
# no row of the screen, so _unwrap, which measures the widest row, found no cut):
#   2023-10-23 01:07:26.771566: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2153] Ex
#   ecution of replica 1 failed: INTERNAL: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nccl_all_reduce_thunk.c
#   c:70: NCCL operation ncclAllReduce(send_buffer, recv_buffer, element_count, dtype, reduce_op, comm, gpu_stream) failed: un
#   handled cuda error                                                                                                        
#   Traceback (most recent call last):                                                                                        
# A wall is _PADDED_WALL rows at least, one after another, of one width of _MIN_PADDED columns or more, one of them
# ending in two blanks or more (the padding) and one in a character (a cut); a row of the wall that ends in a
# character goes on in the next row of the wall unless that row starts a record (_RECORD_START) or is a table's
# (_COLUMN_GAP), and the line ends at the first row that ends in blanks (its padding is taken off). A table
# padded to one width ("|" last, or no row ending in a character) is no wall.
_PADDED_WALL, _MIN_PADDED = 3, 60
# a table's row padded to the wall's width, under a header that ends in a character, is no cut line's rest: its cells
# stand two blanks apart or more, twice or more (our patrol history's trend table, fixtures/observations):
#   node  metric               series               unit      run 1   run 2   change
#   vm    gpu_burn_mismatches  dtype=bf16,gpu=0,p…  elements  0       0
_CELL_GAP = re.compile(r"\S {2,}(?=\S)")


def _padded_row_in(text: str) -> bool:
    """Whether a row of _MIN_PADDED columns or more ends in two blanks before a newline with a row of its width beside
    it (a wall's rows are three or more of one width: one of them a neighbour), by C-level finds (an RE2 search for
    ``[^\\n]{58,}  \\n`` took ~1 ms on a bench node's 204 kB dmesg, which has one such row and no wall)."""
    at = text.find("  \n")
    while at != -1:
        start, nl = text.rfind("\n", 0, at) + 1, at + 2
        w = nl - start
        if w >= _MIN_PADDED:
            after = text.find("\n", nl + 1)
            if (start > 0 and start - 1 - (text.rfind("\n", 0, start - 1) + 1) == w) \
                    or (after if after != -1 else len(text)) - (nl + 1) == w:
                return True
        at = text.find("  \n", nl + 1)
    return False


def _padded_wall(text: str, joined: dict[int, int] | None = None) -> tuple[str, dict[int, int]] | None:
    """``text`` with the lines a padded screen cut (see above) joined on their first row, the rows after it left blank
    (line for line), and {first row (1-based): rows joined after it}, ``joined`` (an earlier join's) merged in; None
    where no line was so cut."""
    if "\r" in text or not _padded_row_in(text):
        return None
    rows, taken, done = _rows_taken(text, joined)
    widths = list(map(len, rows))
    changed = False
    # a wall holds a row that ends in two blanks: walk out from each such row (found in C), not over every row in
    # Python (a bench node's 204 kB dmesg has one: 2.8 -> ~0.3 ms)
    end = 0
    for c in compress(range(len(rows)), map(methodcaller("endswith", "  "), rows)):
        w = widths[c]
        if c < end or w < _MIN_PADDED:
            continue
        i = j = c
        while i > 0 and widths[i - 1] == w:
            i -= 1
        while j + 1 < len(rows) and widths[j + 1] == w:
            j += 1
        end = j + 1
        wall = range(i, j + 1)
        if j - i + 1 >= _PADDED_WALL and not any(k in taken for k in wall) \
                and any(rows[k][-1:] not in (" ", "|") for k in wall):
            k = i
            while k < j:
                m = k
                while m < j and rows[m][-1:] not in (" ", "|", "") and _RECORD_START.match(rows[m + 1]) is None \
                        and len(_COLUMN_GAP.findall(rows[m + 1])) < 3 and len(_CELL_GAP.findall(rows[m + 1])) < 2:
                    m += 1
                if m > k and rows[m].endswith(" "):  # a cut line ends on a padded row
                    rows[k] = "".join(rows[k:m]) + rows[m].rstrip(" ")
                    rows[k + 1:m + 1] = [""] * (m - k)
                    done[k + 1] = m - k
                    changed = True
                k = m + 1
    return ("\n".join(rows), done) if changed else None


#: a row indented by a blank: RE2 looks for "\n" (memchr) and tests the character after it, where ``"\n " in text``
#: tests each blank's neighbour (a bench node's dmesg and -q -x, no such row: 0.22 -> 0.02 ms each, rZ3). A member of the
#: classifier's set too (facts/classify.py), so a file it scanned is not searched again (normalise's ``indented``)
_ROW_INDENTED = INDENTED_GATE = re2.compile("\n ")
#: a row that ends in two blanks (a padded screen's: _padded_wall), as ``"  \n" in text`` finds it: a member of the
#: classifier's set (normalise's ``padded``). Searched by itself, by ``in`` or RE2, it costs a text with many blanks a
#: step or a memchr stop each (~0.15-0.22 ms each of a bench node's dmesg, -q and -q -x; RE2's memchr for the first
#: blank 0.4-1 ms), where the set's pass answers it with the others
PADDED_GATE = re2.compile("  \n")


# A paste whose every line carries its line number, copied from a numbered listing (issue 11, round rCA2): `cat -n` and
# `nl` (coreutils src/cat.c next_line_num and src/nl.c: the number right-aligned in six columns, then a tab), `grep -n`
# (GNU grep: "<n>:" before a matching line, "<n>-" before a context line with -A/-B/-C, "--" between groups; with
# several files "<file>:<n>:" and "<file>-<n>-"), an editor's or viewer's gutter ("  12 | ", bat's "  12 │ "),
# CONSTRUCTED from the formats over real lines (fixtures/artefacts/kernel_log/journal_iso_xid45.log under cat -n):
#      1\t2026-11-29T18:32:13+0000 node17 kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, ...
# 812:Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303887] NVRM: GPU at 0000:01:00.0 has fallen off the bus.
# /var/log/syslog:812:Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303887] NVRM: GPU at 0000:01:00.0 has ...
# The numbers go where every non-blank line carries one (grep's "--", a code fence and a blank row apart), three lines
# or more, the numbers rising (by one in a listing of every line: cat -n, a gutter), and for grep's form a matching line
# among them: a column of numbers that happens to rise (a table's index, srun's "0: " task labels of one line each, an
# NCCL line's "host:pid:" of one rank after another, a log stamped by the hour) is no gutter.
_GUTTER_HEAD = re.compile(r"[ \t]*(?:`{3}[^\n]*\n[ \t]*)?(?:\d{1,9}(?:\t|[:-]| *[|\u2502])|[\w./-]{1,255}[:-]\d{1,9}[:-])")
_GUTTER_ROW = re.compile(
    r"(?P<cat> {0,8}(?P<cn>\d{1,9})\t)|(?P<bar> {0,8}(?P<bn>\d{1,9}) *[|\u2502] ?)"
    r"|(?P<file>[\w./-]{1,255}?)(?P<fs>[:-])(?P<fn>\d{1,9})(?P=fs)(?!\d+ \[\d)"
    r"|(?P<grep>(?P<gn>\d{1,9})(?P<gs>[:-]))(?!\d\d:\d\d(?![:\d]))")
# a file that grep -H names: a path or a log's file name (not a host name, not a host:pid of NCCL's prefix), never a
# program's source file: '<source>:<line>: ' is where a program's own message says it was raised (NVSHMEM's
# "main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp failed.", NVIDIA/nvshmem#42;
# ".../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed", NVIDIA/TensorRT-LLM#17060), not grep's label
_GREP_FILE = re.compile(r"(?![\w./-]*\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|inl|py|pyx|go|rs|java|js|ts)$)[\w.-]*/[\w./-]*"
                        r"|[\w.-]+\.(?:log|txt|out|err)(?:\.\d+)?|syslog|messages|kern\.log|dmesg")


def _ungutter(text: str) -> str | None:
    """``text`` without the line numbers a numbered listing put before every line (see _GUTTER_HEAD), line for line;
    None where it is no such listing. Only a text whose first line starts like one is looked at further (one anchored
    match a file)."""
    if _GUTTER_HEAD.match(text) is None:
        return None
    cuts: list[tuple[int, int]] = []  # (a numbered line's start, its number's end): the text is walked, not split (a
    form: str | None = None           # dated log's first line starts like grep's; its second ends the walk)
    padded = False
    last = -1
    numbered = matched = 0
    start, size = 0, len(text)
    while start <= size:
        end = text.find("\n", start)
        end = size if end == -1 else end
        body = text[start:end - 1] if text[end - 1:end] == "\r" and end > start else text[start:end]
        bare = body.strip()
        if bare and bare != "--" and not bare.startswith("```"):
            m = _GUTTER_ROW.match(body)
            if m is None:
                return None
            kind = "cat" if m["cat"] else "bar" if m["bar"] else "file" if m["file"] is not None else "grep"
            if form is None:
                form, padded = kind, kind == "cat" and len(m["cat"]) >= 7
            elif kind != form:
                return None
            n = int(m["cn"] or m["bn"] or m["fn"] or m["gn"])
            if kind == "file":
                if _GREP_FILE.fullmatch(m["file"]) is None:
                    return None
                matched += m["fs"] == ":"
            elif kind == "grep":
                matched += m["gs"] == ":"
            if n <= last or (kind in ("cat", "bar") and last >= 0 and n != last + 1):
                return None  # (cat -n and a gutter number a blank row too; nl leaves it out of its count)
            last = n
            numbered += 1
            cuts.append((start, start + m.end()))
        start = end + 1
    # (one line is enough where the form says it is a listing's: grep's match, cat -n's number in its six columns; a
    # gutter's two)
    least = 1 if form in ("file", "grep") or (form == "cat" and padded) else 2 if form == "bar" else 3
    if numbered < least or (form in ("grep", "file") and not matched):
        return None
    parts, pos = [], 0
    for line_start, cut in cuts:
        parts.append(text[pos:line_start])
        pos = cut
    parts.append(text[pos:])
    return "".join(parts)


class Normalised(str):
    """A normalised text whose lines a terminal had cut are joined: ``joined`` maps the 1-based
    line that holds a joined line to the number of rows after it it took (left blank)."""

    joined: dict[int, int]


def _fence(m: re.Match[str]) -> str:
    body = m["body"]
    if body.endswith("```"):
        return "\n" + body[:-3].rstrip()
    # an opening or closing fence carries at most a language tag
    return "\n" if re.fullmatch(r"[\w+.-]{0,20}", body) else "\n" + body


def normalise(text: str, plain: bool | None = None, split: list[list[str]] | None = None,
              uncut: bool | None = None, glued: bool | None = None, padded: bool | None = None,
              indented: bool | None = None) -> str:
    """``text`` with the wrappers above stripped from each line, line for line.

    The same string object comes back when nothing was stripped, so callers can test
    ``is`` to know whether the text changed. ``plain``: whether :data:`_PLAIN_DFA` finds
    nothing in ``text``, when the caller's own scan already answered it (facts/classify.py
    runs it in the classifier's pass); ``split``: see :func:`_unwrap` (only the text as
    read: a caller keeps those rows only when the same text comes back); ``uncut``: whether
    :data:`UNCUT_GATE` matches ``text``, when the caller's scan answered it (True: no rows to join);
    ``glued``: whether :data:`GLUE_GATE` finds a line to look at, when the caller's scan answered it (False: none, and
    no pass of its own: a bench node's NCCL logs and -q -x hold '<' and cost ~1.4 ms a node to scan again); ``padded``,
    ``indented``: whether :data:`PADDED_GATE`, :data:`INDENTED_GATE` occur in ``text``, when the caller's scan answered it."""
    # a numbered listing's line numbers (see _ungutter), before any other wrapper: the outermost one
    ungutter = _ungutter(text)
    if ungutter is not None:
        text, plain, split, uncut, glued, padded, indented = ungutter, None, None, None, None, None, None
    # a terminal UI's framed pane: its rows' lines (see _PANE_ROW); "in" on a text of one-byte characters only costs
    # nothing (CPython answers from the string's kind)
    if "\u2502" in text:
        unframed = _unframed(text)
        if unframed is not text:
            text, plain, split, uncut, glued, padded, indented = unframed, None, None, None, None, None, None
    # a progress bar's refresh glued to a log line: the log line's (see _BAR_END)
    unglued = text if glued is False else _unglued(text)
    if unglued is not text:
        text, plain, split, uncut, padded, indented = unglued, None, None, None, None, None
    if plain is None:
        plain = _PLAIN_DFA.search(text) is None  # most files: no colour, link or wrapper
    if not plain:
        read = text
        if "\x1b" in text or "\\x1b" in text or "#033[" in text:  # colours, wherever they are in a line
            text = _ANSI.sub("", text)
        if "\\x0a" in text:  # a kernel record's own line breaks, escaped by /dev/kmsg (see _KMSG_BREAK)
            text = _KMSG_BREAK.sub(" ", text)
        if "](http" in text:  # links inside lines, whatever the line starts with
            text = _AUTOLINK.sub(r"\g<text>", text)
        if text is not read:  # (the gates answered the text as read)
            padded = indented = None
    unwrapped = None if uncut else _unwrap(text, split if plain else None)  # rows a terminal cut, joined (the colours and links above took no columns)
    # a JSON record a terminal or a ticket broke over rows (records.py); "{" first: one memchr, where each two-character
    # search skips only 3 characters a step (a bench node's 16 files that are not NCCL's alone: 1.7 -> 0.03 ms, rT7)
    if not uncut and "{" in text and ('{"' in text or '{ "' in text):
        rejoined = rejoin_records(unwrapped[0] if unwrapped else text, unwrapped[1] if unwrapped else None)
        if rejoined is not None:
            unwrapped, plain = rejoined, False
    # a line a padded screen cut into rows (see _padded_wall)
    if not uncut and (padded if padded is not None else "  \n" in text):
        wall = _padded_wall(unwrapped[0] if unwrapped else text, unwrapped[1] if unwrapped else None)
        if wall is not None:
            unwrapped, plain = wall, False
    # a record a paste's hard wrap went on in indented rows (see _indented_tails)
    if not uncut and (indented if indented is not None else _ROW_INDENTED.search(text) is not None):
        tails = _indented_tails(unwrapped[0] if unwrapped else text, unwrapped[1] if unwrapped else None)
        if tails is not None:
            unwrapped, plain = tails, False
    if unwrapped is not None:
        text, joined = unwrapped
        norm = Normalised(_strip(text))
        norm.joined = joined
        return norm
    return _strip(text, plain)


def _strip(text: str, plain: bool = False) -> str:
    """The line wrappers off ``text`` (colours, links and terminal cuts already dealt with):
    ``text`` itself when it has none. ``plain``: _PLAIN_DFA found nothing in ``text``."""
    original = text
    # a text whose first line is indented may be indented as a whole (a markdown code block)
    indented = _INDENTED.match(text) is not None
    if not indented and (plain or not any(g in text for g in _GATES) and text[:1] not in ("*", "_")):
        return text
    # every pattern starts with the newline before its line (a literal: the regex engine skips
    # ahead to it), so the text gets one in front and loses it at the end
    out = "\n" + text + "\n"
    if not indented and (_ANY_DFA.search(out) is None or _ANY.search(out) is None):
        return text  # (the links above stripped, if any)
    if "\n  | " in out or "\n | " in out or "\n\t| " in out or "\n   | " in out or "\n    | " in out:
        out = _cloudwatch_column(out)
    for _ in range(3):  # wrappers nest: a quoted fence line, a labelled quoted line
        before = out
        if '{"log":' in out:
            out = _DOCKER_JSON.sub(_docker_json, out)
        # a shipper's or a log search's records read as their lines, an application's JSON record as its message
        # (facts/records.py; not in a text naming gpud, whose journal gpud_journal reads as written)
        out = read_records(out, apps="gpud" not in original)
        if _INDENTED.match(out):
            out = _dedent(out)
        if "\n>" in out or "\n " in out or "\n\t" in out:
            out = _QUOTE.sub("\n", out)
        if "```" in out:
            out = _FENCE.sub(_fence, out)
        if "`" in out:
            out = _TICKS.sub("\n\\g<body>", out)
            out = _inline_code(out)
            out = _PROSE_TICK.sub("\n\\g<body>\\g<cr>", out)  # a log line quoted inside a sentence
        if '\n"' in out or "\n\u201c" in out:
            out = _DQUOTE.sub("\n\\g<body>", out)
        if "<std" in out:
            out = _MPIRUN.sub("\n", out)
        if "[pod/" in out:
            out = _KUBECTL.sub("\n", out)
        if "pid=" in out:
            out = _RAY.sub("\n", out)
        if "]:" in out:
            out = _RANK_LABEL.sub("\n", out)
        if (": " in out or " | " in out) and _UNLABELLED.search(out, 0, len(out) - 1) is None \
                and _LABELLED_INDENT.search(out) is not None and line_hosts(out) is None:
            # (pdsh's labels of two hosts or more stay: each host's lines are read apart, engine/parse_pool.py)
            out = _REPORT_LABEL.sub("\n", out)
        if ">1 " in out:
            out = _RFC5424.sub("\n", out)
        if ": " in out:
            out = _JOURNAL.sub("\n", out)
            out = _SRUN.sub("\n", out)
        if "Z " in out or "workerpool" in out:
            out = _CLOUD_VIEWER.sub("\n", out)
        if "} " in out:
            out = _LOGCLI.sub("\n", out)
        if "Z " in out and "\t" in out:
            out = _GH_RUN_LOG.sub("\n", out)
        if "\t" in out:
            out = _GRAFANA_TXT.sub("\n", out)
        if "Z " in out or "Z\t" in out or " stdout " in out or " stderr " in out or _OFFSET_TS.search(out) is not None:
            out = _CONTAINER_TS.sub("\n", out)
        if "##[" in out:
            out = _GHA_TAG.sub("\n", out)
        if " - " in out or ":" in out:
            out = _PYLOG.sub("\n", out)
        if "\n*" in out or "\n_" in out:
            out = _EMPHASIS.sub(_emphasis, out)
        if out == before:
            break
    out = out[1:-1]
    return original if out == original else out


# the run inside a line, not between two letters or digits (those do not emphasise: "mlx5_0", "NCCL_IB_HCA")
_INNER = {d: re.compile(rf"(?<![A-Za-z0-9]){re.escape(d)}|{re.escape(d)}(?![A-Za-z0-9])")
          for d in ("*", "**", "***", "_", "__", "___")}


def _inline_code(out: str) -> str:
    """``out`` with the backticks of each inline code span over several lines taken off (_TICK_OPEN): the
    opener at its line's start; the closer where the first later line holding a backtick holds only it, at
    its end (else it is no closer of this span, and stays)."""
    parts: list[str] = []
    pos = 0
    for m in _TICK_OPEN.finditer(out):
        if m.start() < pos:
            continue
        parts.append(out[pos:m.end() - 1])
        pos = m.end()
        k = out.find("`", pos)
        if k == -1:
            continue
        start, end = out.rfind("\n", 0, k) + 1, out.find("\n", k)
        line = out[start:end if end != -1 else len(out)]
        if line.count("`") == 1 and line.rstrip().endswith("`"):
            parts.append(out[pos:k])
            pos = k + 1
    if not parts:
        return out
    parts.append(out[pos:])
    return "".join(parts)


def _emphasis(m: re.Match[str]) -> str:
    d, body = m["d"], m["body"]
    # the run inside (two emphases on one line, "**a** and **b**", "*f(*args)*"), an unbalanced
    # closer ("**a***"), or one word (a name: "__init__", "*args*"): no whole-line wrapper
    if body[-1] in "*_ \t" or (" " not in body and "\t" not in body) or (d in body and _INNER[d].search(body)):
        return m[0]
    return "\n" + body + m["cr"]


def _docker_json(m: re.Match[str]) -> str:
    try:
        line = json.loads(f'"{m["body"]}"')
    except ValueError:
        return m[0]
    # the line's own newline goes; one inside it (never written by Docker) would shift the lines after
    return "\n" + line.rstrip("\r\n").replace("\r", " ").replace("\n", " ")


def _dedent(out: str) -> str:
    """``out`` (newline-framed) without the margin all its non-blank lines share."""
    if _UNINDENTED.search(out, 0, len(out) - 1) is not None:
        return out
    margins = {m[1] for m in _MARGIN.finditer(out)}
    if not margins:  # no line holds text after its margin (blank rows only, a lone "\r")
        return out
    common = min(margins, key=len)
    while common and not all(m.startswith(common) for m in margins):
        common = common[:-1]
    if "\t" in common and any("\t" in m[len(common):] for m in margins):
        return out  # tab levels below a tab margin: the margin may be the first of them
    return out.replace("\n" + common, "\n") if common else out


def label_rank(raw_line: str) -> int | None:
    """The global rank of a line's PyTorch label (``[rank3]:``, also behind torchrun's
    ``[default3]:`` or Ray's actor tag), read from the line as read: the normalised line has
    lost it. torchrun's ``[default3]:`` is a local rank: not read."""
    g = _GLOBAL_LABEL.search(raw_line)
    return int(g[1]) if g else None

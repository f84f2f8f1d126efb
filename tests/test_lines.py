"""Line normalisation (facts/lines.py): wrappers off, line for line, evidence keeps the original."""
import re
import time

import pytest

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.lines import _PANE_ROW, normalise
from stethoscope.facts.records import record_hosts
from stethoscope.facts.parsers.base import Artefact

# real lines as posted in public threads (NVIDIA/nccl#296, #304; fal-ai video-diffusion-speedrun#2;
# awslabs/awsome-distributed-ai#192)
CASES = [
    ("`init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`",
     "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39."),
    ("`ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`",
     "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"),
    ("```docker run --gpus all --rm -it video-diffusion /bin/bash```", "docker run --gpus all --rm -it video-diffusion /bin/bash"),
    ("```bash", ""),
    ("```", ""),
    ("> [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>",
     "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>"),
    ("> > `nvidia-smi`", "nvidia-smi"),
    ("[1,3]<stdout>:node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM",
     "node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM"),
    # horovodrun's tag, the rank alone (horovod/runner/common/util/safe_shell_exec.py '{time}[{rank}]<{prefix}>:'; horovod#2640)
    ("[0]<stderr>:Missing ranks:", "Missing ranks:"),
    ("Tue Feb  2 03:23:51 2021[11]<stdout>:Epoch 3 done", "Epoch 3 done"),
    ("10: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error",
     "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error"),
    ("2024-05-01T12:00:00.123456789Z stdout F Failed to initialize NVML: could not load NVML library.",
     "Failed to initialize NVML: could not load NVML library."),
    # a message quoted in prose (NVIDIA/nccl-tests#198): the quotes go, the dot stays
    ('"# Reducing maxBytes to 12156305408 due to memory limitation."', "# Reducing maxBytes to 12156305408 due to memory limitation."),
]

# lines whose prefix belongs to their format (the owning parser reads host, time or rank from it)
KEPT = [
    "2024-05-01T12:00:00.123456Z node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    # CONSTRUCTED: journald's short-iso with the node's offset, a host and a tag (no stream): the kernel log's
    "2024-05-01T12:00:00+08:00 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed",
    "    GPU Current Temp                  : 32 C",
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN",
    "   134217728      33554432     float     sum      -1   5190.8   25.86   25.86      0   5186.6   25.88   25.88      0",
    "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error",
    # near misses of the wrappers below: NCCL's bare device index, torchrun's failure table,
    # dpkg's and DCGM's own stamps, nvidia-installer's "ERROR: " (their readers use them)
    "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>",
    "[1]:",
    "2024-05-01 10:00:00 install libnccl2:amd64 <none> 2.18.3-1+cuda12.2",
    "2024-05-01 10:00:00.123 ERROR [123:456] x",
    "ERROR: An NVIDIA kernel module 'nvidia-drm' appears to already be loaded in your kernel.",
    "12f0e56ac84d:2338971:2339161 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0",
    # near misses of the quote wrapper: a JSON member, a CSV row, a quote that does not close the line
    '"driver_version": "535.104.05",',
    '"NVIDIA H100 80GB HBM3", "00000000:18:00.0"',
    '"Error" is what the log says',
    # near misses of the worker tag: a parenthesis that is no tag (a word and a value, no pid)
    "(rank=1 of 2) ERROR 08-11 10:45:36 [multiproc_executor.py:511] x",
    # ... nor a sentence in parentheses that names a pid after a comma (more than a name and one field before it)
    "(the task, which died, pid=201122) Traceback (most recent call last):",
]

# issue 11: the wrappers log pipelines put on every line, each a real line of its form
WRAPPED = [
    # mpirun --timestamp-output --tag-output (openucx/ucx#2718, fixtures/artefacts/ucx_log/ucx2718_*; the stamp is
    # ctime's: orte/mca/iof/base/iof_base_output.c "%s[%s,%s]<%s>:"), and the stamp alone ("%s<%s>:")
    ("Mon Jul  2 19:35:38 2018[1,2704]<stdout>:[1530549338.249536] [clx-hercules-007:20543:0]       rc_iface.c:966  UCX  ERROR failed to create qp: Invalid argument",
     "[1530549338.249536] [clx-hercules-007:20543:0]       rc_iface.c:966  UCX  ERROR failed to create qp: Invalid argument"),
    ("Mon Jul  2 19:35:38 2018<stderr>:[clx-hercules-007:20550] pml_ucx.c:296 Error: ucp_ep_create(proc=371) failed: Input/output error",
     "[clx-hercules-007:20550] pml_ucx.c:296 Error: ucp_ep_create(proc=371) failed: Input/output error"),
    # Docker's json-file driver (docs.docker.com, JSON File logging driver; Grafana Loki's docker stage)
    ('{"log":"Log line is here\\n","stream":"stdout","time":"2019-01-01T11:11:11.111111111Z"}', "Log line is here"),
    ('{"log":"log message\\n","stream":"stderr","time":"2019-04-30T02:12:41.8443515Z"}', "log message"),
    # the CRI format of /var/log/pods (Grafana Loki's cri stage)
    ("2019-04-30T02:12:41.8443515Z stdout F message", "message"),
    # ... whose time is the node's local time with its offset (containerd's time.RFC3339Nano; sgl-project/sglang#8336)
    ("2025-07-25T07:53:08.21748708+08:00 stdout F [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):",
     "Scheduler hit an exception: Traceback (most recent call last):"),
    # CONSTRUCTED: CRI-O's "%Y-%m-%dT%H:%M:%S.%9N%:z", a partial line ("P") on stderr
    ("2025-07-25T07:53:08.217488644-05:00 stderr P RuntimeError: CUDA error: an illegal memory access was encountered",
     "RuntimeError: CUDA error: an illegal memory access was encountered"),
    # kubectl logs --prefix (kubectl pkg/cmd/logs: "[pod/%s/%s] ")
    ("[pod/trainer-worker-0/pytorch] node1:1633:1633 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
     "node1:1633:1633 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"),
    # Ray's actor tag (ray-project/ray#59778), nested under vLLM's engine core (fastsafetensors#36)
    ("(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072",
     "k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072"),
    ("(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO P2P Chunksize set to 131072",
     "spark2:285:285 [0] NCCL INFO P2P Chunksize set to 131072"),
    # Ray Data's actor name (its operator in parentheses) behind a collector's nanosecond local time, over vLLM's
    # engine core tag and logger (vllm-project/vllm#37250)
    ("2026-03-09 01:31:29.489256607 (MapWorker(MapBatches(vLLMEngineActor)) pid=1202, ip=10.53.120.118) (EngineCore_DP0 pid=32080) ERROR 03-08 17:31:28 [core.py:1102]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 87, in wait_for_response",
     'File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 87, in wait_for_response'),
    # Ray Serve's replica tag: the actor's class name "ServeReplica:<app>:<deployment>" (ray/serve/_private/common.py
    # to_replica_actor_class_name), a Ray Serve LLM deployment named after its model id, slash and all; over vLLM's
    # logger (ray-project/ray#55754)
    ("(ServeReplica:default:LLMRouter pid=522174) INFO 08-29 18:02:22 [__init__.py:235] Automatically detected platform cuda.",
     "Automatically detected platform cuda."),
    ("(ServeReplica:default:meta-llama/Llama-2-7b-hf:meta-llama--Llama-2-7b-hf pid=522173) INFO 08-29 18:02:22 [__init__.py:235] Automatically detected platform cuda.",
     "Automatically detected platform cuda."),
    # SkyPilot's Ray task names end with a comma (sky/backends/task_codegen.py: 'task,' or '{node_name}, rank={rank},'):
    # skypilot-org/skypilot#2510's one-node task, #8604's head; a worker on another node with Ray's ', ip=' (CONSTRUCTED
    # from the codegen's name and Ray's prefix_for)
    ("(task, pid=201122) Traceback (most recent call last):", "Traceback (most recent call last):"),
    ("(head, rank=0, pid=2898911) error: No virtual environment fo", "error: No virtual environment fo"),
    ("(worker1, rank=1, pid=2680, ip=10.0.7.223) NCCL version 2.21.5+cuda12.4", "NCCL version 2.21.5+cuda12.4"),
    # PyTorch's rank label (pytorch/helion#1396), behind torchrun's local-rank label
    ("[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/common_distributed.py:939] Caught exception: ",
     "E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/common_distributed.py:939] Caught exception: "),
    ("[default0]:[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout",
     "[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout"),
    # Python logging prefixes: asctime - levelname - name (shun-zheng/Doc2EDAG#24), basicConfig's default
    ("2021-08-13 10:46:03 - INFO - torch.distributed.elastic.agent.server.api - [default] Starting worker group",
     "[default] Starting worker group"),
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 218624) of binary: /usr/bin/python",
     "failed (exitcode: -6) local_rank: 0 (pid: 218624) of binary: /usr/bin/python"),
    # "%(asctime)s %(levelname)s [%(name)s] " (databrickslabs/dolly training/trainer.py's basicConfig) over DeepSpeed's
    # launcher line and its own "[asctime] [LEVEL] " (deepspeedai/DeepSpeed#3262)
    ("2023-04-15 22:25:49 INFO [__main__] [2023-04-15 22:25:49,992] [INFO] [launch.py:229:main] WORLD INFO DICT: {'localhost': [3, 5]}",
     "[launch.py:229:main] WORLD INFO DICT: {'localhost': [3, 5]}"),
    # vLLM's logger (vllm/logger.py _FORMAT) under its worker tag, both file forms (vllm-project/vllm#6732, #39774)
    ("(VllmWorkerProcess pid=759) ERROR 07-24 08:26:01 multiproc_worker_utils.py:226]     output = executor(*args, **kwargs)",
     "output = executor(*args, **kwargs)"),
    ("(Worker pid=1541060) ERROR 04-14 13:46:59 [multiproc_executor.py:857]     return GroupCoordinator(",
     "return GroupCoordinator("),
    # vLLM V1's worker tag carries its rank (multiproc_executor.py _add_prefix(..., f"VllmWorker rank={rank}", pid);
    # https://github.com/vllm-project/vllm/issues/20226)
    ("(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511]     self.device_communicator = device_comm_cls(",
     "self.device_communicator = device_comm_cls("),
    # a collector's bracketed local time (scitix/sichek#44)
    ("[2026-01-04 21:33:04] test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3] transport/net_ib.cc:2360 NCCL WARN NET/IB: "
     "Got completion from peer 172.16.234.184<53393> with status=12 opcode=1 len=5222 vendor err 129 (Send)",
     "test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3] transport/net_ib.cc:2360 NCCL WARN NET/IB: "
     "Got completion from peer 172.16.234.184<53393> with status=12 opcode=1 len=5222 vendor err 129 (Send)"),
    # SGLang's logger, its process's ranks inside the stamp (python/sglang/srt/utils configure_logger
    # "[%(asctime)s{prefix}] ", prefix " DP<n> PP<n> TP<n> EP<n>" as set: sgl-project/sglang#10216, #12978), and without
    # ranks (tp 1; sgl-project/sglang#11830)
    ("[2025-09-09 08:32:09 TP0 EP0] Decode batch. #running-req: 1, #token: 2625, token usage: 0.01, cuda graph: True, gen throughput (token/s): 40.49, #queue-req: 0, ",
     "Decode batch. #running-req: 1, #token: 2625, token usage: 0.01, cuda graph: True, gen throughput (token/s): 40.49, #queue-req: 0, "),
    ("[2025-11-10 19:59:09 TP1] Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB.",
     "Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB."),
    ("[2025-11-30 11:18:01] Capture cuda graph end. Time elapsed: 5.92 s. mem usage=1.44 GB. avail mem=37.06 GB.",
     "Capture cuda graph end. Time elapsed: 5.92 s. mem usage=1.44 GB. avail mem=37.06 GB."),
    # a terminal's colours: dmesg --color=always (util-linux print_record: stamp green, subsystem brown),
    # systemd >= 256's journalctl highlight, and the kernel log's escaped form (util-linux#858)
    ("\x1b[32m[ 4564.303884] \x1b[0m\x1b[33mNVRM: \x1b[0m\x1b[31mXid (PCI:0000:01:00): 79, GPU has fallen off the bus.\x1b[0m",
     "[ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus."),
    ("\x1b[0;1;38:5:185mnode1:1234:1290 [3] NCCL INFO proxy.cc:694 -> 6\x1b[0m", "node1:1234:1290 [3] NCCL INFO proxy.cc:694 -> 6"),
    ("[49357.243822] user[31957]: \\x1b[41mthis be in red\\x1b(B\\x1b[m but this in normal.",
     "[49357.243822] user[31957]: this be in red but this in normal."),
    # a kernel record of several lines as a reader of /dev/kmsg prints it (talosctl dmesg): its newlines escaped
    # (kernel/printk/printk.c msg_add_ext_text), read joined by a blank (CONSTRUCTED from nv.c's four-line nv_printf)
    ("node1: kern: warning: [2023-09-14T03:08:37.411164757Z]: NVRM: API mismatch: the client has the version 535.54.03, "
     "but\\x0aNVRM: this kernel module has the version 535.104.05.  Please",
     "node1: kern: warning: [2023-09-14T03:08:37.411164757Z]: NVRM: API mismatch: the client has the version 535.54.03, "
     "but NVRM: this kernel module has the version 535.104.05.  Please"),
    # (a program's repr of the byte stays: must not)
    ("data = b'\\x0a' + rest", "data = b'\\x0a' + rest"),
    # rsyslog's escape of control characters ('#' + three octal digits: ESC = #033), as vllm#1160 pasted Ray's lines
    ("#033[2m#033[33m(raylet)#033[0m [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /",
     "(raylet) [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /"),
]


def test_wrappers_stripped():
    for raw, want in CASES:
        assert normalise(raw) == want, raw
    # many lines at once keep their count
    text = "\n".join(r for r, _ in CASES) + "\n"
    assert normalise(text).split("\n") == [w for _, w in CASES] + [""]


def test_format_prefixes_kept():
    text = "\n".join(KEPT)
    assert normalise(text) is text


def test_evidence_quotes_the_line_as_posted():
    raw = "Some notes:\n`node1:1633:1633 [0] init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`\n"
    art = Artefact(path="nccl.log", text=raw)
    res = parse_one(art)
    warns = [f for f in res.facts if f.kind == "nccl_warn"]
    assert warns, "the WARN inside backticks is parsed"
    assert warns[0].evidence.line == 2
    assert warns[0].evidence.text.startswith("`node1:1633:1633 [0] init.cc:1247")


def test_links_a_rich_text_paste_leaves_inside_lines_are_unwrapped():
    """nccl#1710: GitHub turned file:line and addresses into links whose text is the address."""
    raw = ("> node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : mlx5_0:1 "
           "Got async event : local access violation work queue error\n"
           "> node023:10214:10303 [0] transport/[net_ib.cc:1909](http://net_ib.cc:1909/) NCCL WARN NET/IB : Got completion "
           "from peer [10.1.3.201](http://10.1.3.201/)<33057> with status=9 opcode=0 len=0 vendor err 138 (Send)\n")
    out = normalise(raw).splitlines()
    assert out[0] == ("node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : "
                      "local access violation work queue error")
    assert "from peer 10.1.3.201<33057> with status=9" in out[1]
    # a link whose text is not its address is the author's: kept
    own = "see [the NCCL docs](https://docs.nvidia.com/deeplearning/nccl/) for NCCL_IB_HCA"
    assert normalise(own) == own


def test_log_pipeline_wrappers_stripped():
    for raw, want in WRAPPED:
        assert normalise(raw) == want, raw


# issue 11 (round rK3): log viewers' and CI runners' copies, each a real line of its form
VIEWER_COPIES = [
    # Loki's logcli query, default output (grafana/loki docs/logcli.md; pkg/logcli/output/default.go "%s %s %s")
    ('2018-06-25T12:52:09Z {instance="consul-8576459955-pl75w"} 2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete',
     "2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete"),
    # (CONSTRUCTED from default.go: a time zone's offset, two labels padded to the longest set with blanks)
    ('2026-12-05T12:22:07+01:00 {app="trainer", pod="trainer-0"}    gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 \'unknown error',
     "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"),
    # gh run view --log (cli/cli pkg/cmd/run/view/view.go: "%s\t%s\t", job, step, before the runner's line)
    ("quality (node 24)\tRun npm test\t2026-08-14T05:58:44.3460626Z ##[group]Run npm test", "Run npm test"),
    # the runner's tags (actions/runner ExecutionContext.cs WellKnownTags), after its time and alone
    ("2026-06-30T11:36:02.1044260Z ##[error]Error: failed to run script step: Error: command terminated with non-zero exit code: command terminated with exit code 1",
     "Error: failed to run script step: Error: command terminated with non-zero exit code: command terminated with exit code 1"),
    ("##[error]Process completed with exit code 1.", "Process completed with exit code 1."),
]


def test_a_log_viewer_s_or_ci_runner_s_prefix_goes():
    for raw, want in VIEWER_COPIES:
        assert normalise(raw) == want, raw
    text = "\n".join(r for r, _ in VIEWER_COPIES) + "\n"
    assert normalise(text).split("\n") == [w for _, w in VIEWER_COPIES] + [""]


@pytest.mark.parametrize("raw, want", [
    # a table's row whose third cell is a time of microseconds (not the runner's 100 ns): no gh run view line
    ("node1\tgpu0\t2024-05-01T12:00:00.123456Z 79", "node1\tgpu0\t2024-05-01T12:00:00.123456Z 79"),
    # the runner's tag inside a line, and a label set with no time before it: the poster's words
    ("grep the log for ##[error] lines", "grep the log for ##[error] lines"),
    ('{app="trainer"} NCCL WARN x', '{app="trainer"} NCCL WARN x'),
    # a JSON record after a container's stamp keeps its braces (no label set: a member's name is quoted)
    ('2024-05-01T12:00:00Z {"level":"error","msg":"x"}', '{"level":"error","msg":"x"}'),
])
def test_near_misses_of_a_viewer_s_prefix_are_kept(raw, want):
    assert normalise(raw) == want


@pytest.mark.parametrize("prefix", [
    '2026-12-05T11:22:07Z {app="trainer", pod="trainer-0"} ',
    "train (gpu)\tRun python train.py\t2026-12-05T11:22:07.1234567Z ",
    "2026-12-05T11:22:07.1234567Z ##[error]",
])
def test_an_nccl_warn_behind_a_viewer_s_prefix_is_read(prefix):
    line = "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"
    res = parse_one(Artefact(path="job.log", text=prefix + line + "\n"))
    warns = [f for f in res.facts if f.kind == "nccl_warn"]
    assert warns and warns[0].evidence.text == prefix + line


# issue 11 (round rL3): one JSON record a line, as the journal and log shippers export them; real records
JSON_RECORDS = [
    # journalctl -o json as systemd writes it now (fields in its hashmap's order; the search index's file 26140624753)
    ('{"__REALTIME_TIMESTAMP":"1655046591494032","_SOURCE_REALTIME_TIMESTAMP":"1655046591493997","__CURSOR":"s=5726468a2162439e9e18a191202b1a7b;i=28e9c;b=e8ee305cff53408da12356a3876792ba;m=370bd562e;t=5e141902c3790;x=ec3c36f10424aa47","__MONOTONIC_TIMESTAMP":"14776358446","MESSAGE":"Invalid user ark from 43.154.144.211 port 42608","_BOOT_ID":"e8ee305cff53408da12356a3876792ba"}',
     "Invalid user ark from 43.154.144.211 port 42608"),
    # journalctl -o json as older systemd wrote it, blanks around the colons (CONSTRUCTED end: DigitalOcean's tutorial
    # cuts its record after _GID; the message a real NCCL WARN, NVIDIA/nccl-tests#276's)
    ('{ "__CURSOR" : "s=13a21661cf4948289c63075db6c25c00;i=116f1;b=81b58db8fd9046ab9f847ddb82a2fa2d;m=19f0daa;t=50e33c33587ae;x=e307daadb4858635", "__REALTIME_TIMESTAMP" : "1422990364739502", "__MONOTONIC_TIMESTAMP" : "27200938", "_BOOT_ID" : "81b58db8fd9046ab9f847ddb82a2fa2d", "PRIORITY" : "6", "_UID" : "0", "_GID" : "0", "MESSAGE" : "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 \'unknown error" }',
     "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"),
    # Filebeat's documents in an Elasticsearch bulk request (the search index's file 7263426428), the message first in one
    ('{"@timestamp":"2023-06-06T04:48:11.735Z","log":{"offset":71770,"file":{"path":"/var/log/auth.log"}},"message":"foobar"}',
     "foobar"),
    ('{"message":"xyz","@timestamp":"2023-06-06T04:48:13.735Z","x":"y"}', "xyz"),
]


def test_a_journal_or_log_shipper_json_record_is_read_as_its_message():
    for raw, want in JSON_RECORDS:
        assert normalise(raw) == want, raw
    text = "\n".join(r for r, _ in JSON_RECORDS) + "\n"
    assert normalise(text).split("\n") == [w for _, w in JSON_RECORDS] + [""]
    # a message of several lines (a traceback sent as one entry) stays one line; a Windows line end stays
    assert normalise('{"@timestamp":"x","message":"Traceback:\\n  File \\"a.py\\""}\r\nnext') == 'Traceback:   File "a.py"\r\nnext'


@pytest.mark.parametrize("raw", [
    # no timestamp key of either form: another program's JSON (an event, a journal entry's fields without the time)
    '{"MESSAGE":"NCCL WARN x"}',
    '{"level":"error","msg":"x"}',
    '{"event": "Test warn", "level": "warning", "gpu": "GPU-64c6592e"}',
    # the timestamp without a message string: a message too long (null), not printable (bytes), given twice, none
    '{"__REALTIME_TIMESTAMP":"1422990364739502","MESSAGE":null}',
    '{"__REALTIME_TIMESTAMP":"1422990364739502","MESSAGE":[78,67,67,76]}',
    '{"@timestamp":"2023-06-06T04:48:11.735Z","status":200}',
    # cut short (no closing brace), or not JSON, or a record inside a line
    '{"@timestamp":"2023-06-06T04:48:11.735Z","message":"foo',
    '{"@timestamp":"2023-06-06T04:48:11.735Z","message":"a" "b"}',
    'shipped {"@timestamp":"2023-06-06T04:48:11.735Z","message":"foobar"}',
    # nested past json's depth (a hostile line): kept, no traceback
    '{"@timestamp":' + "[" * 100000 + "]" * 100000 + ', "message": "x"}',
])
def test_json_records_that_are_no_exported_log_line_are_kept(raw):
    assert normalise(raw) == raw


# issue 11 (round rO1): an application's own JSON record read as its message, the error its call site attached after it
# (facts/records.py app_record_line: zap's, logrus's and slog's JSON encoders, "msg" beside a level and a time key)
GPU_OPERATOR_1310 = ('{"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is not '
                     'ready, states not ready: [state-operator-validation state-device-plugin state-dcgm-exporter '
                     'gpu-feature-discovery state-mig-manager]"}')  # NVIDIA/gpu-operator#1310, the operator's log (zap)
GPU_OPERATOR_122 = ('{"level":"info","ts":1609192433.9836864,"logger":"controller_clusterpolicy","msg":"DEBUG: DaemonSet",'
                    '"LabelSelector":"app=nvidia-driver-daemonset"}')  # NVIDIA/gpu-operator#122, the operator's log (zap)
APP_RECORDS = [
    (GPU_OPERATOR_1310, "ClusterPolicy is not ready, states not ready: [state-operator-validation state-device-plugin "
                        "state-dcgm-exporter gpu-feature-discovery state-mig-manager]"),
    (GPU_OPERATOR_122, "DEBUG: DaemonSet"),
    # CONSTRUCTED around real messages: slog's JSONHandler (time, level, msg; the error as "err"), logrus's JSONFormatter
    # (level, msg, time; WithError's "error"), zap's error field where the message already ends with it (said once)
    ('{"time":"2026-01-29T21:41:35.551566446Z","level":"ERROR","msg":"device query failed","err":"Failed to initialize '
     'NVML: Driver/library version mismatch"}',
     "device query failed: Failed to initialize NVML: Driver/library version mismatch"),
    ('{"level":"error","msg":"Error starting nv-hostengine","error":"DCGM initialization error","time":"2021-12-14T17:28:56Z"}',
     "Error starting nv-hostengine: DCGM initialization error"),
    ('{"level":"warn","ts":1741165859.5,"caller":"x/y.go:77","msg":"init: no such device","error":"no such device"}',
     "init: no such device"),
    # logrus's JSONFormatter with a field of its own (kept as written before round rO1)
    ('{"level":"info","msg":"Starting nccl-benchmark","slurmNode":"worker-1","time":"2025-01-03T09:37:10Z"}',
     "Starting nccl-benchmark"),
]


def test_an_applications_json_record_is_read_as_its_message():
    for raw, want in APP_RECORDS:
        assert normalise(raw) == want, raw
    text = "\n".join(r for r, _ in APP_RECORDS) + "\n"
    assert normalise(text).split("\n") == [w for _, w in APP_RECORDS] + [""]


GPUD_1238 = ('{"level":"warn","ts":"2026-04-23T00:50:09.175Z","caller":"log/log.go:175","msg":"error getting processes",'
             '"error":"failed to get process 2748003 environ: open /proc/2748003/environ: no such process"}')


@pytest.mark.parametrize("raw, want", [
    # must not: no time key, no level, no message string: kept; a shipper's "message" record: read as before
    ('{"level":"error","msg":"x"}', None),
    ('{"ts":1741165859.1,"msg":"x"}', None),
    ('{"level":"error","ts":1741165859.1,"msg":{"text":"x"}}', None),
    ('{"level":"info","ts":1741165859.1,"msg":"x","message":"y"}', "y"),
    # gpud's journal (facts/parsers/gpud_journal.py reads its raw records; leptonai/gpud#1238's line): its tag goes as
    # before, the record stays; gpud's caller marks its record where no tag names gpud
    ("2026-04-23T00:50:09.175720+00:00 worker-node-8 gpud[3567]: " + GPUD_1238, GPUD_1238),
    (GPUD_1238, None),
])
def test_json_records_that_are_no_applications_message_line_are_kept(raw, want):
    assert normalise(raw) == (raw if want is None else want)


# issue 11 (round rP1): Rust's tracing-subscriber JSON records (text-generation-inference's launcher under --json-output)
# read as the compact text line the same program writes without it (facts/records.py tracing_record_line)
TGI_402 = [  # huggingface/text-generation-inference#402, the launcher's records (real)
    ('{"timestamp":"2023-06-02T14:12:35.001957Z","level":"INFO","fields":{"message":"Waiting for shard 0 to be ready..."},'
     '"target":"text_generation_launcher"}',
     "2023-06-02T14:12:35.001957Z  INFO text_generation_launcher: Waiting for shard 0 to be ready..."),
    ('{"timestamp":"2023-06-02T14:12:37.201088Z","level":"INFO","fields":{"message":"Shutting down shards"},'
     '"target":"text_generation_launcher"}',
     "2023-06-02T14:12:37.201088Z  INFO text_generation_launcher: Shutting down shards"),
]


def test_a_tracing_json_record_is_read_as_its_compact_line():
    from stethoscope.facts.records import read_records
    for raw, want in TGI_402:
        assert read_records("\n" + raw + "\n") == "\n" + want + "\n", raw
    # CONSTRUCTED from tracing-subscriber's Format<Json> (the current span and the entered spans, each with its name and
    # fields) and TGI's shard-manager span: the span's name before the target, its rank at the end as the compact form
    raw = ('{"timestamp":"2024-01-01T00:00:00.000000Z","level":"ERROR","fields":{"message":"Shard process was signaled to '
           'shutdown with signal 7"},"target":"text_generation_launcher","span":{"rank":1,"name":"shard-manager"},'
           '"spans":[{"rank":1,"name":"shard-manager"}]}')
    assert read_records("\n" + raw + "\n") == ("\n2024-01-01T00:00:00.000000Z ERROR shard-manager: text_generation_launcher: "
                                               "Shard process was signaled to shutdown with signal 7 rank=1\n")


@pytest.mark.parametrize("raw", [
    # no message in fields, a level tracing does not write, no timestamp, the record cut short (#402's excerpt's end)
    '{"timestamp":"2023-06-02T14:12:35.001957Z","level":"INFO","fields":{"answer":42},"target":"x"}',
    '{"timestamp":"2023-06-02T14:12:35.001957Z","level":"info","fields":{"message":"x"},"target":"x"}',
    '{"level":"INFO","fields":{"message":"x"},"target":"x"}',
    '{"timestamp":"2023-06-02T14:12:3',
])
def test_json_records_that_are_no_tracing_record_are_kept(raw):
    from stethoscope.facts.records import read_records
    assert read_records("\n" + raw + "\n") == "\n" + raw + "\n"


@pytest.mark.parametrize("raw, want", JSON_RECORDS[1:2])
def test_an_nccl_warn_in_a_json_record_is_read_with_the_record_as_evidence(raw, want):
    res = parse_one(Artefact(path="journal.json", text=raw + "\n"))
    warns = [f for f in res.facts if f.kind == "nccl_warn"]
    assert warns and warns[0].evidence.text == raw


# issue 11 (round rM2): other shippers' and log searches' records, each beside its documented form (CONSTRUCTED around
# a line; Vector's kubernetes_logs record as vectordotdev/vector's docs give its fields, LogCLI's as jsonl.go marshals)
SHIPPER_RECORDS = [
    # Fluent Bit json_lines (json_date_key "date"), the tail input's line in "log"
    ('{"date":1764933700.735196,"log":"NCCL WARN Cuda failure \'out of memory\'"}', "NCCL WARN Cuda failure 'out of memory'", None),
    # Fluent Bit with its docker / cri parser's time and the kubernetes filter's metadata (its "host": the node)
    ('{"date":1764933701.7,"time":"2026-12-05T11:22:01.7Z","stream":"stderr","_p":"F","log":"Status : Insufficient Resources",'
     '"kubernetes":{"pod_name":"trainer-0","namespace_name":"default","host":"gpu-node-7","container_name":"pytorch"}}',
     "Status : Insufficient Resources", "gpu-node-7"),
    ('{"time":"2026-12-05T11:22:02.7Z","stream":"stdout","logtag":"F","message":"CliqueId : 0"}', "CliqueId : 0", None),
    # Vector's json codec (keys sorted), its file source and its kubernetes_logs source (pod_node_name: the node)
    ('{"file":"/var/log/trainer.log","host":"gpu-node-8","message":"a line","source_type":"file","timestamp":"2026-12-05T11:22:03Z"}',
     "a line", "gpu-node-8"),
    ('{"file":"/var/log/pods/default_trainer-0_1/pytorch/0.log","kubernetes":{"container_name":"pytorch","pod_name":"trainer-0",'
     '"pod_namespace":"default","pod_node_name":"gpu-node-9"},"message":"b line","source_type":"kubernetes_logs",'
     '"stream":"stderr","timestamp":"2026-12-05T11:22:04Z"}', "b line", "gpu-node-9"),
    # LogCLI --output jsonl (labels, line, timestamp); a JSON array of records one a line
    ('{"labels":{"app":"trainer","host":"gpu-node-10"},"line":"c line","timestamp":"2026-12-05T11:22:05Z"}', "c line", "gpu-node-10"),
    ('[{"@timestamp":"2026-12-05T11:22:06Z","message":"d line"},', "d line", None),
    ('{"@timestamp":"2026-12-05T11:22:07Z","message":"e line","host":{"name":"gpu-node-11"}}]', "e line", "gpu-node-11"),
]


def test_a_shippers_record_is_read_as_its_line_and_names_its_host():
    for raw, want, host in SHIPPER_RECORDS:
        assert normalise(raw) == want, raw
        assert record_hosts(raw) == ([host] if host else None), raw
    text = "\n".join(r for r, _, _ in SHIPPER_RECORDS) + "\n"
    assert normalise(text).split("\n") == [w for _, w, _ in SHIPPER_RECORDS] + [""]
    assert record_hosts(text) == [h for _, _, h in SHIPPER_RECORDS] + [None]


@pytest.mark.parametrize("raw", [
    # gpud's zap JSON lines ("msg": read by gpud_journal as they are; another application's record is read as its
    # message since round rO1: test_an_applications_json_record_is_read_as_its_message)
    '{"level":"warn","ts":"2026-04-23T00:50:09.175Z","caller":"log/log.go:175","msg":"error getting processes"}',
    # a line key that holds no string (Filebeat's "log" object without "message"), no time key, a host key alone
    '{"@timestamp":"2026-12-05T11:22:00Z","log":{"offset":1}}',
    '{"host":"gpu-node-7","message":"no time"}',
])
def test_json_of_other_forms_is_kept(raw):
    assert normalise(raw) == raw
    assert record_hosts(raw) is None


def test_a_log_searchs_csv_export_is_read_as_its_line_column():
    # Kibana's Generate CSV (RFC 4180 cells), a cell of two lines over its two rows; Datadog's columns with a host
    text = ('nvidia-smi said:\n"@timestamp",message\n"Dec 5, 2026 @ 11:22:00.735","Status : Insufficient Resources"\n'
            '"Dec 5, 2026 @ 11:22:01.735","Traceback (most recent call last):\n  File ""a.py"", line 1"\n\n'
            'Date,Host,Service,Message\n2026-12-05T11:22:02Z,gpu-node-7,trainer,CliqueId : 0\n')
    assert normalise(text).split("\n") == [
        "nvidia-smi said:", "", "Status : Insufficient Resources", "Traceback (most recent call last):", '  File "a.py", line 1',
        "", "", "CliqueId : 0", ""]
    assert record_hosts(text) == [None] * 7 + ["gpu-node-7", None]


@pytest.mark.parametrize("raw", [
    # nvidia-smi --query-gpu=timestamp,...: a time column and no line column
    "timestamp, name, pci.bus_id, temperature.gpu\n2026/12/05 11:22:00.735, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 34\n",
    # a header naming both, its rows not of its cells
    "time,message\nthe run failed, then passed, then failed\n",
])
def test_csv_of_other_forms_is_kept(raw):
    assert normalise(raw) == raw


def test_a_pretty_printed_records_line_member_is_read():
    # aws-samples/stable-diffusion-on-eks#96: Fluent Bit's records from CloudWatch, pretty-printed, pasted cut (verbatim)
    text = (FIX / "artefacts" / "log_shipper_prefix" / "sd_on_eks96_cloudwatch_fluentbit_records_paste.txt").read_text()
    lines = normalise(text).split("\n")
    assert lines[3] == "mkdir: cannot create directory '/tmp/models/CLIP': Permission denied"
    assert lines[11].startswith("Warning: caught exception 'Found no NVIDIA driver on your system.")
    assert lines[0] == text.split("\n")[0] and len(lines) == len(text.split("\n"))
    # must not: a document's nested "message" (not at its time member's level), a block without a time member
    for raw in ('{\n  "timestamp": "2026",\n  "status": {\n    "message": "x"\n  }\n}\n',
                '{\n  "kind": "Event",\n  "message": "Stopping container"\n}\n'):
        assert normalise(raw) == raw


# journalctl -o json-pretty's record as bench/plant_prefix_probe.py builds it (CONSTRUCTED: json.dumps(..., indent=8) of
# systemd's fields), around harvest 306's real line (NVIDIA/nccl-tests#14), pasted below nccl-tests rows
PRETTY_306 = ('{\n        "__CURSOR": "s=5726468a2162439e9e18a191202b1a7b;i=28e90",\n        "__REALTIME_TIMESTAMP": '
              '"1764933600494032",\n        "_HOSTNAME": "gpu-node-7",\n        "SYSLOG_IDENTIFIER": "python3",\n        '
              '"MESSAGE": "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not '
              'supported by protocol"\n}')


def test_a_pretty_printed_records_other_rows_are_blank_where_its_line_is_read():
    # round rO1 (bench/plant_prefix_probe.py --prefixes rM2: the record below an nccl-tests capture read otherwise than
    # the bare line): its closing brace was joined to the MESSAGE member (the text's one longest row, read as cut), so the
    # member was read no longer; its other rows were unread lines. Now the brace ends no cut, the other rows are blank
    base = (FIX / "observations/h200-x2/nccl-tests/allreduce_healthy_g2.txt").read_text().rstrip("\n")
    text = base + "\n" + PRETTY_306 + "\n"
    lines = normalise(text).split("\n")
    n = len(base.split("\n"))
    assert len(lines) == len(text.split("\n"))
    assert lines[n:n + 7] == ["", "", "", "", "", "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : "
                              "Address family not supported by protocol", ""]
    assert normalise(PRETTY_306.replace("\n", "\r\n") + "\r\n").split("\n")[5].startswith("e66aa18dc444:3171:3171")
    # must not: a record with a member over several rows (an object) keeps its rows; a row of members without braces
    # (a paste cut, aws-samples/stable-diffusion-on-eks#96 above) keeps them
    nested = '{\n  "time": "2026",\n  "kubernetes": {\n    "host": "n1"\n  },\n  "log": "x"\n}\n'
    assert normalise(nested) == '{\n  "time": "2026",\n  "kubernetes": {\n    "host": "n1"\n  },\nx\n}\n'
    assert normalise('  "time": "2026",\n  "log": "x",\n  "stream": "stdout"\n') == '  "time": "2026",\nx\n  "stream": "stdout"\n'


@pytest.mark.parametrize("raw, want", [
    # eth-cscs/cscs-reframe-tests#224 (a PR comment, verbatim): srun's error quoted inside a sentence
    ("getting `srun: error: _fwd_tree_get_addr: can't find address for host nid006677, check slurm.conf`\n",
     "srun: error: _fwd_tree_get_addr: can't find address for host nid006677, check slurm.conf\n"),
    # CONSTRUCTED around real forms: a Python exception's line, NCCL's WARN, the driver's line, a CR line end
    ("we see `RuntimeError: CUDA error: out of memory` when running\n", "RuntimeError: CUDA error: out of memory\n"),
    ("the log says `gpu1:12:34 [0] NCCL WARN Net : Connection closed by remote peer` then hangs\n",
     "gpu1:12:34 [0] NCCL WARN Net : Connection closed by remote peer\n"),
    # NCCL 2.32's ATTN level, the same prefix as WARN (CONSTRUCTED from src/debug.cc's "NCCL ATTN %s" and a 2.32 ATTN format)
    ("the log says `gpu1:12:34 [0] NCCL ATTN Invalid value abc for NCCL_IB_TIMEOUT, using default 20.` once\n",
     "gpu1:12:34 [0] NCCL ATTN Invalid value abc for NCCL_IB_TIMEOUT, using default 20.\n"),
    ("dmesg had `NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.` twice\r\n",
     "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\r\n"),
])
def test_a_log_line_quoted_inline_in_a_sentence_is_read(raw, want):
    assert normalise(raw) == want


@pytest.mark.parametrize("raw", [
    # must not: a span of a command, a setting, a word; two spans on the row; a sentence ending in a span of prose words
    "run `nvidia-smi` and it says fine\n",
    "set `error: true` in the config\n",
    "x `a` y `RuntimeError: boom` z\n",
    "the `Error: ` prefix is what we grep for\n",
])
def test_inline_code_in_a_sentence_that_holds_no_log_line_stays(raw):
    assert normalise(raw) == raw


def test_a_common_margin_goes_and_the_text_keeps_its_own_indentation():
    """aws/aws-k8s-tester#464: an mpirun-tagged log pasted indented; srun -l and a CRI stamp keep
    the indentation of ibstatus' fields (a line's own structure)."""
    raw = ("        [1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket\n"
           "        [1,1]<stdout>:multi-node-nccl-test-worker-1:21:26 [0] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1\n")
    assert normalise(raw).splitlines() == [
        "multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket",
        "multi-node-nccl-test-worker-1:21:26 [0] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1"]
    block = "Infiniband device 'mlx5_0' port 1 status:\n        state:           4: ACTIVE\n"
    for wrap in ("3: ", "2019-04-30T02:12:41.8443515Z stdout F ", "    ", "\t"):
        wrapped = "".join(wrap + ln + "\n" for ln in block.splitlines())
        assert normalise(wrapped) == block, wrap
    # only a margin every line shares goes; tabs below a tab margin are the text's (lspci -vvv)
    assert normalise("    Temperature\n        GPU Current Temp : 32 C\n") == "Temperature\n    GPU Current Temp : 32 C\n"
    lspci = "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n\tKernel driver in use: mlx5_core\n"
    assert normalise(lspci) is lspci


def test_the_rank_of_a_stripped_label_stays_readable():
    """The global rank of PyTorch's label is read from the line as read, also behind torchrun's
    local-rank label (which is not the global rank)."""
    for raw in ("[rank11]: RuntimeError: CUDA error: an illegal memory access was encountered\n",
                "[default3]:[rank11]: RuntimeError: CUDA error: an illegal memory access was encountered\n"):
        errors = [f for f in parse_one(Artefact(path="train.log", text=raw)).facts if f.kind == "cuda_error"]
        assert [e.rank for e in errors] == [11], raw
    errors = [f for f in parse_one(Artefact(path="train.log", text=(
        "[default3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"))).facts if f.kind == "cuda_error"]
    assert [e.rank for e in errors] == [None]
    # behind Ray's actor tag (cuda_app's sample): the rank of the label, the pid of the tag
    errors = [f for f in parse_one(Artefact(path="train.log", text=(
        "(WorkerDict pid=63294) [rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"))).facts
              if f.kind == "cuda_error"]
    assert [(e.rank, e.pid) for e in errors] == [(3, 63294)]


def test_the_node_is_read_behind_the_wrappers(tmp_path):
    """The NCCL host of a line under an mpirun tag or Ray's actor tag names the file's node;
    NCCL's own host:pid:tid [dev] prefix still gives the host."""
    from stethoscope.facts.bundle import artefacts, read_bundle

    (tmp_path / "ray.log").write_text(
        "(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072\n")
    (tmp_path / "mpi.log").write_text(
        "[1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket\n")
    (tmp_path / "plain.log").write_text(
        "12f0e56ac84d:2338971:2339161 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n")
    arts, _ = artefacts(read_bundle(tmp_path))
    nodes = {a.path: a.node for a in arts}
    assert nodes == {"ray.log": "k8s17", "mpi.log": "multi-node-nccl-test-worker-0", "plain.log": "12f0e56ac84d"}


def test_evidence_quotes_the_line_as_read_when_a_reader_quotes_the_normalised_one():
    """A reader that passes the (normalised) line it read as evidence text still cites the line
    as it stands in the file, with the wrapper the normaliser took off (FactBuilder.add)."""
    from stethoscope.facts.parsers import torch_log
    from stethoscope.facts.parsers.base import Artefact

    line = ("[rank0]:[E1129 19:55:44.468203988 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=4, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
            "Timeout(ms)=20000) ran for 20052 milliseconds before timing out.")
    art = Artefact(path="rank0.log", node="n1", text=line + "\n")
    art.normalise()
    assert art.raw_text is not None and not art.text.startswith("[rank0]:")
    facts = [f for f in torch_log.parse(art).facts if f.kind == "torch_watchdog_timeout"]
    assert facts and facts[0].evidence.text == line


def test_a_label_on_every_line_of_a_report_goes():
    """pdsh's "host: ", docker compose's "svc-1  | " and a journald prefix over every line of an
    indented report (nvidia-smi -q: fixtures/harvest case 108's section) go; a log's labelled
    lines (a unit's journal, a kernel device's, a table without an index) stay as they are."""
    report = "GPU 00000000:00:06.0\n    Remapped Rows\n        Uncorrectable Error               : 4\n        Pending       : Yes\n"
    for label in ("node01: ", "dgx-a100-3.cluster: ", "trainer-1  | ", "proj_smi_1 | ",
                  "Nov 29 18:30:18 gpu-node-3 nvidia-smi[4242]: ", "2026-11-29T18:32:13.123456+00:00 node17 gpu-check.sh[77]: "):
        wrapped = "".join(label + ln + "\n" for ln in report.splitlines())
        assert normalise(wrapped) == report, label
    kept = [
        # fabric manager's journal (its reader reads the tag): no indentation under the label
        "Nov 29 18:30:18 node1 nv-fabricmanager[3228]: Successfully configured all the available NVSwitches\n"
        "Nov 29 18:30:19 node1 nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02\n",
        # the kernel's lines are the kernel log reader's
        "Nov 29 18:30:18 node1 kernel: pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000\n"
        "Nov 29 18:30:18 node1 kernel:    [14] CmpltTO                (First)\n",
        # a device label, /proc/meminfo's aligned keys, a table's rows
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up\n"
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 62 Sub-engine instance 00\n",
        "MemTotal:       263741532 kB\nDirectMap2M:    12345678 kB\n",
        "GPU  | Name     | Bus-Id\n0    |   H100   | 00000000:18:00.0\n",
    ]
    for text in kept:
        assert normalise(text) is text, text


# pdsh over two hosts, each host's kernel lines as `dmesg` prints them (CONSTRUCTED from the Xid forms of
# facts/parsers/kernel_log.py's samples and pdsh's "host: line"; wild sweep rK6's probe): the hosts' lines
# interleave as they arrive and the second host's clock is behind the first's
PDSH_TWO_HOSTS = (
    "gpu-node01: [1226513.120345] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    "gpu-node02: [   90.332110] NVRM: Xid (PCI:0000:3b:00): 13, pid=1762, name=python, Graphics Exception: ESR 0x50da30=0x10000e\n"
    "gpu-node01: [1226513.121000] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.\n"
    "\n"
    "gpu-node02: [   95.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=1762, name=python, Graphics Exception: ESR 0x50da30=0x10000e\n"
)


def test_pdsh_over_several_hosts_reads_each_host_as_its_node():
    """Each host's lines are read apart, as that host printed them: its facts name the host, evidence quotes the
    line as read (the label with it) at its line in the file, and the file is one coverage row of its own node."""
    res = parse_one(Artefact(path="pdsh_dmesg.txt", node="ticket", text=PDSH_TWO_HOSTS))
    xids = sorted((f.node, f.pci_bus_id, f.xid, f.evidence.line) for f in res.facts if f.kind == "xid_event")
    assert xids == [("gpu-node01", "0000:18:00.0", 79, 1), ("gpu-node02", "0000:3b:00.0", 13, 2),
                    ("gpu-node02", "0000:3b:00.0", 13, 5)]
    assert {f.evidence.text.split(": [", 1)[0] for f in res.facts if f.kind == "xid_event"} == {"gpu-node01", "gpu-node02"}
    assert res.coverage is not None and res.coverage.node == "ticket" and res.coverage.kind == "kernel_log"
    assert res.hosts == ["gpu-node01", "gpu-node02"] and not res.errors
    # one host's lines read alone give the same facts as in the paste (the other host's clock is no reboot of it)
    alone = "".join(ln + "\n" if ln.startswith("gpu-node02") else "\n" for ln in PDSH_TWO_HOSTS.splitlines())
    mine = parse_one(Artefact(path="pdsh_dmesg.txt", node="gpu-node02", text=alone.replace("gpu-node02: ", "")))
    assert sorted(f.model_dump(exclude={"evidence", "id"}).items().__repr__() for f in mine.facts if f.kind == "xid_event") == \
        sorted(f.model_dump(exclude={"evidence", "id"}).items().__repr__() for f in res.facts
               if f.kind == "xid_event" and f.node == "gpu-node02")


def test_a_label_that_names_no_host_or_one_host_is_not_split():
    """A kernel device's label, an interface's, a rank's on every line, or one host alone: no split (line_hosts)."""
    from stethoscope.facts.lines import line_hosts

    assert line_hosts(PDSH_TWO_HOSTS) == ["gpu-node01", "gpu-node02", "gpu-node01", None, "gpu-node02", None]
    for text in ("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up\n"
                 "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 62 LTSSM Fault Up\n",
                 "eth0: link up\neth1: link down\n", "mlx5_0: port 1 up\nmlx5_1: port 1 down\n",
                 "rank0: loss 1.0\nrank1: loss nan\n", "gpu0: 81 C\ngpu1: 95 C\n",
                 "node17: Traceback (most recent call last):\nnode17: RuntimeError: CUDA error: an illegal memory access\n",
                 "gpu-node01: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\nplain line\n"):
        assert line_hosts(text) is None, text
    res = parse_one(Artefact(path="d.txt", node="n1", text="node17: [  12.0] NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=x, GPU has fallen off the bus.\n"))
    assert [f.node for f in res.facts if f.kind == "xid_event"] == ["n1"] and res.hosts == []


def test_one_hosts_label_places_a_text_placed_nowhere_else():
    """A text every line of which pdsh labels with one host (openucx/ucx#7738: "b1360: [14280.445220] mlx5_core ...")
    is that host's where nothing else places it (the node unknown); a file a bundle places keeps its node; a
    device's, a rank's or compose's label, or a line without one, places nothing (text_host)."""
    from stethoscope.facts.bundle import UNKNOWN_NODE
    from stethoscope.facts.lines import text_host

    xid = "node17: [  12.0] NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=x, GPU has fallen off the bus.\n"
    assert text_host(xid + "\n" + xid) == "node17" and text_host("10.0.0.7: " + xid[8:]) == "10.0.0.7"
    res = parse_one(Artefact(path="d.txt", node=UNKNOWN_NODE, text=xid))
    assert [f.node for f in res.facts if f.kind == "xid_event"] == ["node17"] and res.coverage.node == "node17"
    res = parse_one(Artefact(path="d.txt", node="n1", text=xid))
    assert [f.node for f in res.facts if f.kind == "xid_event"] == ["n1"]
    for text in (xid + "plain line\n", "rank0: loss 1.0\nrank0: loss nan\n", "eth0: link up\n",
                 "trainer-1  | " + xid[8:], PDSH_TWO_HOSTS, "Traceback (most recent call last):\n"):
        assert text_host(text) is None, text


# DeepSpeed's launcher over two hosts: its own line unlabelled, then pdsh's hosts' lines (hiyouga/LlamaFactory#2470's
# lines under their hosts, gpu003 and gpu004; the launcher's "cmd = pdsh ..." line CONSTRUCTED from
# deepspeed/launcher/runner.py's logger.info(f"cmd = ...") and multinode_runner.py's pdsh command)
DEEPSPEED_PDSH = (
    "[2024-02-11 22:35:50,101] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w gpu003,gpu004 cd /data/vayu/train/LLaMA-Factory; python -u -m deepspeed.launcher.launch src/train_bash.py\n"
    "gpu003: [2024-02-11 22:36:22,106] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 275125\n"
    "gpu003: Traceback (most recent call last):\n"
    "gpu003:   File \"/data/vayu/train/LLaMA-Factory/src/train_bash.py\", line 14, in <module>\n"
    "gpu003:     main()\n"
    "gpu004: RuntimeError: [15] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
    "store by key '0', but store->get('0') got error: Connection reset by peer. This may indicate a possible application "
    "crash on rank 0 or a network set up issue.\n"
    "pdsh@gpu003: gpu004: ssh exited with exit code 1\n"
)


def test_pdsh_hosts_below_a_launchers_own_lines_are_read_each_as_its_node():
    """The run of pdsh-labelled lines under DeepSpeed's own unlabelled line is read host by host (run_hosts): the
    store error names gpu004, where it was printed; the launcher's line and pdsh's own stay the file's node's."""
    from stethoscope.facts.lines import run_hosts

    hosts, bare = run_hosts(DEEPSPEED_PDSH)
    assert hosts == [None, "gpu003", "gpu003", "gpu003", "gpu003", "gpu004", None, None]
    assert bare.split("\n")[5].startswith("RuntimeError: [15] is setting up") and bare.split("\n")[0] == DEEPSPEED_PDSH.split("\n")[0]
    res = parse_one(Artefact(path="train.log", node="ticket", text=DEEPSPEED_PDSH))
    lost = [f for f in res.facts if f.kind == "torch_rendezvous_error"]
    assert {(f.node, f.evidence.line) for f in lost} == {("gpu004", 6)}, [(f.kind, f.node) for f in res.facts]
    assert res.hosts == ["gpu003", "gpu004"] and res.coverage is not None and res.coverage.node == "ticket"


def test_pdsh_over_two_hosts_of_indented_lines_is_read_host_by_host():
    """Indented lines under pdsh's labels of two hosts (a traceback's frames, nvidia-smi -q's sections) keep their labels
    through normalise, which takes one host's label off a report: each host's lines are read as its node. The same
    GPU's bus id on two hosts is two GPUs (fixtures/artefacts/nvidia_smi_q/h200_remap_pending.txt's sections, the real
    H200's -q, under node01 and node02: CONSTRUCTED labels)."""
    labelled = "\n".join(DEEPSPEED_PDSH.split("\n")[1:6]) + "\n"  # gpu003's frames, gpu004's store error
    assert normalise(labelled) == labelled
    res = parse_one(Artefact(path="train.log", node="ticket", text=labelled))
    assert [(f.node, f.evidence.line) for f in res.facts if f.kind == "torch_rendezvous_error"] == [("gpu004", 5)]
    q = (Path(__file__).parent.parent / "fixtures/artefacts/nvidia_smi_q/h200_remap_pending.txt").read_text().split("\n")
    first, second = q[8:22], [q[8]] + q[24:38]  # GPU 00000000:00:06.0's rows pending on node01; the other rows on node02
    assert first[0] == "GPU 00000000:00:06.0" and second[6].split(":")[-1].strip() == "No"
    text = "".join(f"node01: {ln}\n" for ln in first) + "".join(f"node02: {ln}\n" for ln in second)
    res = parse_one(Artefact(path="q.txt", node="ticket", text=text))
    assert sorted((f.node, f.pci_bus_id, f.pending) for f in res.facts if f.kind == "gpu_row_remap") == \
        [("node01", "0000:00:06.0", True), ("node02", "0000:00:06.0", False)]
    assert res.hosts == ["node01", "node02"] and res.coverage.kind == "nvidia_smi_q"


def test_a_labelled_run_broken_by_an_unlabelled_line_or_of_one_host_is_not_split():
    """run_hosts: an unlabelled line inside the run (not pdsh's own), one host, two labelled lines only, or a device's,
    an interface's, a rank's label: no split; a zero-padded host (gpu003) is no device index (line_hosts too)."""
    from stethoscope.facts.lines import line_hosts, run_hosts

    lines = DEEPSPEED_PDSH.split("\n")
    assert run_hosts("\n".join(lines[:3] + ["a reporter's sentence between them"] + lines[3:])) is None
    one = run_hosts("\n".join(lines[:5]))  # gpu003 alone: its labels offered off, no host split
    assert one is not None and set(one[0]) == {None, "gpu003"} and one[1].split("\n")[2] == "Traceback (most recent call last):"
    assert run_hosts("header\nnode01: a\nnode02: b\n") is None  # two labelled lines
    # one or two lines of one host only as a block of their own (round rN4): not inside a paragraph, not two hosts'
    assert run_hosts("header\n\nnode01: a\nnode01: b\n") == ([None, None, "node01", "node01", None], "header\n\na\nb\n")
    assert run_hosts("node01: a\n\nmore") == (["node01", None, None], "a\n\nmore")
    assert run_hosts("header\nnode01: a\n") is None and run_hosts("header\n\nnode01: a\ntail\n") is None
    assert run_hosts("header\n\nnode01: a\nnode02: b\n") is None and run_hosts("header\n\ngpu0: a\n") is None
    for a, b in (("gpu0", "gpu1"), ("eth0", "eth1"), ("rank3", "rank12"), ("mlx5_0", "mlx5_1")):
        assert run_hosts(f"header\n{a}: x\n{b}: y\n{a}: z\n") is None, a
    assert line_hosts("gpu003: x\ngpu004: y\n") == ["gpu003", "gpu004", None]
    assert run_hosts("[ 1.0] ahci 0000:00:17.0: AHCI 0001.0301\nata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
                     "ata1.00: ATA-10: Samsung SSD 860 EVO 500GB, RVT04B6Q, max UDMA/133\nata1.00: configured for UDMA/133\n") is None


# DeepSpeed's pdsh over a hostfile of addresses: each line under its host's IPv4 address (Azure/azureml-assets#302's
# lines, its two hosts 10.0.0.6 and 10.0.0.7; the progress bar above them unlabelled)
AZURE_PDSH = (
    "100%|\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588| 170498071/170498071 [00:01<00:00, 93719021.09it/s] \n"
    "10.0.0.6: [2022-12-17 19:15:38,591] [INFO] [comm.py:633:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl\n"
    "10.0.0.6: 719f2593e03a4bbc8d6dff88bf662002000002:165:165 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
    "10.0.0.6: NCCL version 2.12.12.MSCCL.0.7.3+cuda11.6\n"
    "10.0.0.7: 719f2593e03a4bbc8d6dff88bf662002000003:97:97 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>\n"
    "10.0.0.7: Traceback (most recent call last):\n"
    "10.0.0.7:   File \"/mnt/azureml/cr/j/ec39bdadbe7d4062acf9f19c950cb39a/exe/wd/train.py\", line 98, in <module>\n"
    "10.0.0.7:     model_engine, optimizer, trainloader, __ = deepspeed.initialize(\n"
)


def test_one_hosts_labelled_run_below_a_launchers_lines_is_read_bare_on_the_files_node():
    """One host's pdsh run below unlabelled lines: its lines are read without the label (the store error of
    hiyouga/LlamaFactory#2470 under gpu004 alone), the file's node kept, no host split."""
    lines = DEEPSPEED_PDSH.split("\n")
    text = "\n".join([lines[0]] + [ln.replace("gpu003: ", "gpu004: ") for ln in lines[1:6]]) + "\n"
    res = parse_one(Artefact(path="train.log", node="ticket", text=text))
    assert [(f.node, f.evidence.line) for f in res.facts if f.kind == "torch_rendezvous_error"] == [("ticket", 6)]
    assert res.hosts == []


def test_pdsh_hosts_named_by_address_are_hosts():
    """An IPv4 address as pdsh's label is a host's: the run below the progress bar is read host by host (its NCCL
    lines on 10.0.0.6 and 10.0.0.7); one address's label alone over a text comes off as a name's does."""
    from stethoscope.facts.lines import run_hosts, without_line_labels

    hosts, _bare = run_hosts(AZURE_PDSH)
    assert hosts == [None] + ["10.0.0.6"] * 3 + ["10.0.0.7"] * 4 + [None]
    res = parse_one(Artefact(path="job.log", node="ticket", text=AZURE_PDSH))
    assert res.hosts == ["10.0.0.6", "10.0.0.7"]
    assert {(f.kind, f.node) for f in res.facts if f.kind == "nccl_version"} == {("nccl_version", "10.0.0.6")}
    assert without_line_labels("10.0.0.7: Traceback (most recent call last):\n10.0.0.7: RuntimeError: x\n") == \
        "Traceback (most recent call last):\nRuntimeError: x\n"
    assert run_hosts("PING 10.0.0.7 (10.0.0.7) 56(84) bytes of data.\n64 bytes from 10.0.0.7: icmp_seq=1 ttl=64\n") is None


def test_a_program_s_journal_label_goes_line_by_line():
    """A service's or job's output in the journal (vLLM/SGLang servers, a prolog's nccl-tests)
    reads as its lines do bare, each line on its own; the tags whose readers read the tag (the
    kernel, fabric manager, nvidia-persistenced) keep it, and so do lines only shaped like one:
    a container's Z stamp before "Last error:", a "Word word:" line ending there."""
    pairs = [
        ("Nov 29 18:30:18 gpu-node-3 python3[4242]: [E1129 18:30:18.123] Watchdog caught collective operation timeout",
         "[E1129 18:30:18.123] Watchdog caught collective operation timeout"),
        ("2026-11-29T18:32:13+0000 node17 sglang[981]: # Avg bus bandwidth    : 33.3227", "# Avg bus bandwidth    : 33.3227"),
        ("Dec 02 09:56:04.123456 node1 slurm-prolog[311]:       8             2     float     sum",
         "      8             2     float     sum"),
        ("1764441018.123456 host torchrun[77]:", ""),
        ("Nov 29 18:30:18 node1 health-check: NCCL WARN NET/IB : Got async event : port error", "NCCL WARN NET/IB : Got async event : port error"),
    ]
    text = "\n".join(raw for raw, _ in pairs) + "\nplain line\n"
    assert normalise(text) == "\n".join(want for _, want in pairs) + "\nplain line\n"
    for kept in ("Nov 29 18:30:18 node1 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.",
                 "Nov 29 18:30:18 node1 nvidia-persistenced[1611]: Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user 1000 has read and write permissions for those files.",
                 "Nov 29 18:30:18 node1 nv-fabricmanager[3228]: Successfully configured all the available NVSwitches",
                 "Jun  5 22:36:51 The last error:"):
        assert normalise(kept + "\n") == kept + "\n", kept
    assert normalise("2019-01-01T00:00:00.000000000Z Last error:\n") == "Last error:\n"  # the container's stamp only


def test_a_journal_label_with_the_locale_s_lowercase_month_goes():
    """journalctl's short stamp prints the locale's month abbreviation (strftime's %b), lowercase in some locales:
    containerd's journal line of NVIDIA/gpu-operator#432 reads as its line does bare; the kernel's keeps its label
    (the kernel log's readers read it), and a lowercase word before a day and a time that is no stamp and host and
    tag stays."""
    raw = ('nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox '
           'for &PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,Uid:02c7d4ad-db02-4145-846b-616a94416008,Namespace:'
           'gpu-operator,Attempt:2,} failed, error" error="failed to get sandbox runtime: no runtime for \\"nvidia\\" is configured"')
    assert normalise(raw + "\n") == raw.split("containerd[10237]: ", 1)[1] + "\n"
    for kept in ("nov 02 18:00:58 beck kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.",
                 "jun  5 22:36:51 The last error:"):
        assert normalise(kept + "\n") == kept + "\n", kept


# --- issue 11: a line a terminal's copy cut at its width -----------------------------------------
# The samples are real fixture lines cut the way bench/wrap_study.py cuts them (every W columns,
# nothing lost): harvest 404 (horovod/horovod#1408) and 126 (awslabs/awsome-distributed-ai#292).

from pathlib import Path  # noqa: E402

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def _cut(text: str, width: int) -> str:
    """Every line cut into rows of ``width`` columns (a line of exactly ``width`` stays one row)."""
    return "\n".join(ln[i:i + width] for ln in text.split("\n") for i in range(0, max(len(ln), 1), width))


def _case(prefix: str, name: str) -> str:
    return next((FIX / "harvest" / "cases").glob(prefix + "-*/" + name)).read_text()


def test_a_line_a_terminal_cut_is_joined_on_its_first_row():
    line = _case("404", "app.txt").rstrip("\n")   # **hostname:26407:26474 NCCL INFO Call to connect returned ...
    cut = _cut(line, 80)
    assert cut.split("\n")[1] == "trying...**"
    out = normalise(cut)
    # line for line: the row after it left blank; joined, the line's markdown bold goes too
    assert line.startswith("**") and line.endswith("**")
    assert out.split("\n") == [line[2:-2], ""]
    assert out.joined == {1: 1}
    # three cuts inside the marker's line (126: 'versio' / 'n `FABRIC_1.7'' not found ...)
    line = _case("126", "nccl.log").rstrip("\n")
    for width in (80, 100, 120):
        rows = _cut(line, width).split("\n")
        assert normalise("\n".join(rows)).split("\n") == [normalise(line)] + [""] * (len(rows) - 1), width


def test_a_cut_on_the_blank_between_two_words_is_joined_whatever_the_next_word():
    # harvest 131's dmesg lines copied 97 columns wide: each cut falls before " Xid 149", a capitalised word that
    # would start a record at the margin, not one blank in (the wall of 97-column rows says the width)
    text = _case("131", "dmesg.log")
    cut = _cut(text.rstrip("\n"), 97)
    assert "\n Xid 149" in cut
    assert [ln for ln in normalise(cut).split("\n") if ln] == [ln for ln in normalise(text).split("\n") if ln]


def test_a_cut_paste_quoted_or_with_windows_line_ends_is_joined():
    line = _case("404", "app.txt").rstrip("\n")
    quoted = "\n".join("> " + r for r in _cut(line, 80).split("\n"))  # cut, then quoted in a reply
    assert normalise(quoted).split("\n") == [line[2:-2], ""]  # (its markdown bold unwrapped too)
    crlf = _cut(line, 80).replace("\n", "\r\n") + "\r\n"  # cut, then a Windows clipboard
    assert [r.rstrip("\r") for r in normalise(crlf).split("\n")] == [line[2:-2], "", ""]


def test_a_cut_nccl_log_is_joined():
    text = (FIX / "artefacts" / "nccl_log" / "allreduce_bad_ifname_g2.nccl.log").read_text()
    want = [ln for ln in normalise(text).split("\n") if ln]
    for width in (80, 120):
        assert [ln for ln in normalise(_cut(text, width)).split("\n") if ln] == want, width


def test_evidence_of_a_joined_line_cites_its_first_row_and_quotes_the_line():
    text = "Some notes\n" + _cut("node1:1633:1633 [0] transport/net_ib.cc:1909 NCCL WARN NET/IB : Got completion from peer "
                               "10.1.3.201<33057> with status=9 opcode=0 len=0 vendor err 138 (Send)", 80) + "\nnext line\n"
    art = Artefact(path="nccl.log", text=text)
    res = parse_one(art)
    warns = [f for f in res.facts if f.kind == "nccl_warn"]
    assert warns and warns[0].evidence.line == 2
    assert warns[0].evidence.text.endswith("vendor err 138 (Send)")
    assert art.lines[3] == "next line" and len(art.lines) == 4  # the line count does not move


def test_lines_that_only_look_cut_are_kept():
    """Near misses: rows as wide as a terminal that end a line of their own (real fixtures)."""
    kept = [
        # 80-wide Open MPI binding rows, the masks after them (open-mpi/ompi#7660)
        FIX / "artefacts" / "cpu_binding_report" / "ompi7660_four_ranks_one_core_each.txt",
        # an 80-wide table border, a line after it (dcgmi discovery)
        FIX / "artefacts" / "dcgmi_discovery" / "llm_action_h800x8_dcgm318.txt",
        # a 100-column warning, then 'No IB devices found'
        FIX / "artefacts" / "ibv_devinfo" / "pib2_no_devices_session.txt",
        # a CSV header 160 wide, its rows
        FIX / "bundles" / "device-h200-collect" / "bundle" / "vm" / "nvidia-smi-query-gpu.csv",
        # top -w 512: rows cut by top itself, the next record after them
        FIX / "artefacts" / "top" / "top_1_w512_dev_host.txt",
        # padded tables of one width (our own capture log and history), nvidia-smi dmon
        FIX / "observations" / "device-h200-patrol" / "capture-log.txt",
        FIX / "observations" / "device-h200-patrol" / "history.txt",
        # kubectl get ds, every row padded to one width
        next((FIX / "harvest" / "cases").glob("1001-*/kubectl-get-ds.txt")),
        # a rule of 100 dashes, a line after it
        next((FIX / "harvest" / "cases").glob("303-*/nccl.log")),
        # an MPICH error stack under a 100-column line
        next((FIX / "harvest" / "cases").glob("305-*/mpi.txt")),
    ]
    for path in kept:
        text = path.read_text()
        assert getattr(normalise(text), "joined", None) is None, path
    # NCCL lines of exactly 80 columns, each its own record
    lines = ["node1:1633:1633 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7 x",
             "node1:1633:1633 [0] NCCL INFO Channel 01/02 :    0   1   2   3   4   5   6   7 y"]
    assert all(len(ln) == 80 for ln in lines)
    text = "\n".join(lines) + "\nnode1:1633:1633 [0] NCCL INFO Connected all rings\n"
    assert getattr(normalise(text), "joined", None) is None
    # an nvidia-smi -q report whose longest rows share a width
    q = next((FIX / "artefacts" / "nvidia_smi_q").glob("*.txt")).read_text()
    assert getattr(normalise(q), "joined", None) is None


def test_a_text_a_narrow_window_cut_inside_words_is_joined():
    """A wall of rows of one width under 80 whose cuts fall inside words is a narrow window's copy (a phone's
    terminal): joined as a terminal's cut is (linux-surface/linux-surface#1884, dkms and dpkg 36 columns wide)."""
    text = (FIX / "artefacts" / "package_install" / "linuxsurface1884_nvidia_kernel_dkms_cut_36_columns.txt").read_text()
    assert max(map(len, text.split("\n"))) == 36
    out = [ln for ln in normalise(text).split("\n") if ln]
    assert "env NV_VERBOSE=1 make -j8 modules KERNEL_UNAME=6.17.1-surface-2" in out
    assert "Error! Bad return status for module build on kernel: 6.17.1-surface-2 (x86_64)" in out
    assert "Consult /var/lib/dkms/nvidia-current/550.163.01/build/make.log for more information." in out
    assert " installed nvidia-kernel-dkms package post-installation script subprocess returned error exit status 10" in out
    # CONSTRUCTED: the same lines cut at 40 and 60 columns read the same
    whole = "\n".join(out)
    for width in (40, 60):
        assert [ln for ln in normalise(_cut(whole, width)).split("\n") if ln] == out, width


def test_narrow_rows_a_program_wrapped_between_words_are_kept():
    """Near misses under 80 columns (real fixtures): a program's word wrap (Open MPI's help, the newline where the
    blank was: 'messaging module' / 'was unable'), padded reports whose rows end in a word of their own (ibportstate's
    dotted fields, ulimit -a), a miner's rows of one width; none is joined."""
    for rel in ("openmpi_help/charliecloud142_openib_no_nics.txt", "ibportstate/exadata2_disabled_ports.txt",
                "ulimit/tf11392_ulimit_l_and_a_unlimited.txt", "nvml_init/claymore246_nvml_cannot_get_temperature_error_15.txt"):
        text = (FIX / "artefacts" / rel).read_text()
        assert max(map(len, text.split("\n"))) < 80
        assert getattr(normalise(text), "joined", None) is None, rel
    # CONSTRUCTED: rows of 36 cut between words only (a hand's wrap of equal rows) and a wall under 30 columns
    assert getattr(normalise("the driver container could not\nunload the modules after the last\nrun of the old driver pod\n"),
                   "joined", None) is None
    assert getattr(normalise(_cut("Error! Bad return status for module build on kernel", 20)), "joined", None) is None


def test_blank_rows_as_wide_as_a_terminal_are_no_cut():
    """A text of blank rows only, one of them 100 blanks wide (a window of a padded file): nothing
    to join, and no row to read a margin from (_unwrap once raised StopIteration here)."""
    text = "\n" + " " * 100 + "\n  \n"
    assert normalise(text) is text


@pytest.mark.parametrize("text", ["\t", "  \n  "])
def test_a_text_of_blanks_only_comes_back_as_it_is(text):
    # indented, with no line that holds anything after its margin: nothing to dedent
    # (tests/test_fuzz_parsers.py found it: a cut nvidia-smi topo table left blanks only)
    assert normalise(text) == text


# --- issue 11: markdown emphasis around a whole line (NVIDIA/nvidia-docker#1352: a refusal pasted in bold) ---

# real lines of several readers: a kernel Xid (fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log), an NCCL
# WARN (NVIDIA/nccl#1710), nvidia-smi's own refusal (fixtures/artefacts/nvml_init), docker's (nvidia-docker#1352)
EMPHASISED = [
    "[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access "
    "violation work queue error",
    "Failed to initialize NVML: Driver/library version mismatch",
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
]
MARKS = ["**", "__", "*", "_", "***"]


def _facts(text: str) -> list[tuple]:
    res = parse_one(Artefact(path="pasted.txt", node="n1", text=text))
    return sorted((f.kind, repr(sorted((k, v) for k, v in f.model_dump().items() if k not in ("id", "evidence"))))
                  for f in res.facts)


@pytest.mark.parametrize("mark", MARKS)
def test_a_line_in_markdown_emphasis_is_unwrapped_and_read_as_plain(mark):
    for line in EMPHASISED:
        wrapped = f"{mark}{line}{mark}"
        assert normalise(wrapped) == line, wrapped
        plain = _facts(line + "\n")
        assert plain, line  # the plain line says something
        assert _facts(wrapped + "\n") == plain, wrapped
    # quoted in a reply, with Windows line ends, among other lines: line for line
    text = "some notes\n> " + f"{mark}{EMPHASISED[0]}{mark}\r\n" + "the end\n"
    assert normalise(text) == f"some notes\n{EMPHASISED[0]}\r\nthe end\n"


def test_evidence_of_an_emphasised_line_quotes_it_as_posted():
    raw = f"**{EMPHASISED[0]}**\n"
    xids = [f for f in parse_one(Artefact(path="dmesg.log", node="n1", text=raw)).facts if f.kind == "xid_event"]
    assert xids and xids[0].evidence.text == raw.rstrip("\n") and xids[0].evidence.line == 1


@pytest.mark.parametrize("line", [
    # glibc's and glog's banners: blanks inside the stars
    "*** Error in `python': double free or corruption (fasttop): 0x00007f1c3c0008c0 ***",
    "*** Aborted at 1627381220 (unix time) try \"date -d @1627381220\" if you are using GNU date ***",
    # rules, bullets, names, unbalanced or several emphases, emphasis inside a line
    "***", "______________________________", "* NCCL_IB_HCA=mlx5_0", "__init__", "*args*",
    "**Environment** and **versions**", "**NCCL WARN Cuda failure 'unknown error'*",
    "_ZN5torch8autograd6Engine17thread_on_deviceEib+0x_",
    "output = executor(*args, **kwargs)", "*output = executor(*args, **kwargs)*", "_see self.__init__ for it_",
    "node1:1633:1633 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to *eth0*",
])
def test_emphasis_that_wraps_no_whole_line_is_kept(line):
    assert normalise(line) is line
    text = "first line\n" + line + "\n"
    assert normalise(text) is text


def test_a_text_every_row_of_which_starts_a_record_has_no_cut_to_join():
    """UNCUT_GATE (answered in the classifier's pass) lets normalise skip _unwrap: on every real
    text it matches, _unwrap joins nothing (each row starts with NCCL's prefix, a record start),
    and a 120-column row before such a row stays a line of its own."""
    from pathlib import Path

    from stethoscope.facts.lines import UNCUT_GATE, _unwrap

    root = Path(__file__).resolve().parent.parent / "fixtures"
    matched = 0
    for p in sorted(root.rglob("*.log")):
        text = p.read_bytes().decode("utf-8", "replace")
        if UNCUT_GATE.search(text):
            matched += 1
            assert _unwrap(text) is None, p
            assert normalise(text, uncut=True) == normalise(text), p
    assert matched > 20
    row = "node1:1633:1633 [0] NCCL INFO " + "x" * 90
    text = f"{row}\nnode1:1633:1633 [0] NCCL INFO Init COMPLETE\n"
    assert UNCUT_GATE.search(text) and _unwrap(text) is None
    assert not UNCUT_GATE.search(text + "trying...\n")


def _unwrap_ungated(text, split=None):
    """_unwrap measuring every row, as it did before _JOINABLE (the reference the gate must agree with)."""
    from stethoscope.facts import lines

    gate, lines._joinable = lines._joinable, lambda text: True
    try:
        return lines._unwrap(text, split)
    finally:
        lines._joinable = gate


def test_joinable_gate_skips_only_texts_with_nothing_to_join():
    """_JOINABLE (no row of 80 columns or more before a row a cut line could go on in) spares a text
    with tabs or "\r" its rows' measurement: the same answer as measuring them, on every real text as
    read, tab-indented, with Windows line ends, and on texts built around its edges (a tab taking the
    row to 80 columns, or one short of it, a "\r" inside a row before a tab, a pasted margin)."""
    import random

    from stethoscope.facts.lines import _JOINABLE, _joinable, _unwrap

    def same(text):
        s1, s2 = [], []
        assert _unwrap(text, s1) == _unwrap_ungated(text, s2) and s1 == s2, repr(text[:300])
        # the gate without RE2's pass over a text without "\r" (its rows at the margin, the width before each)
        assert _joinable(text) == (_JOINABLE.search(text) is not None), repr(text[:300])

    texts = []
    for p in sorted(FIX.rglob("*")):
        if p.is_file() and p.suffix not in (".gz", ".json", ".yaml", ".py"):
            try:
                texts.append(p.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    assert len(texts) > 1000
    skipped = 0
    for text in texts:
        for t in (text, text.replace("        ", "\t").replace("    ", "\t"), text.replace("\n", "\r\n")):
            same(t)
    # the real report it is for (nvidia-smi -q -x: tab-indented, its widest rows 133 columns)
    xml = (FIX / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q.xml").read_text()
    assert _JOINABLE.search(xml) is None and max(len(r) for r in xml.expandtabs().split("\n")) > 120
    # edges: 80 columns reached by a tab (joined) or one short of it (not), "\r" resetting the tab stops
    row80 = "\t" * 3 + "x" * 55 + "\t" + "y"  # 24 + 55 -> 79, the tab to 80: 81 with the y
    assert len(row80.expandtabs()) == 81
    cut = "\t" * 3 + "x" * 56  # 80 columns
    assert _unwrap(cut + "\ntrying...\n") == _unwrap_ungated(cut + "\ntrying...\n") is not None
    for t in (cut[:-1] + "\ntrying...\n", "a\r\t" + "x" * 70 + "\nb\n", "> " + cut + "\n> trying...\n",
              "\t" + cut + "\n\ttrying...\n", row80 + "\n row\n"):
        same(t)
    rnd = random.Random(11)
    alphabet, weights = "ab \tx-\r>[Z1:", [30, 10, 8, 3, 10, 2, 1, 1, 1, 2, 3, 2]
    for _ in range(3000):
        rows = []
        width = rnd.choice([80, 84, 100, 120])
        for _ in range(rnd.randint(1, 10)):
            row = ""
            if rnd.random() < 0.4:  # a row cut at the width (a tab may take it one over: kept so)
                while len(row.expandtabs()) < width:
                    row += rnd.choices(alphabet, weights)[0]
            else:
                row = "".join(rnd.choices(alphabet, weights, k=rnd.randint(0, 130)))
            rows.append(row)
        text = "\n".join(rows)
        skipped += _JOINABLE.search(text) is None
        same(text)
    assert skipped > 100
    # more rows at the margin than _joinable looks at (a tab-separated table): RE2's pass answers for the rest
    table = "".join(f"r{i}\tx\n" for i in range(100))
    for t in (table, table + "x" * 80 + "\ny\n", "x" * 80 + "\ny\n" + table, table.replace("\n", "\r\n")):
        same(t)


# --- an issue's title: its template's tag comes off before the readers see it ----------------------------------------
# vLLM's bug template opens the title with its tag (.github/ISSUE_TEMPLATE/400-bug-report.yml: title: "[Bug]: ")
@pytest.mark.parametrize("title, bare", [
    ("[Bug]: RuntimeError: CUDA error: invalid configuration argument",                 # vllm-project/vllm#16566
     "RuntimeError: CUDA error: invalid configuration argument"),
    ("[Bug]: ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",  # vllm#31018
     "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"),
    ("  [Bug][ROCm] x", "x"), ("[Usage]:x", "x"), ("doc(nvidia/error/xid): x", "x"),
])
def test_a_titles_template_tag_comes_off(title, bare):
    from stethoscope.facts.lines import without_title_tag

    assert without_title_tag(title + "\n") == bare + "\n"


@pytest.mark.parametrize("title", [
    "[TensorRT-LLM][ERROR] Failed, NCCL error when running",   # a program's logger tag, then its level's
    # huggingface/picotron_tutorial#6's watchdog line: glog's "[E file:line]" (a colon inside), then a rank
    "[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "[rank0]: torch.distributed.DistBackendError: NCCL error", "[ERROR] x", "[Bug]: ", "[Bug]", "NCCL timeout [Bug]: x",
])
def test_a_programs_tag_on_a_title_stays(title):
    from stethoscope.facts.lines import without_title_tag

    assert without_title_tag(title + "\n") is not None
    assert without_title_tag(title + "\n") == title + "\n"


@pytest.mark.parametrize("fixture", [
    # real titles whose lines a reader reads from their first word (each file holds its thread's title alone)
    "slurm_log/nextflow5932_oom_kill_event_from_title.txt",      # slurmstepd: error: Detected 1 oom_kill event ...
    "nccl_log/call_connect_timeout_2.3_title.log",
    "cuda_app/cudnn_status_title.txt",
])
def test_a_tagged_title_reads_as_the_title_without_its_tag(fixture):
    """The readers get the title's line without the template's tag ("[Bug]: " before a slurmstepd line hid it from
    slurm_log: a reported symptom only); the evidence still quotes the title as written."""
    text = (FIX / "artefacts" / fixture).read_text()

    def read(t: str):
        res = parse_one(Artefact(path="case/title.txt", text=t, node="n"))
        return sorted((f.kind, f.evidence.line) for f in res.facts), res.facts

    bare, _ = read(text)
    tagged, facts = read("[Bug]: " + text)
    assert tagged == bare and bare
    assert all(f.evidence.text.startswith("[Bug]: ") for f in facts if f.evidence.line == 1)


# --- one row of an odd width, the text's last line cut once (a title or a one-line paste a narrow window cut) ---------
@pytest.mark.parametrize("prefix, name", [
    ("133", "nccl-error-from-title.log"),     # ... Software caused connecti / on abort          (inside a word)
    ("142", "nccl-error-from-title.log"),     # ... Connection refus / ed" and freeze
    ("125", "nccl-error-from-title.log"),     # ... for device 0. RC: / -22, Error: Invalid argument   (after a blank)
    ("180", "events.txt"),                    # ... Requested: 1, / Available: 0, which is unexpected  (a capital after ", ")
    ("167", "dcgm-exporter.log"),             # ... is serviced by a / " module of DCGM ..."       (before a blank)
    ("905", "app.txt"),                       # ... local QP operation e / rror qpn 0x350406 ...  (the last line of 11)
])
def test_a_texts_last_line_cut_once_at_an_odd_width_is_joined(prefix, name):
    text = _case(prefix, name)
    cut = _cut(text.rstrip("\n"), 97) + "\n"
    assert sum(len(r) == 97 for r in cut.split("\n")) == 1
    assert [ln for ln in normalise(cut).split("\n") if ln] == [ln for ln in normalise(text).split("\n") if ln]


@pytest.mark.parametrize("path", [
    # a text's longest row followed by the rest of its line's text as the program (or a hand) wrote it: kept
    "launcher_exit/nccltests294_mpirun_detected_rank10_exit3.txt",   # Open MPI's "... thus causing" / "the job to be ..."
    "mpich_abort/mpijl716_cray_gtl_not_linked.txt",                  # "... GTL library is not linked" / " (Other MPI error)"
    "dcgm_exporter_log/version_mismatch_logrus_tty_gpumonitoringtools168.log",  # "... or GPU " / "FATA[0001] Error ..."
    "container_runtime/toolkit434_rootless_docker_cdi_driver_not_enabled.txt",  # ... / "ERRO[0000] error waiting ..."
    "go_runtime_crash/dcgm_exporter_cgo_sigsegv_dcgmexporter412.txt",  # "... pc=0x418ccb" / "github.com/NVIDIA/go-dcgm/..."
    "cuda_app/cuda304_os_call_in_container_openrlhf1074.log",        # "... function failed. " / "CUDA failure 304 ..."
])
def test_a_longest_row_before_its_own_next_line_is_not_joined(path):
    text = (FIX / "artefacts" / path).read_text()
    assert getattr(normalise(text), "joined", None) is None


def test_a_hand_wrapped_paragraph_of_two_rows_is_not_joined():
    # a harvest case's README: its paragraph's last row after its longest, wrapped between two words by hand
    text = (next((FIX / "harvest" / "cases").glob("108-*")) / "README.md").read_text()
    assert len([r for r in text.split("\n") if r.strip()]) == 2
    assert getattr(normalise(text), "joined", None) is None


def test_a_row_repeating_the_row_before_is_a_whole_line_not_a_cut():
    """ggml's kernels print their error once per thread, then the host's error follows (LostRuins/koboldcpp#1362):
    five rows of one width (185 columns, a wall) are five whole lines, the last not cut into the host's line."""
    from pathlib import Path
    fix = Path(__file__).resolve().parents[1] / "fixtures/artefacts/cuda_app/koboldcpp1362_ggml_no_device_code_arch520.log"
    text = fix.read_text()
    assert normalise(text) == text
    # a line printed twice and cut at 80 columns: each first row followed by its tail, both joined (CONSTRUCTED)
    line = "node1 NCCL INFO Call to connect returned Connection refused, retrying after a pause of one second"
    head, tail = line[:80], line[80:]
    cut = "\n".join([head, tail, head, tail, "done"]) + "\n"
    assert normalise(cut).split("\n") == [line, "", line, "", "done", ""]


# an inline code span over several lines (GitHub renders the lines between as code): its backticks come off, line for
# line; real heads: paradoxxxzero/gnome-shell-system-monitor-applet#356 (nvidia-smi -q, R375, cut before the close)
@pytest.mark.parametrize("raw,want", [
    ("`==============NVSMI LOG==============\n\nTimestamp                           : Tue Aug 15 16:00:35 2017\n",
     "==============NVSMI LOG==============\n\nTimestamp                           : Tue Aug 15 16:00:35 2017\n"),
    ("notes:\n`name, pci.bus_id\nTesla V100, 00000000:3B:00.0`\nend\n", "notes:\nname, pci.bus_id\nTesla V100, 00000000:3B:00.0\nend\n"),
])
def test_an_inline_code_span_over_several_lines_loses_its_backticks(raw, want):
    assert normalise(raw) == want


@pytest.mark.parametrize("raw", [
    "echo `date`\nok\n",   # a span that closes on its own line (a command substitution)
    "a `b\nc`\n",           # an opener inside a line, not at its start
])
def test_backticks_that_open_no_span_at_a_line_start_stay(raw):
    assert normalise(raw) == raw


def test_a_closer_that_is_not_alone_on_its_line_stays():
    """Must not: the first later line with a backtick holds two (an inline span of its own): not this span's closer."""
    assert normalise("`a\nb `c` d\ne`\n") == "a\nb `c` d\ne`\n"


def test_an_r375_q_paste_in_an_open_inline_code_span_is_read_from_its_banner():
    raw = ("`==============NVSMI LOG==============\n\nTimestamp                           : Tue Aug 15 16:00:35 2017\n"
           "Driver Version                      : 375.66\n\nAttached GPUs                       : 1\nGPU 0000:01:00.0\n"
           "    Utilization\n        Gpu                         : 47 %\n")
    res = parse_one(Artefact(path="q.txt", text=raw))
    info = [f for f in res.facts if f.kind == "gpu_info"]
    assert info and info[0].driver_version == "375.66" and info[0].pci_bus_id == "0000:01:00.0"


# A progress bar's last refresh glued to the next log line (facts/lines.py _BAR_END), real lines of even threads:
# sgl-project/sglang#15598 (the scheduler's stamp), sgl-project/sglang#7324 (Python logging's asctime, flashinfer),
# ymcui/Chinese-LLaMA-Alpaca#534 and CarperAI/trlx#342 (DeepSpeed's stamp; the fixture of huggingface/transformers#9996
# too), huggingface/autotrain-advanced#456 (Colab's bar without its bar, then Python's traceback head).
_GLUED = [
    ("DeepGEMM warmup:   2%|█▌                                                                        | 11/512 [01:09<57:05,  6.84s/it]",
     "[2025-12-22 11:36:30 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):"),
    ("Capturing batches (avail_mem=7.08 GB):   0%|          | 0/17 [00:00<?, ?it/s]",
     "2025-06-25 11:25:59,453 - INFO - flashinfer.jit: Loading JIT ops: batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16"
     "_dtype_o_bf16_dtype_idx_i32_head_dim_qk_128_head_dim_vo_128_posenc_0_use_swa_False_use_logit"),
    (" 14%|█▍        | 378/2724 [13:58:09<86:18:35, 132.44s/it]",
     "[2023-06-07 22:16:00,018] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
     "Attempted loss scale: 64, reducing to 32"),
    ("[losses/total_loss: 1.34 | losses/policy_loss: -0.39 | losses/value_loss: 8.65]:  16%|█████████████████▎"
     "                                                                                        | 1044/6400 [1:16:09<1:07:04,  1.33it/s]",
     "[2023-02-28 20:08:24,113] [INFO] [stage_1_and_2.py:1769:step] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
     "Attempted loss scale: 128.0, reducing to 64.0"),
    ("Loading checkpoint shards:   0% 0/2 [00:00<?, ?it/s]", "Traceback (most recent call last):"),
]


@pytest.mark.parametrize("bar,line", _GLUED, ids=["sglang_stamp", "asctime", "deepspeed_hours", "deepspeed_desc", "traceback"])
def test_a_bar_glued_to_a_log_line_reads_as_the_log_line(bar, line):
    """The log line after the bar's end reads as it reads alone (its prefix then stripped as a bare line's is);
    the line stays where it is, and other lines stay as they are."""
    text = "before\n" + bar + line + "\nafter\n"
    assert normalise(text) == normalise("before\n" + line + "\nafter\n")
    assert normalise(bar + line + "\r\n") == normalise(line + "\r\n")  # a CRLF paste keeps its line ends


def test_a_bar_glued_to_other_text_or_alone_stays():
    """Only a complete bar's end followed by a known log prefix splits: prose after a bar (exo-explore/exo#140), a
    program's own bracketed tag that is no log prefix and a second bar (CarperAI/trlx#342), a bar alone, a bar then a
    blank, and a prefix after a bracket that ends no bar stay as they are."""
    kept = [
        "ram used: 11.98 GB, layers.27.feed_forward.w2.weight                  :  85%|██████████████████████████████████████████"
        "████████████████████████▌           | 249/292 [00:05<00:00, 45.44it/s]loaded weights in 5553.64 ms, 12.21 GB loaded at 2.20 GB/s",
        "[losses/total_loss: 1.64 | losses/policy_loss: 0.12 | losses/value_loss: 7.62]:  16%|█████████████████"
        "                                                                                          | 1024/6400 [1:14:23<1:13:02,  1.23it/s][RANK 0] Collecting rollouts",
        "[rollout 128 / 128]: 100%|██████████| 128/128 [01:31<00:00,  1.40it/s][losses/total_loss: 1.34 | losses/policy_loss: -0.39]:  16%|",
        "Loading safetensors checkpoint shards: 100% Completed | 8/8 [00:05<00:00,  1.59it/s]",
        "Capturing batches (avail_mem=7.08 GB):   0%|          | 0/17 [00:00<?, ?it/s] 2025-06-25 11:25:59,453 - INFO - x",
        "see [00:05<00:00][2025-06-25 11:25:59] and 5/8 [00:05, 1.59it/s][rank0]: y",
    ]
    for line in kept:
        assert normalise(line + "\n") == line + "\n", line


# tqdm's bar of an unknown total ('{n_fmt}{unit} [{elapsed}, {rate_fmt}{postfix}]', format_meter's "no total" return):
# real bars of bigscience-workshop/biomedical#890 (datasets' 'Generating train split', unit " examples"); glued to the
# next log line CONSTRUCTED as tqdm draws them (no newline after a refresh), PyTorch Lightning's sanity-check bar too
_UNKNOWN_TOTAL = ["Generating train split: 191 examples [02:11,  2.90 examples/s]",
                  "Generating train split: 212 examples [02:22,  1.13s/ examples]",  # (rate_fmt's inverse: '{:5.2f}s/' + unit)
                  "Sanity Checking: 0it [00:00, ?it/s]",
                  "123it [00:04, 28.10it/s, loss=0.1]"]


@pytest.mark.parametrize("bar", _UNKNOWN_TOTAL)
@pytest.mark.parametrize("line", [line for _bar, line in _GLUED])
def test_a_bar_of_an_unknown_total_glued_to_a_log_line_reads_as_the_log_line(bar, line):
    text = "before\n" + bar + line + "\nafter\n"
    assert normalise(text) == normalise("before\n" + line + "\nafter\n")
    assert normalise("\r" + bar + "\r" + bar + line + "\r\n") == normalise(line + "\r\n")  # its refreshes, CRLF ends
    from stethoscope.facts import classify
    from stethoscope.facts.lines import GLUE_GATE
    classify.classifier().candidates(text)  # the classifier's set answers the gate alike (normalise's ``glued``)
    assert classify.gate(text, GLUE_GATE) is True and normalise(text, glued=True) == normalise(text)
    classify.forget()


def test_a_bar_of_an_unknown_total_alone_or_before_other_text_stays():
    kept = ["Generating train split: 191 examples [02:11,  2.90 examples/s]\n"
            "Generating train split: 192 examples [02:11,  3.22 examples/s]\n",  # biomedical#890's lines as pasted
            "Sanity Checking: 0it [00:00, ?it/s]loaded weights in 5553.64 ms\n",  # prose after it
            "5/8 [00:05, 1.59it/s][rank0]: y\n",  # a count over a total without tqdm's '<remaining'
            "v1.2 [00:04, 28.10it/s][rank0]: y\n",  # a version, not a count
            "123it [00:04, 28.10it/s]\nstep 3 done\n"]  # the next line on its own line
    for text in kept:
        assert normalise(text) == text, text


def test_a_carriage_return_inside_a_line_reads_as_its_last_refresh():
    """A "\\r" inside a line is a terminal's overwrite (tqdm writes "\\r" before each refresh and clears the bar with
    blanks before tqdm.write's line; CONSTRUCTED from tqdm/std.py's refreshes): where the text after the last one is a
    log line, or the last refresh glued to one, the line is that log line; a "\\r" before other text stays."""
    refreshes = "\rDeepGEMM warmup:   2%|█▌        | 10/512 [01:02<57:00,  6.80s/it]\rDeepGEMM warmup:   2%|█▌        | 11/512 [01:09<57:05,  6.84s/it]"
    line = "[2025-12-22 11:36:30 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):"
    assert normalise(refreshes + line + "\n") == normalise(line + "\n")
    assert normalise(refreshes + "\r" + " " * 60 + "\r" + line + "\n") == normalise(line + "\n")
    for kept in (refreshes + "\n", "50%\rdone\n", "a\r\nb\r\n"):
        assert normalise(kept) == kept, kept
    assert normalise("a\r\n[2025-12-22 11:36:30 TP1 EP1] x\r\n") == "a\r\nx\r\n"  # CRLF ends: no overwrite, the stamp off as usual


def test_a_glued_line_is_read_by_its_reader_and_quoted_as_read():
    """The readers read the log line glued behind a bar as they read it alone, on its line, and the evidence quotes
    the line as read, bar and all (CONSTRUCTED: vLLM's capture bar before an NCCL WARN line and a vLLM error line)."""
    bar = "Capturing CUDA graph shapes:   0%|          | 0/35 [00:00<?, ?it/s]"
    for line in ("node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error",
                 "ERROR 07-24 08:26:01 multiproc_worker_utils.py:226] RuntimeError: CUDA error: an illegal memory access was encountered"):
        glued = parse_one(Artefact(path="app.log", text="x\n" + bar + line + "\n"))
        alone = parse_one(Artefact(path="app.log", text="x\n" + line + "\n"))
        assert [(f.kind, f.evidence.line) for f in glued.facts] == [(f.kind, f.evidence.line) for f in alone.facts] != []
        assert all(f.evidence.text == bar + line for f in glued.facts)


def test_the_glue_gate_is_answered_by_the_classifiers_set():
    """The classifier's set holds GLUE_GATE (facts/classify.py), so a file it scanned is not scanned again for a glued
    bar (normalise's ``glued``): its answer is the gate's own pass, on the glued lines above and on texts without one
    (an NCCL line's '<port>' and an -q -x document's '<' pass the substring test, not the gate)."""
    from stethoscope.facts import classify
    from stethoscope.facts.lines import GLUE_GATE

    texts = ["x\n" + bar + line + "\n" for bar, line in _GLUED] + [
        "node201:127799:127863 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n",
        "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n\t<timestamp>Mon Dec  1 10:00:00 2025</timestamp>\n</nvidia_smi_log>\n",
        "Loading safetensors checkpoint shards: 100% Completed | 8/8 [00:05<00:00,  1.59it/s]\n",
    ]
    cls = classify.classifier()
    for text in texts:
        cls.candidates(text)
        assert classify.gate(text, GLUE_GATE) is (GLUE_GATE.search(text) is not None), text
        assert normalise(text, glued=classify.gate(text, GLUE_GATE)) == normalise(text), text
    classify.forget()


# issue 11 (round rS1): one JSON record a line that a ticket's word wrap or a terminal broke over 2-3 rows (facts/records.py
# rejoin_records). The records are real (NVIDIA/gpu-operator#1310's zap records; a journal record's fields as systemd
# writes them, records.py's _JSON_RECORD); their wrapping is CONSTRUCTED (textwrap at 70 and 60 columns, between words;
# a cut at 97 columns, no terminal's width, before a member).
GPU_OPERATOR_ERROR = ('{"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is '
                      'not ready, states not ready: [state-operator-validation state-device-plugin state-dcgm-exporter '
                      'gpu-feature-discovery state-mig-manager]"}')
GPU_OPERATOR_INFO = ('{"level":"info","ts":1741165858.259008,"logger":"controllers.ClusterPolicy","msg":"daemonset not ready",'
                     '"name":"nvidia-device-plugin-daemonset"}')
JOURNAL_XID = ('{"__REALTIME_TIMESTAMP":"1733478000123456","_HOSTNAME":"gpu-node-7","SYSLOG_IDENTIFIER":"kernel","MESSAGE":'
               '"NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.","_BOOT_ID":"e8ee305cff53408da12356a3876792ba"}')


def _wrapped(record: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(record, width, break_long_words=False, break_on_hyphens=False))


@pytest.mark.parametrize("record", [GPU_OPERATOR_ERROR, GPU_OPERATOR_INFO, JOURNAL_XID])
@pytest.mark.parametrize("width", [60, 70])
def test_a_json_record_a_ticket_wrapped_is_read_as_one_line(record, width):
    from stethoscope.facts.records import read_records

    text = "nvidia-smi said nothing\n" + _wrapped(record, width) + "\n" + GPU_OPERATOR_INFO + "\n"
    rows = text.split("\n")
    n = len(_wrapped(record, width).split("\n"))
    assert n in (2, 3, 4)
    norm = normalise(text)
    lines = norm.split("\n")
    assert len(lines) == len(rows)  # line for line
    assert lines[1] == read_records("\n" + record + "\n")[1:-1]  # the record's line, as the whole record reads
    assert lines[2:1 + n] == [""] * (n - 1)
    assert lines[1 + n] == "daemonset not ready"
    assert norm.joined == {2: n - 1}
    art = Artefact(path="x.log", text=text, node="n")
    art.normalise()
    assert art.raw_line(2) == "".join(rows[1:1 + n]) or art.raw_line(2).replace(" ", "") == record.replace(" ", "")


def test_a_json_record_cut_at_no_terminals_width_before_a_member_is_joined():
    rows = [GPU_OPERATOR_INFO[:97], GPU_OPERATOR_INFO[97:]]  # ('"name":...' starts the second row: no blank between)
    norm = normalise("\n".join(rows) + "\n")
    assert norm.split("\n")[:2] == ["daemonset not ready", ""] and norm.joined == {1: 1}


def test_an_error_record_a_ticket_wrapped_is_an_error_line_as_whole():
    # the error-level record read as its message, its level kept (unrecognised_text.record_lines): as the whole record
    from stethoscope.facts.parsers import unrecognised_text

    for text in (GPU_OPERATOR_ERROR + "\n", _wrapped(GPU_OPERATOR_ERROR, 70) + "\n",
                 "\n".join(GPU_OPERATOR_ERROR[i:i + 80] for i in range(0, len(GPU_OPERATOR_ERROR), 80)) + "\n"):
        art = Artefact(path="x.log", text=text, node="n")
        art.normalise()
        assert unrecognised_text.record_lines(art) == {1: "error"} and unrecognised_text.detect_records(art), text


@pytest.mark.parametrize("raw", [
    # a record the paste cut (its tail absent): kept as written
    GPU_OPERATOR_ERROR[:90] + "\nthen the pod restarted\n",
    # a pretty-printed object (a member a row, a brace alone): _json_members' form, not joined
    '{"kind": "Event",\n  "reason": "Failed",\n  "count": 3\n}\n',
    # the next row starts another record: no tail here
    GPU_OPERATOR_ERROR[:90] + "\n" + GPU_OPERATOR_INFO + "\n",
    # one record a line, whole
    GPU_OPERATOR_INFO + "\n" + GPU_OPERATOR_INFO + "\n",
])
def test_rows_that_are_no_broken_record_are_not_joined(raw):
    from stethoscope.facts.records import rejoin_records

    assert rejoin_records(raw) is None


# issue 11 (round rS1): pdsh's output gathered by dshbak (pdsh scripts/dshbak: a dashed row, the host or the hosts' list
# compressed, a dashed row, then the lines as pdsh gave them after the host's colon; CONSTRUCTED from that format, the
# kernel lines real forms of the Xid catalogue's): each block's host (or group) is the node its lines are read as
DSHBAK = ("$ pdsh -w gpu-node[01-05] dmesg | dshbak -c\n"
          "----------------\ngpu-node[01-03,05]\n----------------\n"
          " [    5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05\n"
          "----------------\ngpu-node04\n----------------\n"
          " [    5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05\n"
          " [ 8123.456789] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n")


def test_dshbak_blocks_name_their_hosts():
    from stethoscope.facts.lines import dshbak_hosts

    hosts, bare = dshbak_hosts(DSHBAK)
    assert hosts == [None] * 4 + ["gpu-node[01-03,05]"] + [None] * 3 + ["gpu-node04"] * 2 + [None]
    rows = bare.split("\n")
    assert rows[1:4] == ["", "", ""] and rows[4].startswith("[    5.123456] NVRM: loading") and len(rows) == len(DSHBAK.split("\n"))
    for text in ("----------------\nnot a header\n", "-" * 16 + "\nnode01\n" + "-" * 16 + "\n",  # no block under it
                 "----------------\nrank0\n----------------\n x\n"):  # a rank is no host
        assert dshbak_hosts(text) is None


def test_a_dshbak_blocks_fault_is_its_hosts():
    res = parse_one(Artefact(path="dmesg.txt", text=DSHBAK, node="paste"))
    xid = [f for f in res.facts if f.kind == "xid_event"]
    assert [(f.node, f.xid) for f in xid] == [("gpu-node04", 79)]
    assert res.coverage.skipped_lines == 0


# k9s's log pane copied with its frame (awslabs/amazon-eks-ami#1618: the NVIDIA device plugin's log, each row between
# "│" borders and padded to the pane's width)
_PANE = ("│ I0201 22:44:21.277811       1 factory.go:107] Detected non-Tegra platform: /sys/devices/soc0/family file not found"
         "                           │\n"
         "│ E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected"
         "                                                                 │\n")


def test_a_framed_pane_reads_as_its_lines():
    out = normalise(_PANE)
    assert out.split("\n") == [
        "I0201 22:44:21.277811       1 factory.go:107] Detected non-Tegra platform: /sys/devices/soc0/family file not found",
        "E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected", ""]


@pytest.mark.parametrize("text", [
    # CONSTRUCTED near misses: one framed row alone; a table's rows (a "│" inside); a tree's rows (no closing border)
    "│ E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected   │\nnext line\n",
    "│ GPU │ Name      │\n│ 0   │ H100 80GB │\n",
    "│   ├── libnvidia-ml.so.1\n│   └── libcuda.so.1\n",
])
def test_rows_that_are_no_pane_keep_their_bars(text):
    assert normalise(text) is text


@pytest.mark.parametrize("text", [
    # CONSTRUCTED: a framed row's padding with no closing border, a tree's rows, a table's, blanks and tabs between words
    "│ x" + " " * 20000 + "y\n│ z" + " \t" * 10000 + "\n",
    "│ a" + " b" * 20000 + "\n" + "│ c   │\n",
])
def test_a_long_unclosed_pane_row_reads_in_one_pass(text):
    # the lazy body before "[ \t]*│" rescanned the padding after each of its characters (0.7 s at 16,000 blanks); the
    # greedy body reads a row once: both texts at once well under a second even on a loaded 2-core machine
    start = time.process_time()
    assert normalise(text) is text
    assert time.process_time() - start < 1.0


def test_the_greedy_pane_body_is_the_lazy_ones():
    # the same rows and bodies as the lazy form it replaced, over framed, padded, tabbed, empty and CR-ended rows
    lazy = re.compile(r"^[ \t]*\u2502[ \t](?P<body>[^\u2502\n]*?)[ \t]*\u2502[ \t]*(?P<cr>\r?)$", re.M)
    rows = _PANE + ("│ │\n│   │\n│ a │\r\n│ a b \t │ \n│\tx\t\t│\n│ x│\n│ a │ b │\n│ a\r b │\n│ \u2502\n"
                    "  │ lead blanks   │\n│ trailing\t│\t\r\n")
    for text in (rows, rows.replace("\n", "\r\n")):
        want = [(m.start(), m.end(), m["body"], m["cr"]) for m in lazy.finditer(text)]
        got = [(m.start(), m.end(), m["body"], m["cr"]) for m in _PANE_ROW.finditer(text)]
        assert got == want and len(want) >= 8

"""Readers' regexes stay linear on long hostile lines (issue 13; bench/redos.py --chars 30000 --limit 1
listed these, session 17): each real line still matches as before, and the long lines made from it
(repeated, with a run of blanks in its middle, its second half repeated) are searched within a bound.
The lines are 120,000 characters: a quadratic pattern takes 16 times what it takes at 30,000, so one
that would pass at 30,000 (R3, session 18: 2.1 s at 120k was ~0.13 s at 30k) fails here."""
from __future__ import annotations

import importlib

import pytest

import fuzzing

# (reader module, pattern, a real line it matches, what the line gives: the named groups, the span, None: the whole line)
CASES = [
    # ethtool_settings: ethtool <iface> (openucx/ucx#10430, openwrt/openwrt#22126, ublue-os/bazzite#5094; netlink's extended link state)
    ("ethtool_settings", "_BANNER", "Settings for bond0:", {"iface": "bond0"}),
    ("ethtool_settings", "_MODES", "        Link partner advertised link modes:  10baseT/Half 10baseT/Full",
     {"which": "Link partner advertised", "modes": "10baseT/Half 10baseT/Full"}),
    ("ethtool_settings", "_MODES_MORE", "                                100baseT/Half 100baseT/Full", {"modes": "100baseT/Half 100baseT/Full"}),
    ("ethtool_settings", "_SPEED", "        Speed: 200000Mb/s", {"mbps": "200000", "unknown": None}),
    ("ethtool_settings", "_LINK", "\tLink detected: no (No cable)", {"link": "no", "detail": "No cable"}),
    # wild sweep 47: UCX's memory-type copy and cuda_ipc forms, Cray MPICH's abort line
    ("ucx_log", "_MEMTYPE", "[1549236370.714691] [r3657:2445 :0]         select.c:312  UCX  ERROR no copy across memory types transport to <no debug data>: Unsupported operation",
     {"peer": "<no debug data>", "reason": "Unsupported operation"}),
    ("ucx_log", "_IPC_OPEN", "cuda_ipc_cache.c:154  UCX Fatal: dest:5221: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)",
     {"cache": "dest:5221", "addr": "0x7f7647415c00", "len": "89088", "status": "Element already exists"}),
    ("ucx_log", "_IPC_CALL", "cuda_ipc_cache.c:284  UCX  ERROR cuIpcOpenMemHandle() failed: invalid device context", {"err": "invalid device context"}),
    ("mpich_abort", "_CRAY", "MPICH ERROR [Rank 0] [job id 5680267.11] [Wed Feb 22 23:01:58 2023] [nid002845] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked",
     {"rank": "0", "job": "5680267.11", "host": "nid002845", "code": "-1", "func": "MPIDI_CRAY_init",
      "msg": "GPU_SUPPORT_ENABLED is requested, but GTL library is not linked"}),
    # mlx5_core_log: mlx5e's TX reporter timeout (kernel commit 5f29458b77d5's message), mlx5_ib's debug error CQE (linux-nvme/nvme-cli#3268)
    ("mlx5_core_log", "_TX_TIMEOUT", "mlx5_core 0000:08:00.1 enp8s0f1: TX timeout on queue: 1, SQ: 0x11ec, CQ: 0x146d, SQ Cons: 0x0 SQ Prod: 0x1, usecs since last trans: 21565000",
     {"bdf": "0000:08:00.1", "ifname": "enp8s0f1", "queue": "1", "usecs": "21565000"}),
    ("mlx5_core_log", "_ERR_CQE", "infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:",
     {"dev": "rocep33s0f0", "olddev": None, "func": "mlx5_poll_one", "side": "Responder", "cqn": "406"}),
    ("mlx5_core_log", "_ERR_SYND", "infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9",
     {"dev": "rocep33s0f0", "olddev": None, "synd": "5"}),
    # devlink_health: iproute2's devlink health show (the ice E810 patch's sample; iproute2 < 5.4's name form)
    ("devlink_health", "_HANDLE", "pci/0000:00:0a.0/1:", {"handle": "pci/0000:00:0a.0/1", "addr": "0000:00:0a.0", "port": "1"}),
    ("devlink_health", "_REPORTER", "   name tx", {"name": "tx"}),
    ("devlink_health", "_STATE", "    state error error 1 recover 0 last_dump_date 2024-03-17",
     {"state": "error", "errors": "1", "recovered": "0", "rest": " last_dump_date 2024-03-17"}),
    # ethtool_stats: ryran/xsos#112's grep of an sosreport's ethtool -S file; sosreport's file name of it
    ("ethtool_stats", "_SOS_GREP", "$ grep pause sos_commands/networking/ethtool_-S_eth1", {"iface": "eth1"}),
    ("ethtool_stats", "_SOS_FILE", "sos_commands/networking/ethtool_-S_ens1f0np0", {"iface": "ens1f0np0"}),
    # unrecognised_text's reporter's words (ofiwg/libfabric#11628's template field; Lightning's bug template heading;
    # vllm-project/vllm#8420's title tag; a printed exception in a title; aws/aws-ofi-nccl#346's sentence for cuda_app)
    ("unrecognised_text", "_TEMPLATE_FIELD", "**Severity**: High - Segmentation fault with EFA provider",
     {"label": "Severity", "value": "High - Segmentation fault with EFA provider"}),
    ("unrecognised_text", "_HEADING", "### Error messages and logs", {"value": "Error messages and logs"}),
    ("unrecognised_text", "_SECTION_LABEL", "Error messages and logs", None),
    ("unrecognised_text", "TITLE_TAG", "[Bug]: PyNcclCommunicator error when inferencing", (0, 7)),
    ("unrecognised_text", "_PRINTED", "AssertionError: Fatal error: gradients are inconsistent between workers", (0, 15)),
    ("cuda_app", "_THREE_WORDS", "and, if it is equal to", (0, 10)),
    ("dcgm_log", "_BARE", "ERROR [3468:4824] ReadNvSwitchStatusAllSwitches() returned No data is available "
     "[/workspaces/dcgm-rel_dcgm_2_0-postmerge/modules/nvswitch/DcgmModuleNvSwitch.cpp:372] "
     "[DcgmNs::DcgmModuleNvSwitch::RunOnce]",
     {"level": "ERROR", "plugin": None, "msg": "ReadNvSwitchStatusAllSwitches() returned No data is available"}),
    ("ibv_devinfo", "_ENUM", "PORT_ACTIVE (4)", {"name": "PORT_ACTIVE", "num": "4"}),
    ("ibv_devinfo", "_ENUM", "InfiniBand (0)", {"name": "InfiniBand", "num": "0"}),
    ("nvidia_smi_list", "_INDENTED", "\t Link 0: 25 GB/s", (0, 3)),
    ("nvidia_smi_table", "_GPU_ROW", "|   0  GeForce GTX 108...  Off  | 00000000:04:00.0 Off |                  N/A |",
     {"idx": "0", "name": "GeForce GTX 108...", "pers": "Off", "bus": "00000000:04:00.0", "disp": "Off", "ecc": "N/A"}),
    ("perf_script", "_HEAD", "sglang::schedul 2256971 53718.148983:     740539 cycles: ",
     {"comm": "sglang::schedul", "pid": "2256971"}),
    ("perf_script", "_HEAD", "python3 1234/1240 [012] 53718.148983:     250000 cpu-clock:pppH: ",
     {"comm": "python3", "pid": "1234"}),
    ("pidstat", "_HEAD", "05:03:29 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command", None),
    ("python_packages", "_ENV_FIELD", "Clang version                : Could not collect", None),
    ("python_packages", "_ENV_FIELD", "CUDA used to build PyTorch: None", None),
    ("ulimit", "_BASH", "max locked memory       (kbytes, -l) 65536",
     {"desc": "max locked memory", "dunit": None, "unit": "kbytes", "opt": "l", "val": "65536"}),
    ("ulimit", "_BASH", "max locked memory (kb)          (-l) 64",
     {"desc": "max locked memory", "dunit": "kb", "unit": None, "opt": "l", "val": "64"}),
    ("unrecognised_text", "_EXCEPTION", "torch.OutOfMemoryError: CUDA out of memory.", (0, 23)),
    # IPython's traceback header and body (numba/numba#8638, NVIDIA/cudf#6746; round rT9)
    ("unrecognised_text", "_IPY_HEADER", "CudaSupportError                          Traceback (most recent call last)", None),
    ("unrecognised_text", "_IPY_BODY", "~/anaconda3/envs/rapids16/lib/python3.7/contextlib.py in inner(*args, **kwds)", (0, 58)),
    ("dcgmi_diag", "_COMMAND", "dcgmi diag --run 2 -j", {"level": "2"}),
    # the table's closing border (NVIDIA/autopilot#68's table, fixtures/artefacts/dcgmi_diag; session 24's `cut`)
    ("dcgmi_diag", "_BORDER", "+---------------------------+------------------------------------------------+", None),
    # test_fuzz_parsers' long_line of harvest 131's dmesg: 'Xid (' repeated with no ')' after it
    ("kernel_log", "_XID", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
     {"pci": "PCI:0000:01:00", "code": "79", "rest": "GPU has fallen off the bus."}),
    ("kernel_log", "_XID", "NVRM: Xid (PCI:0000:41:00 GPU-I:05 GPU-CI:01): 79, pid=4242, name=python3, GPU has fallen off the bus.",
     {"pci": "PCI:0000:41:00 GPU-I:05 GPU-CI:01", "code": "79", "rest": "pid=4242, name=python3, GPU has fallen off the bus."}),
    # bench/redos.py at its default 120,000 characters (2 s) listed these, session 18 (R3)
    ("container_runtime", "_NO_DEVICE_DRIVER",  # fixtures/artefacts/container_runtime/docker_could_not_select_device_driver_gpu.txt
     'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
     {"driver": "", "caps": "[[gpu]]"}),
    ("container_runtime", "_UTILITY_NOT_FOUND",  # fixtures/artefacts/container_runtime/alphafold374_mixed_nvidia_smi_not_found_host_table.txt
     'exec: "nvidia-smi": executable file not found in $PATH', {"bin": "nvidia-smi"}),
    ("cuda_app", "ERROR_CODE",  # bigstack-oss/cubecos#312 (fixtures/artefacts/cuda_app/cuda_samples_error_code.log)
     "Failed to allocate device vector A (error code CUDA driver version is insufficient for CUDA runtime version)!",
     {"msg": "CUDA driver version is insufficient for CUDA runtime version"}),
    ("cuda_app", "API_CALL",  # NVIDIA/nvbandwidth#46 (fixtures/artefacts/cuda_app/nvbandwidth_multinode_cumem_errors.txt)
     "multinode run fails with [CUDA_ERROR_NOT_PERMITTED] error in cuMemCreate() call", {"fn": "cuMemCreate"}),
    ("gpud_log", "_XID", "XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00",  # fixtures/artefacts/gpud/gpud604_xid79_event.txt
     {"s": None, "code": "79", "name": "GPU has fallen off the bus", "desc": None, "dev": "PCI:0000:ae:00"}),
    ("gpud_log", "_XID", "XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00 UUID:GPU-c44c6e5f-72cf-8200-97c2-f9b9ebcf2dbb",
     {"s": None, "code": "48", "name": "Double Bit ECC Error", "desc": None, "dev": "PCI:0000:6b:00"}),  # fixtures/artefacts/gpud_states
    # the mnemonic without brackets: leptonai/gpud's Test_newXIDErrorReasonWithDetail_SubCode (newXIDErrorReasonWithDetail)
    ("gpud_log", "_XID", "XID 145.0 (err status 0x00000000) NVLINK_RLW_ERROR detected on GPU PCI:0000:04:00",
     {"s": None, "code": "145", "name": None, "desc": "NVLINK_RLW_ERROR", "dev": "PCI:0000:04:00"}),
    # the IOMMU's fault lines (tenstorrent/tt-umd#1814's Intel VT-d line, ggml-org/llama.cpp#21908's AMD-Vi line)
    ("kernel_log_pcie", "_DMAR_FAULT", "DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] "
     "SM: Present bit in first-level paging entry is clear",
     {"rw": "Read", "intr": None, "bus": "03", "slot": "00", "fn": "0", "addr": "100000",
      "reason": "SM: Present bit in first-level paging entry is clear"}),
    ("kernel_log_pcie", "_AMD_VI_FAULT", "AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 flags=0x0020]", (0, 68)),
    # kernel_log_pcie_recovery: the recovery after an uncorrectable AER error (RH solutions 7128107, rwth-i6/returnn#1500)
    ("kernel_log_pcie_recovery", "_RESULT", "kernel: pcieport 0000:03:04.0: AER: device recovery failed",
     {"drv": "pcieport", "dev": "0000:03:04.0", "result": "failed"}),
    ("kernel_log_pcie_recovery", "_NO_CALLBACK", "[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)",
     {"drv": "nvidia", "dev": "0000:03:00.0"}),
    ("kernel_log_pcie_recovery", "_STEP", "kernel: pcieport 0000:03:04.0: AER: Downstream Port link has been reset (0)",
     {"step": "Downstream Port link has been reset (0)", "upstream": None}),
    ("kernel_log_pcie_recovery", "_STEP", "[256237.500842] pcieport 0000:89:02.0: link reset at upstream device 0000:89:02.0 failed",
     {"step": None, "upstream": "link reset at upstream device 0000:89:02.0 failed"}),  # fixtures/artefacts/kernel_log/dmesg_aer_hotplug_link_down.log
    # kernel_log_splat: the WARN report and an oops's faulting instruction (NVIDIA/open-gpu-kernel-modules#916, #1110, pop-os/pop#4036)
    ("kernel_log_splat", "_WARN", "WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]",
     {"cpu": "28", "pid": "6705", "file": "nvidia/nv.c", "line": "5039", "func": "nvidia_dev_put", "mod": "nvidia"}),
    ("kernel_log_splat", "_WARN_619", "WARNING: arch/x86/kernel/cpu/bugs.c:3736 at __warn_thunk+0x10/0x20, CPU#1: (udev-worker)/728",
     {"file": "arch/x86/kernel/cpu/bugs.c", "line": "3736", "func": "__warn_thunk", "mod": None, "cpu": "1", "comm": "(udev-worker)",
      "pid": "728"}),
    ("kernel_log_host_os", "_CRASH_IP", "RIP: uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]", {"fn": "uvm_hmm_unregister_gpu", "mod": "nvidia_uvm"}),
    ("kernel_log_host_os", "_CRASH_IP", "RIP: 0010:uvm_va_space_destroy+0x5d4/0x6a0 [nvidia_uvm 5f0c6a1e3b9d4c2a]",
     {"fn": "uvm_va_space_destroy", "mod": "nvidia_uvm"}),  # CONSTRUCTED: %pS with the module's build id
    ("kernel_log_splat", "_CPU_INFO", "CPU: 7 PID: 49 Comm: kworker/u16:1 Tainted: P        W  O    4.12.14-ck-w530-ck #1",
     {"comm": "kworker/u16:1", "taint": "P        W  O"}),
    # cuda_app: memory-efficient attention without a kernel (open-compass/VLMEvalKit#330)
    ("cuda_app", "MEM_EFF_NO_KERNEL", "RuntimeError: cutlassF: no kernel found to launch!", {"pass": "F"}),
    ("kernel_log_pcie", "_DISPLAY_DEVICE", "pci 0000:01:00.0: [10de:2204] type 00 class 0x030000 PCIe Legacy Endpoint", {"dev": "0000:01:00.0"}),
    ("kernel_log_nvrm", "_BAR", "               NVRM: BAR0 is 0M @ 0x0 (PCI:0000:c1:00.0)",  # fixtures/artefacts/kernel_log/dmesg_bar0_invalid_probe_failed.log
     {"bar": "0", "size": "0", "pci": "0000:c1:00.0"}),
    # searched in a field's value: 'Enabled Link Speed (Ext.)          : 0x00000200 (100G_4X)' of
    # fixtures/artefacts/mlxlink/bluefield3_tutorial_p0_active.txt
    ("mlxlink", "_SPEED_LIST", "0x00000200 (100G_4X)", {"list": "100G_4X"}),
    ("nccl_log_socket", "CONNECT_RETRY",  # fixtures/artefacts/nccl_log/socket_connect_failures.log
     "worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying",
     {"err1": "Connection timed out", "peer": None, "err2": None}),
    ("nccl_log_socket", "CONNECT_RETRY",  # fixtures/harvest/cases/1705-*/nccl-lines-quoted-in-pr.log
     "socketPollConnect: connect to 169.254.170.23<...> returned Connection refused, retrying (13/34)",
     {"err1": None, "peer": "169.254.170.23<...>", "err2": "Connection refused"}),
    ("nvidia_smi_xml", "PROLOG", '<?xml version="1.0" ?>', None),  # fixtures/bundles/h200-healthy/bundle/vm/smi.xml
    ("nvidia_smi_xml", "PROLOG", '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">', None),
    ("slurm_scheduler", "_R_ROW",  # aws-samples/aws-plugin-for-slurm#10 (fixtures/artefacts/slurm_scheduler/awsplugin10_sinfo_R_low_socket_core_thread.txt)
     "Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]",
     {"reason": "Low socket*core*thre", "user": "root", "ts": "2019-05-07T18:16:10", "state": None, "nodes": "ip-10-0-1-[6-7]"}),
    # bench/redos.py --limit 0.5 listed these at 120,000 characters, session 18 (R4), and _N_ROW's lazy reason
    ("ipmitool_sel", "_ROW",  # ipmitool's format with its own strings (tests/parsers/test_ipmitool_sel.py ROWS)
     "   b | 01/02/2024 | 10:07:19 | Management Subsys Health MGMT_HEALTH | State Asserted | Asserted",
     {"id": "b", "date": "01/02/2024", "time": "10:07:19", "uptime": None, "sensor": "Management Subsys Health MGMT_HEALTH",
      "desc": "State Asserted", "dir": "Asserted", "reading": None}),
    # a threshold sensor's row with its reading, from a public `ipmitool sel elist` dump (GitHub code index;
    # tests/parsers/test_ipmitool_sel.py's row 3 has the same form): blanks before its last word took 57 s
    ("ipmitool_sel", "_ROW",
     " 2bd | 07/07/2015 | 14:39:23 | Temperature SSB Temp | Lower Non-critical going low  | Asserted | Reading 0 < Threshold 5 degrees C",
     {"id": "2bd", "date": "07/07/2015", "time": "14:39:23", "uptime": None, "sensor": "Temperature SSB Temp",
      "desc": "Lower Non-critical going low", "dir": "Asserted", "reading": "Reading 0 < Threshold 5 degrees C"}),
    ("pidstat", "_BANNER",  # fixtures/artefacts/pidstat/pidstat_drshut_rancher.txt
     "Linux 5.4.0-74-generic (rancher24x) \t10/06/21 \t_x86_64_\t(4 CPU)", None),
    ("top", "_TABLE",  # fixtures/artefacts/top/top_1_w512_dev_host.txt
     "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND", None),
    ("training_throughput", "_HF",  # fixtures/artefacts/training_throughput/hf_trainer_glue_metrics.log
     "{'train_runtime': 437.8544, 'train_samples_per_second': 25.132, 'train_steps_per_second': 3.145, "
     "'train_loss': 0.4564213610768924, 'epoch': 3.0}",
     {"rt": "437.8544", "rest": " 'train_samples_per_second': 25.132, 'train_steps_per_second': 3.145, "
      "'train_loss': 0.4564213610768924, 'epoch': 3.0"}),
    ("training_throughput", "_NVRX_ROW",  # Megatron-Bridge docs/training/resiliency.md (nvidia-resiliency-ext's score rows)
     "  Rank=76 Node=h100-001-253-012 Score=0.94", {"rank": "76", "node": "h100-001-253-012", "score": "0.94"}),
    ("training_throughput", "_MEG_RTT",  # Megatron-LM megatron/core/README_STRAGGLER.md
     " 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/0 | MnPwr/Rnk: 601796W/8",
     {"mn": "3453.08", "mnr": "8", "mx": "3468.20", "mxr": "0"}),
    ("training_throughput", "_FS_RANK",  # FlagScale's StragglerReport.to_text
     "[default0]:  Rank 5 (p-phy-node-prod-15-129)", {"rank": "5", "node": "p-phy-node-prod-15-129"}),
    # wild sweep 49: the trainers' data_time forms (mmcv: open-mmlab/mmdetection#4090; YOLOX: open-mmlab/mmdetection#6020;
    # mmcv's JSON log: open-mmlab/mmdetection#4394; LeRobot: huggingface/lerobot#1488; timm train.py's format string)
    ("training_input_wait", "_WAIT", "2020-11-11 18:20:40,841 - mmdet - INFO - Epoch [1][1050/29317]\tlr: 2.000e-02, eta: 1 day, 18:57:37, time: 0.387, data_time: 0.008, memory: 3946, loss: 1.0031",
     {"yolox": None, "t": "0.387", "d": "0.008"}),
    ("training_input_wait", "_WAIT", "yolox.core.trainer:after_iter:246 - epoch: 1/300, iter: 1840/1849, mem: 7420Mb, iter_time: 0.404s, data_time: 0.025s, total_loss: 11.3",
     {"yolox": "iter_", "t": "0.404", "d": "0.025"}),
    ("training_input_wait", "_WAIT_JSON_D", '{"mode": "train", "epoch": 161, "iter": 100, "lr": 0.001, "memory": 5572, "data_time": 0.19335, "loss": 1177.34624, "time": 0.97546}',
     {"d": "0.19335"}),
    ("training_input_wait", "_WAIT_TIMM", "Train: 0 [  50/1251 (  4%)]  Loss: 6.92 (6.93)  Time: 0.412s,  621.36/s  (0.590s,  433.90/s)  LR: 1.000e-06  Data: 0.301 (0.471)",
     {"t": "0.412", "d": "0.301"}),
    ("training_input_wait", "_WAIT_LEROBOT", "INFO 2025-07-11 08:20:13 ts/train.py:232 step:10 smpl:640 ep:2 epch:0.00 loss:1.073 grdn:4.051 lr:2.0e-06 updt_s:0.296 data_s:0.001",
     {"u": "0.296", "d": "0.001"}),
    # round C7: torchvision's MetricLogger (fangwei123456/Spike-Element-Wise-ResNet#10), pytorch/examples' ImageNet line (pytorch/pytorch#680)
    ("training_input_wait", "_WAIT_METRIC", "Epoch: [0]  [ 103/5005]  eta: 4:43:31  lr: 0.1  img/s: 13.62830983555788  loss: 6.8536 (6.9458)  acc1: 0.0000 (0.2103)  acc5: 0.0000 (0.9916)  time: 2.5401  data: 0.0336  max mem: 3524",
     {"t": "2.5401", "d": "0.0336"}),
    ("training_input_wait", "_WAIT_AVG", "Epoch: [0][10/5005]\tTime 22.424 (7.498)\tData 22.372 (7.070)\tLoss 6.9065 (6.9074)\tPrec@1 0.000 (0.142)\tPrec@5 1.172 (0.533)",
     {"e": "0", "i": "10", "t": "22.424", "ta": "7.498", "dec": "498", "d": "22.372", "da": "7.070"}),
    # torch.profiler's key_averages table (MLforHealth/ClinicalDG#2)
    ("training_input_wait", "_PROF_HEADER", "                                                   Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls  ",
     (0, 125)),
    ("training_input_wait", "_PROF_LOADER", "enumerate(DataLoader)#_SingleProcessDataLoaderIter._...        88.64%       78.632s        89.18%       79.116s     791.161ms       0.000us         0.00%       0.000us       0.000us           100  ",
     (0, 55)),
    ("slurm_scheduler", "_N_ROW",  # elasticluster/elasticluster#272 (fixtures/artefacts/slurm_scheduler/elasticluster272_sinfo_lNe_not_responding.txt)
     "compute001      1     main*       down*   12   12:1:1  64267        0      1   (null) Not responding",
     {"nodes": "compute001", "state": "down*", "reason": "Not responding"}),
    # R5b
    ("nccl_log", "_BARE_INFO",  # NVIDIA/nccl-tests#228 (fixtures/artefacts/nccl_log/p2p_level_loc_bare.log)
     "NCCL_P2P_LEVEL set by environment to LOC", {"msg": "NCCL_P2P_LEVEL set by environment to LOC"}),
    ("nccl_log", "_BARE_MESSAGE",  # pytorch/pytorch#81628 (fixtures/artefacts/nccl_log/completion_error_bare.log)
     "NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129",
     {"msg": "NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129"}),
    ("nccl_log", "QUOTED_BARE",  # blog.gitcode.com (fixtures/artefacts/nccl_log/gitcode_ib_gid_quoted_in_prose.txt), wild sweep rR5
     '- IB网络初始化失败:"Call to ibv_modify_qp failed with error No such device errno 19"',
     {"msg": "Call to ibv_modify_qp failed with error No such device errno 19"}),
    ("nccl_log", "_OFI_TEST_LINE",  # aws/aws-ofi-nccl#22 (fixtures/artefacts/nccl_log/ofi_test_logger_open_av_einval.log)
     "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
     {"level": "WARN", "msg": "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument"}),
    # R5a
    ("alertmanager_notification", "_ROW",  # m-lab/prometheus-support#64 (fixtures/artefacts/alertmanager_notification/mlab_prometheus_support64_disk_running_full.txt)
     "    - alertname = test DiskRunningFull2", {"key": "alertname", "value": "test DiskRunningFull2"}),
    ("compute_sanitizer", "_AT",  # fixtures/artefacts/compute_sanitizer/hecbench132_invalid_global_read.txt
     "=========     at compress(const unsigned int *, const unsigned int *, uint2 *, int)+0xb0",
     {"fn": "compress(const unsigned int *, const unsigned int *, uint2 *, int)", "src": None}),
    ("compute_sanitizer", "_AT",  # google-deepmind/mujoco_warp#664 (tests/parsers/test_compute_sanitizer.py)
     "=========     at T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)+0x1dd40 in array.h:908",
     {"fn": "T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)", "src": "array.h:908"}),
    ("dcgm_exporter_log", "_GOLOG",  # fixtures/artefacts/dcgm_exporter_log/nvml_not_found_golog_dcgmexporter450_mixed.log
     "2025/02/27 02:51:27 INFO Starting dcgm-exporter Version=4.1.1-4.0.4",
     {"level": "INFO", "msg": "Starting dcgm-exporter Version=4.1.1-4.0.4"}),
    ("dcgm_exporter_log", "_TTY",  # fixtures/artefacts/dcgm_exporter_log/watch_feature_not_supported_logrus_tty_dcgmexporter86.log
     "INFO[0000] Starting dcgm-exporter", {"level": "INFO", "msg": "Starting dcgm-exporter"}),
    ("dcgm_log", "_LOG",  # NVIDIA/DCGM#136 (fixtures/artefacts/dcgm_log/dcgm136_config_package_missing.log)
     "2023-11-29 16:27:36.609 ERROR [74919:74919] Could not read package diag config. Please ensure the "
     "datacanter-gpu-manager-config package is installed [/workspaces/dcgm-rel_dcgm_3_3-postmerge/nvvs/src/"
     "ConfigFileParser_v2.cpp:218] [DcgmNs::Nvvs::ConfigFileParser_v2::ConfigFileParser_v2]",
     {"level": "ERROR", "plugin": None, "msg": "Could not read package diag config. Please ensure the "
      "datacanter-gpu-manager-config package is installed"}),
    ("dcgm_log", "_NO_METRIC_GROUPS",  # NVIDIA/dcgm-exporter#22 (fixtures/artefacts/dcgm_log/dcgm_exporter22_k80_dcgmi_no_metric_groups_paste.log)
     "Error: Unable to Get supported metric groups: This request is serviced by a module of DCGM that is not currently loaded.",
     {"status": "This request is serviced by a module of DCGM that is not currently loaded."}),
    ("dcgm_log", "HEALTH",  # NVIDIA/DCGM#270 (fixtures/artefacts/dcgm_log/dcgm270_health_thermal_warning.log)
     "ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due to "
     "thermal violation in GPU 2. Verify that the cooling on this machine is functional, including external, thermal "
     "material interface, fans, and any other components.",
     {"result": "WARNING", "system": "Thermal", "msg": "Detected clocks event due to thermal violation in GPU 2. Verify "
      "that the cooling on this machine is functional, including external, thermal material interface, fans, and any other components."}),
    # R5b
    ("nccl_log_setup", "_ERRNO_TEXT",  # NVIDIA/nccl#328 ("Call to shm_open failed : Permission denied", its strerror text)
     "Permission denied", {"text": "Permission denied"}),
    ("nccl_tests", "_RANK",  # fixtures/artefacts/nccl_tests/soperator_pr428_multihost.txt (nebius/soperator PR 428)
     "#  Rank  0 Group  0 Pid   1887 on   worker-1 device  0 [0x8d] NVIDIA H100 80GB HBM3",
     {"rank": "0", "group": "0", "pid": "1887", "host": "worker-1", "device": "0", "bus": "0x8d", "name": "NVIDIA H100 80GB HBM3"}),
    ("kernel_log", "_RECOVERY",  # vllm-project/vllm#40652 (fixtures/artefacts/kernel_log/talos_xid74_xid154_vllm40652.log)
     "NVRM: Xid (PCI:0000:48:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
     {"prev": "None", "code": "1", "action": "GPU Reset Required"}),
    ("kernel_log_drm", "_LINE",  # fixtures/artefacts/kernel_log/ogkm116_open_module_missing_nvdec0_gsp_rm.log (open-gpu-kernel-modules#116)
     "[    3.597537] [drm:nv_drm_load [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NvKmsKapiDevice",
     {"func": "nv_drm_load", "gpu": "00000100", "msg": "Failed to allocate NvKmsKapiDevice"}),
    ("kernel_log_efa", "_LINE",  # aws/aws-ofi-nccl#22 (fixtures/artefacts/kernel_log/ofinccl22_efa_alloc_pd_failed.log)
     "[ 1632.420957] infiniband efa_0: Failed to allocate pd[-12]",
     {"ibdev": "efa_0", "bdf": None, "ibdev2": None, "msg": "Failed to allocate pd[-12]"}),
    ("libibverbs", "_LINE",  # fixtures/artefacts/libibverbs/rxe_dev48_no_provider_for_uverbs0.txt
     "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0",
     {"msg": "no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0"}),
    ("mpstat", "_ROW",  # fixtures/artefacts/mpstat/mpstat_all_busy.txt
     "Average:     all   98.75    0.00    0.25    0.00    0.00    0.00    1.00    0.00    0.00    0.00",
     {"when": "Average:", "cpu": "all", "vals": "98.75    0.00    0.25    0.00    0.00    0.00    1.00    0.00    0.00    0.00"}),
    # R5c
    ("nvidia_installer", "_DETAIL",  # Bumblebee-Project/Bumblebee#932 (fixtures/artefacts/nvidia_installer/bumblebee932_load_error_no_such_device.txt)
     "-> Kernel module load error: No such device",
     {"why": "No such device"}),
    ("nvidia_smi_reset", "_ROW",  # fixtures/harvest/cases/160-gpu-reset-refused-in-use-persistence-mode/app.txt
     "  GPU 00000000:1A:00.0: In use by another client",
     {"bdf": "00000000:1A:00.0", "msg": "In use by another client"}),
    ("ray_worker_death", "_EXIT_DETAIL",  # Unakar/Logic-RL#18 (fixtures/artefacts/ray_worker_death/logicrl18_actor_died_connection_error.txt)
     "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit de"
     "tail: Worker unexpectedly exits with a connection error code 2. End of file.",
     {"d": "Worker unexpectedly exits with a connection error code 2. End of file."}),
    ("subprocess_error", "SHELL_REPORT",  # ArjunaCluster/ArjunaUsers#52 (fixtures/artefacts/slurm_log/arjuna52_batch_oom_cgroup.err)
     "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py --pr"
     "op hform --epochs 400 --lr_milestones 50 100 200 --gamma 0.25 --normalizing_const_AO 10000.0 --lr_ge"
     "nerator 0.001 --lr_conv 0.001",
     {"sig1": "Killed", "core1": None,
      "cmd": "python3 main.py --prop hform --epochs 400 --lr_milestones 50 100 200 --gamma 0.25 --normalizing_const_AO 10000.0 --lr_generator 0.001 --lr_conv 0.001",
      "sig2": None, "core2": None}),
    ("subprocess_error", "ZSH_REPORT",  # SeanNaren/deepspeech.pytorch#172 (fixtures/artefacts/subprocess_error/deepspeech172_zsh_segfault.txt)
     "[1]    83815 segmentation fault  python train.py --train_manifest  --val_manifest  --batch_size 64 --cuda",
     {"zsig": "segmentation fault", "zcore": None,
      "zcmd": "python train.py --train_manifest  --val_manifest  --batch_size 64 --cuda"}),
    ("torch_log_lines", "COMM_ABORTED",  # pytorch/pytorch#97066 (fixtures/artefacts/torch_log/watchdog_torch1x_no_numel.log)
     "RuntimeError: NCCL communicator was aborted on rank 0.  Original reason for failure was: [Rank 0] Wa"
     "tchdog caught collective operation timeout: WorkNCCL(SeqNum=35582, OpType=ALLREDUCE, Timeout(ms)=180"
     "0000) ran for 1800366 milliseconds before timing out.",
     {"rank": "0",
      "reason": "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=35582, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800366 milliseconds before timing out.",
      "rank2": None}),
    ("torch_gloo", "CONNECT",  # vllm-project/vllm#7074 (fixtures/artefacts/torch_log/vllm7074_gloo_loopback_fallback_connect_failed.log)
     "(RayWorkerWrapper pid=1890, ip=10.41.0.8) [rank8]:[E ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed with "
     "[../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
     {"detail": "no error", "remote": None}),
    ("torch_gloo", "PAIR_CONNECT",  # pytorch/pytorch#15592 (older Gloo's bare pair IoException, PyTorch 1.0)
     "  what():  [/opt/conda/conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] connect "
     "[127.0.1.1]:3210: Connection refused",
     {"remote": "127.0.1.1", "detail": "Connection refused"}),
    ("ucx_log", "_RETURNED",  # openucx/ucx#4770 (fixtures/artefacts/ucx_log/ucx4770_osu_bw_paste_ibv_exp_query_device.txt)
     "[1581627489.217854] [upstreamhost1:195530:0]       ib_verbs.h:84   UCX  ERROR ibv_exp_query_device(mlx5_0) "
     "returned 38: No space left on device",
     {"verb": "ibv_exp_query_device", "dev": "mlx5_0", "ret": "38", "err": "No space left on device"}),
    ("nvshmem_log", "_LINE",  # NVIDIA/TensorRT-LLM#17060 (fixtures/artefacts/nvshmem_log/trtllm17060_heap_cumemmap_failed.log)
     ".../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed",
     {"file": ".../src/host/mem/mem_heap.cpp", "line": "1519", "nz": "1", "errno": None, "es": None, "name": None,
      "null": None, "msg": "cuMemMap failed"}),
    ("dynamic_linker", "TF_DSO",  # googlecolab/colabtools#3408 (fixtures/artefacts/dynamic_linker/colab3408_xla_nvinfer.log)
     "2023-02-13 19:39:03.670024: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not "
     "load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or "
     "directory; LD_LIBRARY_PATH: /usr/lib64-nvidia",
     {"library": "libnvinfer.so.7", "detail": "libnvinfer.so.7: cannot open shared object file: No such file or directory",
      "old": None}),
    ("fi_info", "_LOG",  # ofiwg/libfabric#11256 (fixtures/artefacts/fi_info/libfabric11256_info_lines_only.txt)
     "libfabric:151205:1753871244:ofi_rxm:core:core:ofi_layering_ok():1275<info> Need core provider, skipping ofi_rxm",
     {"fields": "151205:1753871244:ofi_rxm:core:core", "func": "ofi_layering_ok", "line": "1275", "level": "info",
      "msg": "Need core provider, skipping ofi_rxm"}),
    ("fi_info", "_OP_ERROR",  # aws/aws-ofi-nccl#346 (fixtures/artefacts/fi_info/mixed_aws_ofi_nccl346_efa_txe_invalid_address.txt)
     "err: 5, message: Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: "
     "i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c (7)",
     {"err": "5", "text": "Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: "
      "i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c",
      "prov": "7", "peer": None}),
    ("fi_info", "_OP_ERROR",  # the 1.17 form of aws/aws-ofi-nccl#156's line (rxr/rxr_cq.c v1.17.0, the addresses filled in)
     "rxr_cq_write_tx_error: err: 113, prov_err: Unresponsive receiver (13) our address: fi_addr_efa://[fe80::1]:0:1, peer "
     "address fi_addr_efa://[fe80::2]:0:2",
     {"err": "113", "text": "Unresponsive receiver", "prov": "13", "peer": "fi_addr_efa://[fe80::2]:0:2"}),
    ("nccl_log_messages", "_TCPX_SLOW",  # NVIDIA/nccl#1652 (fixtures/artefacts/nccl_log/nccl1652_gpudirecttcpx_rx_ctrl_timeout.log)
     "0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, "
     "nanos 10000000585",
     {"nic": "0", "dev": "enp12s0", "local": "172.16.0.11<39187>", "dir": "<-", "peer": "172.16.0.95<46723>", "ctrl": "rx",
      "op": None, "errno": None, "comp": None, "cnt": "7331502", "ns": "10000000585"}),
    ("nccl_log_messages", "_OFI_GDR_REQUIRED",  # aws-ofi-nccl platform-aws.c(pp)'s format, a platform table name filled in
     "NET/OFI GDR disabled on GDR-supported instance type p4d.24xlarge", {"type": "p4d.24xlarge"}),
    ("nccl_log_messages", "_OFI_ENDPOINT",  # aws-ofi-nccl v1.14.0..v1.16.3 nccl_ofi_net.c(pp)'s format, fi_strerror(EINVAL)
     "NET/OFI Creating new endpoint for domain 0x55d1c2a0 failed: Invalid argument", {"err": "Invalid argument"}),
    # aws-ofi-nccl's other NCCL_OFI_WARN forms (bench/ofi_warn_formats.yaml), each format filled in
    ("nccl_log_messages", "_OFI_REQUEST_V17",  # include/nccl_ofi_platform.h v1.17.0..v1.21.1
     "NET/OFI Request 0x7f3a2c001200 (SEND) completed with error: err: 113, flags: 0, prov_errno: 13, strerror: Unresponsive receiver, len: 0",
     {"op": "SEND", "rc": "113", "prov": "13", "err": "Unresponsive receiver"}),
    ("nccl_log_messages", "_OFI_GDR_FAILED",  # src/nccl_ofi_ofiutils.c(pp)
     "NET/OFI Failed to set FI_OPT_CUDA_API_PERMITTED. RC: -92, ERROR: Protocol not available",
     {"err": "Failed to set FI_OPT_CUDA_API_PERMITTED. RC: -92, ERROR: Protocol not available"}),
    ("nccl_log_messages", "_OFI_OLD_LIBFABRIC",  # src/platform-aws.c(pp)
     "NET/OFI EFA provider requires at least libfabric version 1.22.0.", {"err": "EFA provider requires at least libfabric version 1.22.0"}),
    ("nccl_log_messages", "_OFI_RC",  # src/nccl_ofi_rdma.c(pp)
     "NET/OFI Unable to bind MR to EP (type = 2) for device 0. RC: -22, Error: Invalid argument",
     {"what": "Unable to bind MR to EP (type = 2) for device 0", "rc": "-22", "rctext": None, "err": "Invalid argument"}),
    ("nccl_log_messages", "_OFI_SETUP_NO_RC",  # src/nccl_ofi_rdma.c(pp)
     "NET/OFI Creating new endpoint for device rdmap16s27 failed: Invalid argument",
     {"what": "Creating new endpoint for device rdmap16s27", "err": "Invalid argument"}),
    ("nccl_log_messages", "_OFI_REGISTER_OTHER",  # src/nccl_ofi_rdma.c(pp)
     "NET/OFI Local endpoint memory registration failed: -12", {"what": "Local endpoint memory registration failed", "rc": "-12"}),
    ("nccl_log_messages", "_OFI_ALLOC",  # src/nccl_ofi_rdma.c(pp)
     "NET/OFI Unable to allocate send communicator", {"what": "send communicator"}),
    ("nccl_log_messages", "_OFI_TOPOLOGY",  # src/nccl_ofi_topo.c(pp)
     "NET/OFI Unable to load hardware topology.", {"err": "Unable to load hardware topology"}),
    ("gcp_rxdm_log", "_LINE",  # GoogleCloudPlatform/container-engine-accelerators#580 (fixtures/artefacts/gcp_rxdm_log/cea580_gpu_count_cut.log)
     "E0312 fastrak_gpumem_manager.cc:200] Number of GPUs detected in the",
     {"sev": "E", "file": "fastrak_gpumem_manager.cc", "line": "200", "msg": "Number of GPUs detected in the"}),
    ("ipmitool_sdr", "_ELIST",  # fixtures/artefacts/ipmitool_sdr/dell36_sdr_elist_all.txt
     "Temp             | 01h | ns  |  3.1 | Disabled", {"name": "Temp", "num": "01", "status": "ns", "reading": "Disabled"}),
    ("k8s_device_plugin", "_START",  # volcano-sh/devices#48 (fixtures/artefacts/k8s_device_plugin/volcano48_socket_in_use.log)
     "2023/08/14 12:05:26 Could not start device plugin for 'volcano.sh/gpu-memory': listen unix "
     "/var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use",
     {"res": "volcano.sh/gpu-memory", "err": "listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use"}),
    ("k8s_device_plugin", "_PLUGIN_START",  # volcano-sh/devices#48 (fixtures/artefacts/k8s_device_plugin/volcano48_socket_in_use.log)
     "2023/08/14 12:05:26 Plugin Volcano-GPU-Plugin failed to start: listen unix "
     "/var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use",
     {"name": "Volcano-GPU-Plugin", "err": "listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use"}),
    ("k8s_device_plugin", "_PANIC",  # NVIDIA/gpu-operator#286 (fixtures/artefacts/k8s_device_plugin/gpu_operator286_mig_single_strategy_panic_v0.log)
     "panic: More than one MIG device type present on node", {"msg": "More than one MIG device type present on node"}),
    ("k8s_device_plugin", "_GFD_ERROR",  # NVIDIA/gpu-feature-discovery#24 (fixtures/artefacts/k8s_device_plugin/gfd24_mig_single_strategy_nvml_not_found.log)
     "gpu-feature-discovery: 2022/06/15 03:25:50 Error: error creating NVML labeler: error creating resource labeler: "
     "failed to construct MIG resource labeler: failed to create labeler for mig-strategy=single: failed to check for "
     "empty MIG-enabled devices: NVML error: Not Found",
     {"err": "error creating NVML labeler: error creating resource labeler: failed to construct MIG resource labeler: "
      "failed to create labeler for mig-strategy=single: failed to check for empty MIG-enabled devices: NVML error: Not Found",
      "kerr": None}),
    ("k8s_object_yaml", "_KEY",  # volcano-sh/volcano#3220 (fixtures/artefacts/k8s_object_yaml/volcano3220_queue_gpu_capability.yaml)
     "apiVersion: scheduling.volcano.sh/v1beta1",
     {"ind": "", "item": None, "key": "apiVersion", "val": "scheduling.volcano.sh/v1beta1"}),
    # R5b
    ("mlxlink", "_SECTION",  # fixtures/artefacts/mlxlink/bluefield3_tutorial_p0_active.txt
     "Operational Info", {"name": "Operational Info"}),
    ("nvidia_ctk", "_LINE",  # NVIDIA/nvidia-container-toolkit#396 (fixtures/artefacts/nvidia_ctk/ctk396_runtime_configure_cdi_generate.txt)
     "WARN[0000] Could not locate /dev/dri/controlD64: pattern /dev/dri/controlD64 not found ",
     {"tty": "WARN", "msg": "Could not locate /dev/dri/controlD64: pattern /dev/dri/controlD64 not found", "lvl": None, "qmsg": None}),
    # R5b
    ("nvidia_driver_container", "_NO_PACKAGE",  # fixtures/artefacts/nvidia_driver_container/ocp47_kernel_headers_not_found.log
     "Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64",
     {"pkgs": "kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64"}),
    # R5b
    ("kernel_log_nvrm", "_ASSERT",  # fixtures/artefacts/kernel_log/dmesg_wpr2_already_up_rtx3080_laptop.log
     "[   81.967314] NVRM: GPU0 nvAssertOkFailedNoLog: Assertion failed: Invalid argument to call [NV_ERR_INVALID_ARGUMENT] "
     "(0x0000001F) returned from RPC_HDR->rpc_result @ kernel_gsp.c:6112",
     {"what": "Invalid argument to call", "status": "NV_ERR_INVALID_ARGUMENT", "code": "0x0000001F", "where": "kernel_gsp.c:6112"}),
    # R5b
    ("modprobe", "_LINE",  # bottlerocket-os/bottlerocket#4218 (fixtures/artefacts/modprobe/bottlerocket4218_driverdog_lockdown_not_permitted_mixed_console.txt)
     "[    5.881035] driverdog[2088]: modprobe: ERROR: could not insert 'nvidia_uvm': Operation not permitted",
     {"mod": "nvidia_uvm", "why": "Operation not permitted", "nf": None, "dir": None, "byname": None, "mi": None, "ko": None,
      "kwhy": None, "trace": None}),
    # wild sweep 24 (session 19): open-gpu-kernel-modules#1118's RPC history row, nvidia-container-toolkit#632's device error
    ("kernel_log_nvrm", "_RPC_ROW", "NVRM:      0    76   GSP_RM_CONTROL              4127 0x0000000020803039 "
     "0x00000000000000b0 0x00065013160bb6e0 0x0000000000000000          y",
     {"idx": "0", "fn": "76", "name": "GSP_RM_CONTROL", "seq": "4127", "poll": "          y"}),
    ("kernel_log_nvrm", "_RPC_HEAD", "NVRM: GPU3 RPC history (CPU -> GSP):", {"event": None}),
    ("nvidia_container_cli", "_UNKNOWN_DEVICE", "0000:3b:00.0: unknown device", {"dev": "0000:3b:00.0", "old": None}),
    ("kernel_log", "_INJECTED", '# logger -p daemon.err "', (1, 24)),  # NVIDIA/NVSentinel#288, the text before its made-up line
    ("nvidia_container_cli", "_LDCONFIG", "process /sbin/ldconfig terminated with signal 9",  # k8s-device-plugin#1400
     {"prog": "/sbin/ldconfig", "sig": "9", "rc": None}),
    # bench/redos.py at 120,000 characters, session 19 (the lead): a lazy last column before the line's end
    ("python_os_error", "OS_ERROR", "OSError: [Errno 28] No space left on device",  # NVIDIA/Megatron-LM#878 (fixtures/artefacts/python_os_error)
     {"exc": "OSError", "num": "28", "text": "No space left on device", "q": None, "file": None}),
    ("python_os_error", "RUST_OS_ERROR",  # huggingface/text-generation-inference#756 (fixtures/artefacts/python_os_error)
     'safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 30, kind: ReadOnlyFilesystem, message: "Read-only file system" })',
     {"num": "30", "text": "Read-only file system"}),
    ("python_os_error", "_RAISED", "safetensors_rust.SafetensorError: Error while serializing: IoError(",  # the same line's head
     {"exc": "safetensors_rust.SafetensorError"}),
    ("torch_serialization", "_WRITER",  # SWivid/F5-TTS#458 (fixtures/artefacts/torch_serialization)
     "[rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data.pkl: file write failed",
     {"file": "file ", "dir": None, "record": "data.pkl", "detail": "file write failed"}),
    ("torch_serialization", "_READER",  # fixtures/artefacts/torch_serialization/reader_failed_finding_central_directory.txt
     "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory",
     {"step": "reading zip archive", "detail": "failed finding central directory"}),
    ("kernel_log_gds", "_PIN", "nvidia-fs:nvfs_pin_gpu_pages:1292 Error ret -22 invoking nvidia_p2p_get_pages",  # NVIDIA/gds-nvidia-fs#14
     {"func": "nvfs_pin_gpu_pages", "err": "-22"}),
    ("torch_dataloader", "_TIMEOUT", "RuntimeError: DataLoader timed out after 120 seconds", {"s": "120"}),  # fixtures/artefacts/torch_dataloader
    ("cufile_log", "_LINE",  # NVIDIA/gds-nvidia-fs#4 (fixtures/artefacts/cufile_log)
     " 11-10-2023 15:49:51:316 [pid=1502618 tid=1503329] ERROR  0:1072 Inc-bar-usage failed: size 524288000 remaining bytes 281018368",
     {"level": "ERROR", "where": "0:1072", "msg": "Inc-bar-usage failed: size 524288000 remaining bytes 281018368"}),
    ("torch_serialization", "_SAFETENSORS",  # huggingface/diffusers#5520 (fixtures/artefacts/torch_serialization)
     "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge", {"err": "HeaderTooLarge", "detail": ""}),
    ("torch_serialization", "_POS", "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 155797120 vs 155797008",
     (31, 95)),  # fixtures/artefacts/torch_serialization/writer_failed_then_unexpected_pos.txt
    ("ucx_log", "_SHMGET",  # open-mpi/ompi#6084 (fixtures/artefacts/ucx_log/ompi6084_shmget_hugetlb_eperm.log)
     "[1542291969.934067] [nid02068:7234 :0]            sys.c:619  UCX  ERROR shmget(size=2097152 flags=0xfb0) for "
     "mm_recv_desc failed: Operation not permitted, please check shared memory limits by 'ipcs -l'",
     {"size": "2097152", "flags": "fb0", "purpose": "mm_recv_desc", "err": "Operation not permitted",
      "detail": "please check shared memory limits by 'ipcs -l'"}),
    ("xla_nccl", "_OPERATION",  # NVIDIA/JAX-Toolbox#740 (fixtures/artefacts/xla_nccl/jaxtoolbox740_ibv_set_ece_einval.log)
     "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/runtime/nccl_api.cc:512: NCCL operation "
     "ncclGroupEnd() failed: unhandled system error (run with NCCL_DEBUG=INFO for details).",
     {"op": "ncclGroupEnd", "result": "unhandled system error (run with NCCL_DEBUG=INFO for details)"}),
    ("launcher_nccl_env", "_CONTINUED_REST", "NCCL_DEBUG=INFO \\", (15, 16)),  # a public README's run step (code search id 34437177692)
    # session 20 (L1): NCCL's plugin_open.cc format filled in; NVSentinel's condition verbatim (nvsentinel-capi-remediator);
    # DCGM 4.6's dcgmi/Diag.cpp format filled in; harvest 2705's explanation
    ("nccl_log", "_ANY_PLUGIN_NOT_FOUND", "PROFILER/Plugin: Could not find: libnccl-profiler-myprof.so",
     {"type": "PROFILER", "names": " libnccl-profiler-myprof.so"}),
    ("nvsentinel_event", "_JSON_MESSAGE_OPEN", '{"checkName":"SysLogsXIDError","message":"MESSAGE=NVRM: Xid (PCI:0000:ef:00): 79',
     {"esc": ""}),
    ("nvsentinel_event", "_JSON_NODE_ANY", '"processingStrategy":1,"nodeName":"kwok-node-0","x":1', {"node": "kwok-node-0"}),
    ("dcgmi_diag", "_INCOMPLETE", "Error: Unable to complete diagnostic for group 0. Return: (-30) : DCGM GPU Diagnostic returned an error",
     {"msg": "Error: Unable to complete diagnostic for group 0. Return: (-30) : DCGM GPU Diagnostic returned an error"}),
    ("ticket_prose", "_EXPLAIN_LIST_INTRO", "alone does not necessarily identify the root cause. The cause may be ", (62, 69)),
    ("ticket_prose", "_EXPLAIN_ITEM", "- an application error, ", {"item": "an application error, "}),
    # ticket_prose: a reporter's markdown table (sgl-project/sglang#22734's delimiter cell with an alignment colon) and
    # a line labelled before a change (open-edge-platform/geti#5958)
    ("ticket_prose", "_DELIM_CELL", "------------------:", (0, 19)),
    ("ticket_prose", "_LABELLED", "Before: 3 it /s, data_time 0.217", {"label": "Before", "values": "3 it /s, data_time 0.217"}),
    # round B1: prose_codes (NVIDIA/NVSentinel#1888's sentence; issue 11's ticket; Azure/azurehpc#714's; the forum's t/2574)
    ("prose_codes", "_CODE", "Our fleet has **1,175 XID 154 events in 30 days and zero of them produced `CONTACT_SUPPORT`**",
     {"s": None, "codes": "154"}),
    ("prose_codes", "_CODE", "the Xid codes 119 and 120 are added to the `azure_gpu_xid` test.", {"s": None, "codes": "119 and 120"}),
    ("prose_codes", "_DEFINED", " generally means that there was some kind of timeout problem", (0, 16)),
    ("prose_codes", "_PLACED", " on GPU 0000:3b:00.0 right before the job dies.", (0, 7)),
    ("prose_codes", "_NEG_AFTER", " was not seen again", (0, 13)),
    ("prose_codes", "_BUS", "dmesg shows Xid 79 on GPU 0000:3b:00.0 right before the job dies.", {"bus": "0000:3b:00.0"}),
    ("prose_codes", "_NODE", "we keep getting Xid 48 / Xid 63 on node gpu-12", {"node": "gpu-12"}),
    ("prose_codes", "_SENTENCE_END", "I am not seeing it fail.** Our fleet has", (24, 27)),
    # wild sweep 34: simpleP2P (aikitoria/open-gpu-kernel-modules#8, tinygrad/open-gpu-kernel-modules#22), nvbandwidth#34; nvbandwidth v0.4 memcpy.cpp:76-77's form filled in
    ("simple_p2p", "_VERIFY", "Verification error @ element 0: val = nan, ref = 0.000000", {"first": "0: val = nan, ref = 0.000000"}),
    ("simple_p2p", "_PEER", "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes", None),
    ("simple_p2p", "_KERNEL", "Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...", {"on": "1", "src": "0"}),
    ("simple_p2p", "_START", "[./simpleP2P] - Starting...", None),
    # wild sweep 98: CUDA's deviceQuery and vectorAdd (tensorflow/tensorflow#990, canonical/lxd#5618, NVIDIA/gpu-operator#1900 and #346)
    ("cuda_samples", "_DQ_START", "./deviceQuery Starting...", None),
    ("cuda_samples", "_DQ_COUNT_FAILED", "cudaGetDeviceCount returned 35", {"code": "35"}),
    ("cuda_samples", "_DQ_ARROW", "-> CUDA driver version is insufficient for CUDA runtime version",
     {"text": "CUDA driver version is insufficient for CUDA runtime version"}),
    ("cuda_samples", "_DQ_DEVICE", 'Device 0: "GeForce GT 730"', {"idx": "0", "name": "GeForce GT 730"}),
    ("cuda_samples", "_DQ_VERSIONS", "  CUDA Driver Version / Runtime Version          9.1 / 9.0", {"drv": "9.1", "rt": "9.0"}),
    ("cuda_samples", "_VA_START", "cuda-validation [Vector addition of 50000 elements]", {"n": "50000"}),
    ("cuda_samples", "_VA_FAILED", "cuda-validation Failed to allocate device vector A (error code no CUDA-capable device is detected)!",
     {"step": "allocate device vector A", "text": "no CUDA-capable device is detected"}),
    ("cuda_samples", "_VA_STEP", "CUDA kernel launch with 196 blocks of 256 threads", None),
    ("nvbandwidth", "_PATTERN", " Invalid value when checking the pattern at 0x70a640000000", {"addr": "0x70a640000000"}),
    ("nvbandwidth", "_PATTERN", " Invalid value when checking the pattern at <0x7f3a40200010>", {"addr": "0x7f3a40200010"}),
    ("nvbandwidth", "_OFFSET", " Current offset [ 16/33554432]", {"a": None, "b": "16"}),
    ("p2p_bandwidth_latency", "_HEAD", "Device: 0, NVIDIA GeForce RTX 5090, pciBusID: 16, pciDeviceID: 0, pciDomainID:0", None),
    ("p2p_bandwidth_latency", "_HEAD", "Device=0 CAN Access Peer Device=1", None),
    # wild sweep 34: CUDA bandwidthTest (mpicbg-scicomp/gearshifft#82, usadellab/Helixer#22, bandwidthTest.cu's --csv printf)
    ("bandwidth_test", "_DEVICE", " Device 0: Tesla P100-PCIE-16GB", {"idx": "0", "name": "Tesla P100-PCIE-16GB"}),
    ("bandwidth_test", "_SECTION", " Host to Device Bandwidth, 1 Device(s)", {"kind": "Host to Device", "ndev": "1"}),
    ("bandwidth_test", "_HEADER", "   Transfer Size (Bytes)        Bandwidth(MB/s)", {"unit": "MB"}),
    ("bandwidth_test", "_ROW", "   100000000\t\t\t13.1", {"size": "100000000", "bw": "13.1"}),
    ("bandwidth_test", "_CSV", "bandwidthTest-H2D-Pinned, Bandwidth = 24.9 GB/s, Time = 0.00135 s, Size = 33554432 bytes, NumDevsUsed = 1",
     {"kind": "H2D", "mem": "Pinned", "bw": "24.9", "size": "33554432", "ndev": "1"}),
    # wild sweep 39: Apptainer / Singularity --nv (sylabs/singularity#776, apptainer/apptainer#1314,
    # apptainer/singularity#1548, apptainer launcher_linux.go's formats)
    ("apptainer_gpu", "_NOT_FOUND", "WARNING: Could not find any nv files on this host!",
     {"bits": None, "platform": "nv", "what": "files"}),
    ("apptainer_gpu", "_WRITABLE", "WARNING [U=0,P=104]        setGPUBinds()                 nv files may not be bound with --writable",
     {"platform": "nv", "what": "files"}),
    ("apptainer_gpu", "_LOOKUP", "WARNING: While finding nv bind points: could not read nvliblist.conf",
     {"platform": "nv", "err": "could not read nvliblist.conf"}),
    ("apptainer_gpu", "_BIND_POINT", "WARNING: Skipping user bind, non existent bind point (file) in container: '/bin/nvidia-smi'",
     {"dest": "/bin/nvidia-smi"}),
    ("apptainer_gpu", "_CONTAIN", "WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available in container.", (9, 119)),
    ("apptainer_gpu", "_DETECT", "INFO:    Could not find any NVIDIA binaries on this host!", (9, 57)),
    # master_linux.go "container creation failed: %s" in sylog's FATAL form (apptainer/apptainer#1208), the error of
    # PGScatalog/pgsc_calc#332
    ("apptainer_gpu", "_CREATION", "FATAL:   container creation failed: image driver mount failure: image driver squashfuse_ll "
     "instance exited with error: squashfuse_ll exited: fusermount: mountpoint /dev/fuse is not a directory or a regular file",
     {"err": "image driver mount failure: image driver squashfuse_ll instance exited with error: squashfuse_ll exited: "
             "fusermount: mountpoint /dev/fuse is not a directory or a regular file"}),
]


def _long_lines(line: str, chars: int = 120_000) -> list[str]:
    """bench/redos.py's variants: repeated, repeated with a blank, a run of blanks in the middle,
    the second half repeated, repeated without its last character; and a run of blanks in the middle
    or before the last word with the line's end kept after it (a lazy last column before ``\\s*$``
    scans such a run once per step into it: slurm_scheduler _N_ROW took 53 s)."""
    h, n = len(line) // 2, chars // max(1, len(line) - 1) + 1
    w, run = line.rstrip().rfind(" ") + 1 or h, " " * (chars - len(line))
    return [v[:chars] for v in (line * n, (line + " ") * n, line[:h] + " " * chars + line[h:],
                                line[:h] + line[h:] * n, line[:-1] * n, line[:h] + run + line[h:], line[:w] + run + line[w:])]


@pytest.mark.parametrize("module,name,line,gives", CASES, ids=[f"{m}.{n}" for m, n, *_ in CASES])
def test_pattern_reads_its_line_and_is_linear_on_long_ones(module, name, line, gives):
    pat = getattr(importlib.import_module(f"stethoscope.facts.parsers.{module}"), name)
    m = pat.search(line)
    assert m is not None
    assert (m.groupdict() if isinstance(gives, dict) else m.span()) == (gives or (0, len(line)))
    for long in (*_long_lines(line), line[:len(line) // 3] * 3000):  # the head repeated, its end cut off
        with fuzzing.time_limit(0.5):  # each took over 1 s (most over 3 s) before they were bounded
            pat.search(long)

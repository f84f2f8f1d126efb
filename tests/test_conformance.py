"""Invariants over everything shipped: rules, their tests, parsers, vocabulary."""
from pathlib import Path

import pytest
import yaml

from stethoscope.engine.knowledge import load_vocabulary
from stethoscope.engine.ruleengine.loader import rules_root
from stethoscope.facts.model import FACT_KINDS
from stethoscope.facts.parsers import cpp_runtime_abort
from stethoscope.facts.parsers import launcher_exit
from stethoscope.facts.parsers import mpich_abort
from stethoscope.facts.parsers import python_exception_ignored
from stethoscope.facts.parsers import training_input_wait
from stethoscope.facts.parsers import vllm_process_death
from stethoscope.facts.parsers.subprocess_error import SHELL_REPORT
from stethoscope.facts.registry import load_parsers

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = sorted((ROOT / "rules").rglob("*.yaml"))


def test_shipped_rules_load_without_error(ruleset):
    assert len(ruleset.rules) == len(RULE_FILES)
    assert len({r.id for r in ruleset.rules}) == len(ruleset.rules)


def test_installed_rules_are_the_repository_rules():
    assert sorted(p.name for p in rules_root().rglob("*.yaml")) == sorted(p.name for p in RULE_FILES)


@pytest.mark.parametrize("path", RULE_FILES, ids=[p.stem for p in RULE_FILES])
def test_every_rule_has_a_test_file_with_firing_and_silent_cases(path):
    domain = path.parent.name
    test = ROOT / "tests" / "rules" / domain / f"{path.stem}.test.yaml"
    assert test.exists(), f"missing {test.relative_to(ROOT)}"
    spec = yaml.safe_load(test.read_text())
    assert spec["rule"] == path.stem
    rule = yaml.safe_load(path.read_text())
    if "finding" in rule["then"]:
        assert any(c["expect"] for c in spec["cases"]), "needs a case that fires"
        assert any(c["expect"] == [] for c in spec["cases"]), "needs a case that must not fire"
    else:  # a rule that derives facts: one case derives, one does not
        assert any(c.get("derived") for c in spec["cases"]), "needs a case that derives"
        assert any(c.get("derived") == [] for c in spec["cases"]), "needs a case that derives nothing"


def test_every_rule_cites_a_vocabulary_cause_and_component(ruleset):
    vocab = load_vocabulary()
    for r in ruleset.rules:
        spec = r.rule.then.finding
        if spec is not None:
            # a finding may take these from a bound fact ('$entry.cause'); the loader checks the field
            assert (spec.cause or "").startswith("$") or (spec.cause or r.rule.cause) in vocab.causes
            assert (spec.component or "").startswith("$") or (spec.component or r.rule.component) in vocab.components
            assert (spec.severity or "").startswith("$") or (spec.severity or r.rule.severity) in vocab.severities


def test_taxonomy_ids_are_unique_and_described():
    text = (ROOT / "knowledge" / "taxonomy.yaml").read_text()
    data = yaml.safe_load(text)
    for section in ("components", "causes"):
        keys = [ln.split(":", 1)[0].strip() for ln in text.splitlines()
                if ln.startswith("  ") and ":" in ln and not ln.lstrip().startswith("#")]  # comments repeat
        assert len(keys) == len(set(keys)), "duplicate id in taxonomy.yaml"
        assert all(isinstance(v, str) and v for v in data[section].values())


@pytest.mark.parametrize("mod", load_parsers(), ids=[m.KIND for m in load_parsers()])
def test_every_parser_has_fixtures_and_a_documented_sample(mod):
    folder = ROOT / "fixtures" / "artefacts" / mod.KIND
    assert (folder / "README.md").exists(), f"fixtures/artefacts/{mod.KIND}/README.md"
    assert [p for p in folder.iterdir() if p.name != "README.md"], "no fixture files"
    doc = mod.__doc__ or ""
    assert "Sample" in doc or "sample" in doc, "module docstring shows sample lines"


def test_parsers_do_not_claim_other_kinds_real_files():
    """detect() of each parser is false on the real files of the other kinds
    (mixed-kind fixtures, whose names say so, excepted)."""
    parsers = load_parsers()
    for folder in (ROOT / "fixtures" / "artefacts").iterdir():
        for f in folder.iterdir():
            if f.name == "README.md" or "mixed" in f.name or "session" in f.name or "paste" in f.name:
                continue
            head = f.read_text(errors="replace")[:65536]
            claimed = {m.KIND for m in parsers if m.detect(head)}
            allowed = {folder.name}
            if folder.name == "torch_log":  # PyTorch logs carry NCCL's own lines and CUDA errors
                allowed |= {"nccl_log", "cuda_app"}
            if folder.name == "torch_elastic":  # torchrun's agent lines sit in the PyTorch log
                allowed.add("torch_log")
            if folder.name == "torch_log":  # and the other way: the agent's signal and store lines in a job's log
                allowed.add("torch_elastic")
            if folder.name in ("nccl_log", "nccl_nvls"):  # NCCL's WARN lines quote CUDA failures ("Cuda failure 'invalid argument'")
                allowed.add("cuda_app")
            if folder.name == "cuda_app":
                allowed |= {"torch_log"}
                if "level=" in head and "source=" in head:  # CUDA errors as ollama's own log lines carry them
                    allowed.add("ollama_log")
            if folder.name == "ngc_entrypoint" and "Return status: " in head:  # Triton's start after the banner: Torch-TensorRT's
                allowed.add("cuda_app")  # cudaGetDeviceCount() status, a CUDA error (triton-inference-server/server#5858)
            if folder.name == "launcher_exit":  # TGI's launcher logs its shard's stderr, a PyTorch process's errors above
                allowed |= {"torch_elastic", "torch_log", "cuda_app"}  # its own lines (the c10d store's bind: TGI#1156; an OOM: #866)
            if folder.name == "training_throughput":  # torchtitan's step lines are PyTorch log lines ([rank0]:)
                allowed |= {"torch_log"}
            if folder.name in ("torch_serialization", "torch_dataloader"):  # their errors end a rank's traceback ([rank0]:)
                allowed |= {"torch_log"}  # (F5-TTS#458: torch.save's failed write under torchrun)
            if folder.name == "python_os_error" and "[rank" in head:  # a rank's traceback behind torchrun's label
                allowed |= {"torch_log"}  # (NVIDIA-NeMo/Automodel#3686: "[rank8]: FileExistsError: [Errno 17] ...")
            if folder.name == "torch_flight_recorder":  # its stack frames name torch/distributed/ files
                allowed |= {"torch_log"}
            if folder.name == "proc_pid_stack":  # a stuck task's stack is pasted under the ps listing that shows it in D
                allowed.add("ps_listing")  # (microsoft/DLWorkspace#484)
            if folder.name == "python_stack_dump":  # py-spy's frames name torch/distributed/ files too (accelerate#3104)
                allowed |= {"torch_log"}
            if folder.name in ("torch_log", "nccl_log", "nccl_tests", "nccl_channels", "nccl_net_oob", "nccl_nvls", "nccl_topo_print",
                               "vllm_pynccl", "nccl_mnnvl") and "NCCL INFO" in head:
                # parsers of single NCCL line families (rings/trees, OOB address, NVLS, MNNVL, the topology print) read the same logs
                allowed |= {"nccl_log", "torch_log", "nccl_tests", "nccl_channels", "nccl_net_oob", "nccl_nvls", "nccl_topo_print",
                            "nccl_mnnvl"}
            if folder.name == "nccl_log" and "NCCL error" in head:  # NCCL's messages beside PyTorch's error that cites them
                allowed.add("torch_log")  # (blog.gitcode.com's summary: "NCCL error: unhandled system error", wild sweep rR5)
            if folder.name == "nvml_init":  # an NVML failure as dcgm-exporter's log shows it, the exporter's lines around it
                allowed.add("dcgm_exporter_log")
                allowed.add("k8s_device_plugin")  # and as the device plugin's exit names it ("error starting plugins: ... nvml init failed")
                allowed.add("slurm_log")  # and as slurmstepd's error line prints it ("slurmstepd: error: NVML: Failed to get usage(15): ...")
            if folder.name == "mlx5_core_log":  # the ConnectX driver's lines are kernel log lines, dmesg-stamped
                allowed.add("kernel_log")
            if folder.name == "wsl_dxg":  # WSL2's dxgkrnl lines are kernel log lines too (microsoft/WSL#41062's dmesg)
                allowed.add("kernel_log")
            if folder.name == "mig_mode":  # mig-manager's reconfigure script takes the GPU operator's components off the node
                # with the driver manager's own steps ("Getting current value of the 'nvidia.com/gpu.deploy.<component>' node label")
                allowed.add("k8s_driver_manager")
            if folder.name == "gpud_states":  # an Xid state's reason is GPUd's own Xid message (gpud_log)
                allowed.add("gpud")
            if folder.name in ("cuda_app", "cuda_samples"):  # a CUDA sample's failure line is a CUDA error (cuda_app's) in the sample's
                allowed |= {"cuda_app", "cuda_samples"}      # output (cuda_samples': cubecos#312's vectorAdd, wild sweep 98)
            if folder.name in ("compute_sanitizer", "xla_ptxas", "hpc_cuda_check"):  # with the CUDA error lines the program printed after
                allowed.add("cuda_app")
            if folder.name == "verbs_completion" and "failed with error" in head:  # a program's own line for the post its
                allowed.add("verbs_perror")  # failed connection refused next (ydb-platform/nbs#2690: 'ibv_post_recv failed with error 12')
            if folder.name in ("deepep_log", "gdrcopy_log"):  # with the CUDA error the trap or the test printed after
                allowed.add("cuda_app")  # (DeepEP#274's EPException 'unspecified launch failure'; gdrcopy#164's ASSERTDRV line)
            if folder.name == "deepep_log" and "[rank" in head:  # DeepEP's check raised through the rank's traceback
                allowed.add("torch_log")  # (DeepEP#392's "[rank0]:   File .../deep_ep/buffer.py", line 594, ...")
            if folder.name == "ucx_cuda_call":  # UCX's own report of the signal that killed the process after the failed call
                allowed.add("subprocess_error")  # ("Caught signal 11 (Segmentation fault: ...)", ucs/debug: rapidsai/ucx-py#102)
            if folder.name == "torch_fr_trace":  # the analyser quotes the collective's Python stack ("all_reduce at .../distributed_c10d.py:2696")
                allowed.add("torch_log")
            if folder.name == "megatron_rerun":  # a verdict quotes the check that failed ("found NaN in local grad norm ...")
                allowed.add("training_throughput")
            if folder.name == "k8s_device_plugin":  # the kubelet's admission refusal as a pod's event row (kubectl describe)
                allowed.add("kubectl_pods")
            if folder.name == "nvidia_container_cli":  # enroot start's own line after its NVIDIA hook's error (NVIDIA/enroot#128:
                allowed.add("enroot_helper")          # "[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1")
            if folder.name == "enroot_helper":  # and that hook's tool's error before enroot's line (nvidia-container-cli's)
                allowed.add("nvidia_container_cli")
            if folder.name == "kubectl_pods":  # a container's last state quotes the runtime's error: the NVIDIA hook's
                allowed.add("nvidia_container_cli")  # (gpu-operator#898's "Message: ... nvidia-container-cli: initialization error")
            if folder.name == "launcher_nccl_env" and "[c10d]" in head:  # the launch, then the job's own c10d warning
                allowed.add("torch_log")  # (vllm#8978: torchrun's "[W1002 ...socket.cpp:697] [c10d] The client socket ...")
            if folder.name == "gdrcopy_log":  # UCX's pin failure with gdb's stack of the call under it (openucx/ucx#6382)
                allowed.add("gdb_backtrace")
            if "(gdb) " in head:  # a gdb session: its backtrace (bt, where) is gdb_backtrace's
                allowed.add("gdb_backtrace")
            if folder.name == "nvidia_proc_gpu_information":  # nvidia-smi's failure pasted before the GPU's information file
                allowed.add("nvml_init")  # (kata-containers/runtime#2546: "Unable to determine the device handle for GPU ...")
            if folder.name == "dcgm_log" and "PluginLib" in head:  # nvvs's plugin loader quotes dlerror()'s text
                allowed.add("dynamic_linker")  # ("./libDiagnostic.so: undefined symbol: ShutdownPlugin", NVIDIA/DCGM#120)
            if folder.name == "cpp_runtime_abort":  # PyTorch's own lines around the abort (Megatron-LM#1874's
                allowed.add("torch_log")             # "[rank0]:[W1019 ...] Warning: ..." and torchrun's "failed (exitcode: -6)")
            # a paste often starts with the command that made it ("$ docker run ...", "torchrun ...")
            allowed.add("command_line")
            # and the NCCL settings it launched with ("export NCCL_X=V", "NCCL_X=V cmd", "mpirun -x NCCL_X=V"), and a
            # vLLM/SGLang job's own line naming the NCCL it loaded ("vLLM is using nccl==2.20.5")
            allowed |= {"launcher_nccl_env", "vllm_pynccl"}
            # and a log often ends with the shell's report of its process's death ("Illegal instruction (core dumped)")
            if SHELL_REPORT.search(head):
                allowed.add("subprocess_error")
            # or with the glog/absl fatal check that aborted it ("F1206 ... parallel.cpp:156] Check failed: ..."): glog_check
            # reads every such check; where it is of a CUDA or NCCL result, the kind's own reader reads the error it names
            # (the check aborts the process: the report of its SIGABRT that follows, Open MPI's signal block, is subprocess_error's)
            if "Check failed: " in head:
                allowed |= {"glog_check", "subprocess_error"}
            # or with libstdc++'s abort on an exception nobody caught ("terminate called after throwing an instance of
            # 'EPException'" after DeepEP's own error, deepseek-ai/DeepEP#274): cpp_runtime_abort reads it wherever it is
            if cpp_runtime_abort.detect(head):
                allowed.add("cpp_runtime_abort")
            # or with mpirun's boxes on the rank that exited ("Primary job  terminated normally, but 1 process returned ...")
            if launcher_exit.detect(head):
                allowed.add("launcher_exit")
            # or with an MPICH process's abort after its netmod's error (openucx/ucx#9610: UCX's "no usable transports", then
            # "Abort(1008326287): Fatal error in internal_Init_thread: ..." and MPICH's error stack)
            if mpich_abort.detect(head):
                allowed.add("mpich_abort")
            # or with srun's report of the tasks that exited ("srun: error: <host>: tasks 2-7: Exited with exit code 1",
            # ParlAI#3084's job stderr after the rank's RuntimeError)
            if folder.name == "torch_log" and "srun: error: " in head:
                allowed.add("slurm_log")
            # or with Slurm's cancellation of the job step the program ran in (vllm-project/vllm#26028: vLLM under srun
            # still waiting for its placement group, "slurmstepd: error: *** JOB 1112356 ON ... CANCELLED AT ...")
            if folder.name == "ray_gpu_request" and "slurmstepd: error: " in head:
                allowed.add("slurm_log")
            # and a crash often follows the trainer's own per-iteration lines (deepspeech.pytorch#172's
            # "Epoch: [1][621/1422]    Time 0.617 (0.398)      Data 0.021 (0.014)" before the shell's segfault report)
            if training_input_wait.wait_in_head(head):
                allowed.add("training_throughput")
            # or with CPython's report of an exception a finaliser raised while the program tore down after its failure
            # (our H200 capture: cupy's "Exception ignored in: 'cupy.cuda.function.Module.__dealloc__'" after the illegal address)
            if python_exception_ignored.detect(head):
                allowed.add("python_exception_ignored")
            # or with vLLM's line that the process whose traceback it is died or did not start (vllm-project/vllm#26898:
            # "EngineCore failed to start." above the engine core's own traceback)
            if vllm_process_death.detect(head):
                allowed.add("vllm_process_death")
            assert claimed <= allowed | ({"kernel_log"} if "NVRM" in head else set()), f"{f.relative_to(ROOT)}: {claimed}"


def test_fact_kinds_have_scalar_fields_only():
    """Scalar fields, which rules test; or a summary's columns (tuples: an nccl_test_table's rows),
    which the rule engine never sees (facts/model.view_value) and no rule may name (the loader)."""
    for kind, cls in FACT_KINDS.items():
        for name, field in cls.model_fields.items():
            if name == "evidence":
                continue
            assert field.annotation in (str, int, float, bool) or str(field.annotation).replace("typing.", "").startswith(
                ("int |", "str |", "float |", "bool |", "Literal", "Optional", "tuple[")
            ), f"{kind}.{name}: {field.annotation}"


def test_bundle_copies_of_real_captures_stay_identical():
    """The h200 bundles hold copies of real captures (fixtures/observations) that also serve the
    parser tests (fixtures/artefacts)."""
    import hashlib

    def digest(p: Path) -> str:
        return hashlib.sha256(p.read_bytes()).hexdigest()

    artefacts = {digest(p) for d in ("artefacts", "observations") for p in (ROOT / "fixtures" / d).rglob("*") if p.is_file()}
    bundles = [p for p in (ROOT / "fixtures" / "bundles").glob("h200-*/bundle/**/*") if p.is_file()]
    assert bundles
    unmatched = [p.relative_to(ROOT) for p in bundles if digest(p) not in artefacts]
    assert not unmatched, f"bundle files that are not byte-identical to a parser fixture or a capture: {unmatched}"


def test_absences_can_be_ordered_before_what_they_guard(ruleset):
    """durable never takes a firing back, so the kinds named under ``none:`` must be
    assertable before the kinds they guard: the shipped rules may not form a cycle."""
    from stethoscope.engine.ruleengine.session import _none_first

    if any(r.none for r in ruleset.rules):
        assert _none_first(ruleset.rules), "a none:/all: cycle between fact kinds"

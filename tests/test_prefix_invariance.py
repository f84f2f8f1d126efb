"""Issue 11, property: the diagnosis does not depend on the wrapper a line arrives under.

Real incidents arrive pasted: kernel lines under a syslog or journald prefix, ``dmesg -T``'s
clock, ``talosctl dmesg``'s framing; NCCL and PyTorch lines under ``kubectl logs``, docker
compose, mpirun, torchrun or srun labels; any of them quoted, indented, fenced, with CRLF line
ends or a terminal's colours. Each sample below is real fixture text (its lines as the fixture
holds them; a kernel log's own stamp taken off, as ``dmesg -t`` / ``journalctl -o cat`` print
it). Every line of it is wrapped in one form at a time, the prefix's variable parts (host,
time, rank, pod, service) drawn by hypothesis, and the findings (cause, component, entity) of
the wrapped file must be those of the plain file, and the file recognised.

Each form's shape is the tool's own (the source that writes it beside it), with a real line
of the form as posted where one is in the fixtures.
"""
from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts"
CASES = ROOT / "fixtures" / "harvest" / "cases"
NODE = "node1"

# --- the samples: real fixture text ----------------------------------------------------------

# a kernel line's own stamp, as the fixtures hold it (the forms below put one back):
# [6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
# [Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp ...
# [  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)
# Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.
# 192.168.11.119: kern: warning: [2026-04-22T21:25:20.505406921Z]: NVRM: Xid (PCI:0000:48:00): 62, 00002740 ...
_OWN_STAMP = re.compile(
    r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: |[\d.]+: kern: *[a-z]+: \[[^\]]+\]: )?(?:\[[^\]]+\] )?"
)


def _bare_kernel(text: str) -> str:
    """The kernel messages of a kernel log, without their stamps (``dmesg -t``); lines of
    other programs (a syslog's wpa_supplicant line) left out."""
    out = []
    for line in text.splitlines():
        if re.match(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ (?!kernel:)", line):
            continue
        out.append(_OWN_STAMP.sub("", line, count=1))
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Sample:
    name: str
    path: Path
    kernel: bool = False

    @property
    def text(self) -> str:
        text = self.path.read_text(encoding="utf-8")
        return _bare_kernel(text) if self.kernel else text


K = ART / "kernel_log"
SAMPLES = [
    # kernel NVRM / Xid / SXid / AER lines
    Sample("xid79_sxid", K / "dmesg_xid79_sxid.log", kernel=True),
    Sample("xid13_154", K / "dmesg_T_xid13_xid154.log", kernel=True),
    Sample("talos_xid62", K / "talos_xid62_sxid.log", kernel=True),
    Sample("nvlink5_xid", K / "dmesg_nvlink5_xid.log", kernel=True),
    Sample("syslog_xid79", K / "syslog_xid79_fell_off_bus.log", kernel=True),
    Sample("aer_fatal", CASES / "104-aer-uncorrected-fatal-cmplto-gpu-root-port" / "dmesg.log", kernel=True),
    Sample("aer_corrected", K / "dmesg_aer_requester_id.log", kernel=True),
    # NCCL WARN / INFO lines
    Sample("nccl_completion", ART / "nccl_log" / "rdma_completion_errors.log"),
    Sample("nccl_socket_closed", ART / "nccl_log" / "socket_closed_by_peer_2.18.log"),
    Sample("nccl_port_error", ART / "nccl_log" / "ib_async_port_error.log"),
    Sample("nccl_error4_vendor81", CASES / "102-ib-error4-vendor81-acs-enabled-gdr" / "nccl.log"),
    # PyTorch error lines
    Sample("torch_nccl_errors", ART / "torch_log" / "nccl_error_forms.log"),
    Sample("torch_cuda_802", CASES / "107-cuda-802-bandwidthtest-fabric-manager-missing" / "torch.log"),
    # nvidia-smi -q sections
    Sample("smi_remapped_rows", CASES / "108-remapped-rows-pending-uncorrectable-4" / "nvidia-smi-q.txt"),
    Sample("smi_fabric_unhealthy", ART / "nvidia_smi_q" / "fragment_fabric_grep_C3_unhealthy.txt"),
    Sample("smi_recovery_reset", ART / "nvidia_smi_q" / "fragment_recovery_action_reset.txt"),
    # a section at column 0, its keys 4 deep: a launcher label's blank must not shift a level
    Sample("smi_fabric_section", CASES / "800-nvidia-smi-q-fabric-insufficient-resources-cliqueid-0" / "nvidia-smi-q.txt"),
]
KERNEL = [s for s in SAMPLES if s.kernel]

# --- the forms -------------------------------------------------------------------------------

Wrap = Callable[[str], str]  # a whole text -> the text as pasted

HOSTS = st.from_regex(r"\A(?:gpu-node-[0-9]{1,3}|node[0-9]{1,2}|h100-[a-z]{2}[0-9])\Z")
MON = st.sampled_from("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())
DAY = st.integers(1, 28)
HMS = st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59)).map(lambda t: "%02d:%02d:%02d" % t)
USEC = st.integers(0, 999999).map(lambda u: "%06d" % u)
NSEC = st.integers(0, 999999999).map(lambda u: "%09d" % u)
DATE = st.tuples(st.integers(2019, 2026), st.integers(1, 12), DAY).map(lambda t: "%04d-%02d-%02d" % t)
UPTIME = st.tuples(st.integers(0, 9999999), USEC).map(lambda t: "%5d.%s" % t)  # util-linux "%5ld.%06ld"
RANK = st.integers(0, 127)


def _lines(prefix: Callable[[str], str]) -> Wrap:
    """The same wrapper on every line (an empty line too, as the tools print it)."""
    def wrap(text: str) -> str:
        return "".join(prefix(ln) + "\n" for ln in text.splitlines())
    return wrap


def _prefixed(prefixes: st.SearchStrategy[str]) -> st.SearchStrategy[Wrap]:
    return prefixes.map(lambda p: _lines(lambda ln: p + ln))


def _tagged(stamps: st.SearchStrategy[str], kernel: bool) -> st.SearchStrategy[Wrap]:
    """A syslog / journald line: a stamp, the host, the tag (``kernel`` for a kernel message,
    a program with its pid otherwise), then the message."""
    tag = st.just("kernel") if kernel else st.builds("{}[{}]".format, st.sampled_from(["python3", "torchrun", "nvidia-smi"]),
                                                     st.integers(2, 4194304))
    return st.tuples(stamps, HOSTS, tag).map(lambda t: _lines(lambda ln: f"{t[0]} {t[1]} {t[2]}: {ln}"))


@dataclass(frozen=True)
class Form:
    name: str
    #: the form as its tool writes it (source), and a real line of it where one is at hand
    shape: str
    wraps: Callable[[bool], st.SearchStrategy[Wrap]]  # (sample is a kernel log) -> wrappers
    kernel_only: bool = False
    #: a label that carries the global rank (PyTorch's ``[rank3]:``): its reader reads the rank
    #: into the finding's entity (facts/lines.label_rank), which the plain line cannot say
    reads_rank: bool = False


def _syslog_day(d: int) -> str:
    return "%2d" % d  # rsyslog's traditional format: "%b %e", the day padded with a blank


FORMS = [
    # --- kernel log stamps (util-linux sys-utils/dmesg.c print_record) ---
    Form("dmesg", '"[%5ld.%06ld] ": [6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, ... (dmesg_xid79_sxid.log)',
         lambda k: _prefixed(UPTIME.map("[{}] ".format)), kernel_only=True),
    Form("dmesg -T", '"[%s] " of ctime "%a %b %e %H:%M:%S %Y": [Mon Apr  6 07:25:23 2026] NVRM: Xid ... (dmesg_T_xid13_xid154.log)',
         lambda k: _prefixed(st.tuples(st.sampled_from("Mon Tue Wed Thu Fri Sat Sun".split()), MON, DAY, HMS, st.integers(2019, 2026))
                             .map(lambda t: "[%s %s %2d %s %d] " % t)), kernel_only=True),
    Form("dmesg -r (kmsg)", '"<%d>[%5ld.%06ld] " (LOG_RAW_FAC_PRI): <4>[  12.345678] NVRM: ... (kernel_log.py)',
         lambda k: _prefixed(st.tuples(st.sampled_from([3, 4, 6]), UPTIME).map(lambda t: "<%d>[%s] " % t)), kernel_only=True),
    Form("/dev/kmsg", '"faclev,seqnum,timestamp,-;message": 3,1042,8462102,-;NVRM: GPU 0000:00:03.0: RmInitAdapter failed!',
         lambda k: _prefixed(st.tuples(st.sampled_from([3, 4, 6]), st.integers(0, 99999), st.integers(0, 10**10))
                             .map(lambda t: "%d,%d,%d,-;" % t)), kernel_only=True),
    Form("dmesg -x", '"%-6s:%-6s: " then the stamp: kern  :warn  : [  123.456789] ...',
         lambda k: _prefixed(st.tuples(st.sampled_from(["err", "warn", "info", "notice"]), UPTIME)
                             .map(lambda t: "%-6s:%-6s: [%s] " % ("kern", t[0], t[1]))), kernel_only=True),
    Form("talosctl dmesg", "192.168.11.119: kern: warning: [2026-04-22T21:25:20.458998481Z]: NVRM: GPU at ... (vllm#40652)",
         lambda k: _prefixed(st.tuples(st.integers(1, 254), st.sampled_from(["warning", "   info", "    err", " notice"]), DATE, HMS, NSEC)
                             .map(lambda t: "192.168.11.%d: kern: %s: [%sT%s.%sZ]: " % t)), kernel_only=True),
    Form("journalctl -o short-monotonic", '"[%5llu.%06llu]" then host and tag (systemd logs-show.c)',
         lambda k: _tagged(UPTIME.map("[{}]".format), k), kernel_only=True),
    # --- syslog and journald (systemd src/shared/logs-show.c output_timestamp_realtime) ---
    Form("syslog", "Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303884] NVRM: Xid ... (syslog_xid79_fell_off_bus.log)",
         lambda k: _tagged(st.tuples(MON, DAY, HMS).map(lambda t: f"{t[0]} {_syslog_day(t[1])} {t[2]}"), k)),
    Form("journalctl (short)", '"%b %d %H:%M:%S": Mar 05 23:33:35 ivosung bumblebeed[1734]: ... (Bumblebee#550)',
         lambda k: _tagged(st.tuples(MON, DAY, HMS).map(lambda t: "%s %02d %s" % t), k)),
    Form("journalctl -o short-precise", '"%b %d %H:%M:%S" ".%06llu": Dec 02 09:56:04.123456 node1 kernel: ...',
         lambda k: _tagged(st.tuples(MON, DAY, HMS, USEC).map(lambda t: "%s %02d %s.%s" % t), k)),
    Form("journalctl -o short-iso", '"%Y-%m-%dT%H:%M:%S%z" (older) / "%+03d:%02d" (systemd >= 254): '
         "2026-11-29T18:32:13+0000 node17 kernel: NVRM: Xid ... (journal_iso_xid45.log)",
         lambda k: _tagged(st.tuples(DATE, HMS, st.sampled_from(["+0000", "+00:00", "-0500", "+08:00"])).map("{0[0]}T{0[1]}{0[2]}".format), k)),
    Form("journalctl -o short-iso-precise", '"%Y-%m-%dT%H:%M:%S.%06llu%z": 2026-11-29T18:32:13.123456+00:00 host kernel: ...',
         lambda k: _tagged(st.tuples(DATE, HMS, USEC, st.sampled_from(["+0000", "+00:00", "+02:00"])).map("{0[0]}T{0[1]}.{0[2]}{0[3]}".format), k)),
    Form("journalctl -o short-unix", '"%10llu.%06llu": 1764441018.123456 host kernel: ...',
         lambda k: _tagged(st.tuples(st.integers(1500000000, 1800000000), USEC).map("{0[0]}.{0[1]}".format), k)),
    Form("rsyslog RFC 3339", "RSYSLOG_FileFormat (Debian >= 12 default): 2026-11-29T18:30:18.123456+00:00 host kernel: ...",
         lambda k: _tagged(st.tuples(DATE, HMS, USEC, st.sampled_from(["+00:00", "+01:00", "-07:00"])).map("{0[0]}T{0[1]}.{0[2]}{0[3]}".format), k)),
    # --- container and launcher labels ---
    Form("kubectl logs --timestamps", "RFC 3339 nano, one blank: 2019-04-30T02:12:41.8443515Z message",
         lambda k: _prefixed(st.tuples(DATE, HMS, NSEC).map("{0[0]}T{0[1]}.{0[2]}Z ".format))),
    Form("kubectl logs --prefix", 'kubectl pkg/cmd/logs/logs.go: fmt.Sprintf("[pod/%s/%s] ", ...)',
         lambda k: _prefixed(st.tuples(st.from_regex(r"\A[a-z][a-z0-9-]{0,20}-[0-9]\Z"), st.sampled_from(["pytorch", "trainer", "nccl-tests"]))
                             .map("[pod/{0[0]}/{0[1]}] ".format))),
    Form("docker compose", 'compose cmd/formatter/logs.go: fmt.Sprintf("%-"+width+"s | ", name), width = longest name + 1',
         lambda k: _prefixed(st.tuples(st.from_regex(r"\A[a-z][a-z0-9]{1,10}-[0-9]\Z"), st.integers(0, 6))
                             .map(lambda t: "%-*s | " % (len(t[0]) + 1 + t[1], t[0])))),
    Form("docker compose, coloured", 'compose colors.go ansiColor: "\\033[36m" + prefix + "\\033[0m"',
         lambda k: _prefixed(st.tuples(st.from_regex(r"\A[a-z][a-z0-9]{1,10}-[0-9]\Z"), st.sampled_from(["36", "33", "32", "35", "34", "36;1"]))
                             .map(lambda t: "\x1b[%sm%-*s | \x1b[0m" % (t[1], len(t[0]) + 1, t[0])))),
    Form("mpirun --tag-output", "[1,0]<stdout>:multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO Using network Socket (aws-k8s-tester#464)",
         lambda k: _prefixed(st.tuples(st.integers(0, 9), RANK, st.sampled_from(["stdout", "stderr"])).map(lambda t: "[%d,%d]<%s>:" % t))),
    Form("mpirun --timestamp-output --tag-output", 'orte iof_base_output.c "%s[%s,%s]<%s>:", ctime without its newline: '
         "Mon Jul  2 19:35:38 2018[1,2704]<stdout>:[1530549338.249536] [clx-hercules-007:20543:0] ... (ucx#2718)",
         lambda k: _prefixed(st.tuples(st.sampled_from("Mon Tue Wed Thu Fri Sat Sun".split()), MON, DAY, HMS, st.integers(2008, 2026),
                                       RANK, st.sampled_from(["stdout", "stderr"])).map(lambda t: "%s %s %2d %s %d[1,%d]<%s>:" % t))),
    Form("torchrun --tee", "[default0]:... (torch.distributed.elastic, role 'default', local rank)",
         lambda k: _prefixed(st.integers(0, 7).map("[default{}]:".format))),
    Form("torch [rankN]:", "[rank1]:E0207 07:54:31.862000 4712 ...common_distributed.py:939] Caught exception:  (helion#1396)",
         lambda k: _prefixed(RANK.map("[rank{}]:".format)), reads_rank=True),
    Form("srun -l", 'slurm src/common/write_labelled_message.c: snprintf(buf, 16, "%0*d: ", label_width, taskid)',
         lambda k: _prefixed(st.tuples(RANK, st.integers(1, 3)).map(lambda t: "%0*d: " % (t[1], t[0])))),
    Form("pdsh", "pdsh -w node[01-03] hostname  ->  node01: node01 (host, colon, blank)",
         lambda k: _prefixed(HOSTS.map("{}: ".format))),
    # --- pasting ---
    Form("indented 4", "a markdown code block", lambda k: st.just(_lines(lambda ln: "    " + ln if ln else ln))),
    Form("> quote", "> [Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, ... (gpud#46)",
         lambda k: st.just(_lines(lambda ln: "> " + ln))),
    Form("``` fence", "```\\n...\\n```", lambda k: st.sampled_from(["```", "```text", "```console", "```shell"])
         .map(lambda f: lambda text: f"{f}\n{text.rstrip(chr(10))}\n```\n")),
    Form("CRLF", "a Windows clipboard", lambda k: st.just(_lines(lambda ln: ln + "\r"))),
    # --- markdown emphasis around each line (NVIDIA/nvidia-docker#1352's refusal pasted in bold) ---
    *(Form(f"markdown {mark}emphasis{mark}", "CommonMark emphasis around a line: "
           '**docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].**',
           lambda k, mark=mark: st.just(_emphasised(mark))) for mark in ("**", "__", "*", "_", "***")),
    # --- terminal colours ---
    Form("dmesg --color", 'dmesg.c: time "\\033[32m" (UL_COLOR_GREEN), subsystem up to ": " "\\033[33m" (BROWN), '
         'err "\\033[31m", reset "\\033[0m"',
         lambda k: st.tuples(UPTIME, st.sampled_from(["", "\x1b[31m", "\x1b[1m", "\x1b[1m\x1b[31m"])).map(
             lambda t: _lines(lambda ln: _dmesg_colour(ln, t[0], t[1]))), kernel_only=True),
    Form("journalctl colours", 'logs-show.c: message in ANSI_HIGHLIGHT_RED "\\x1B[0;1;31m" / ANSI_HIGHLIGHT_YELLOW '
         '"\\x1B[0;1;38;5;185m" (":5:" in systemd >= 256) / ANSI_HIGHLIGHT "\\x1B[0;1;39m", then ANSI_NORMAL "\\x1B[0m"',
         lambda k: st.tuples(st.tuples(MON, DAY, HMS).map(lambda t: "%s %02d %s" % t), HOSTS,
                             st.sampled_from(["\x1b[0;1;31m", "\x1b[0;1;38;5;185m", "\x1b[0;1;38:5:185m", "\x1b[0;1;39m"])).map(
             lambda t: _lines(lambda ln: f"{t[0]} {t[1]} {'kernel' if k else 'python3[4242]'}: {t[2]}{ln}\x1b[0m" if ln else
                              f"{t[0]} {t[1]} {'kernel' if k else 'python3[4242]'}: "))),
    Form("rsyslog-escaped colours", "rsyslog $EscapeControlCharactersOnReceive (default on): ESC written as '#033' "
         "(vllm#1160: '#033[2m#033[33m(raylet)#033[0m ...')",
         lambda k: st.sampled_from(["#033[31m", "#033[0;1;31m", "#033[1m#033[33m"]).map(
             lambda c: _lines(lambda ln: f"{c}{ln}#033[0m" if ln else ln))),
]


def _emphasised(mark: str) -> Wrap:
    """Each line markdown can show in ``mark``'s emphasis wrapped in it: a line with text at both
    ends and a blank inside, holding no mark of its kind where markdown reads one (beside a
    non-alphanumeric: "(*args", "__init__"; "mlx5_0" is plain text). Others as they are."""
    c = re.escape(mark[0])
    inner = re.compile(rf"(?<![A-Za-z0-9]){c}|{c}(?![A-Za-z0-9])")

    def wrap(line: str) -> str:
        if line and line == line.strip() and " " in line and not inner.search(line):
            return mark + line + mark
        return line
    return _lines(wrap)


def _dmesg_colour(line: str, stamp: str, level: str) -> str:
    """``dmesg --color=always``'s line: the stamp green, the subsystem prefix (up to the first
    ": ") brown, the rest in the level's colour (util-linux get_subsys_delimiter, print_record)."""
    out = f"\x1b[32m[{stamp}] \x1b[0m"
    cut = line.find(": ")
    if cut >= 0:
        out += f"\x1b[33m{line[:cut + 2]}\x1b[0m"
        line = line[cut + 2:]
    return out + (f"{level}{line}\x1b[0m" if level else line)


# --- the property ----------------------------------------------------------------------------

def _diagnose(name: str, text: str, ruleset, rank: bool = True):
    """(findings as (cause, component, entity) set, whether the file was left unrecognised) of
    ``text`` alone in a bundle. The entity's label (its fields in words) is left out."""
    with tempfile.TemporaryDirectory(prefix="tmp-prefix-") as tmp:
        p = Path(tmp) / NODE / name
        p.parent.mkdir()
        p.write_text(text, encoding="utf-8", newline="")
        rep = diagnose_bundle(tmp, ruleset, jobs=1)
    found = {(f.cause, f.component, tuple(sorted((k, str(v)) for k, v in f.entity.model_dump().items()
                                                     if v is not None and k != "label" and (rank or k != "rank"))))
             for f in rep.findings}
    return found, bool(rep.coverage.unrecognised)


_PLAIN: dict[str, tuple] = {}


def _plain(sample: Sample, ruleset, rank: bool):
    if (sample.name, rank) not in _PLAIN:
        _PLAIN[sample.name, rank] = _diagnose(sample.path.name, sample.text, ruleset, rank)
    return _PLAIN[sample.name, rank]


def check(form: Form, sample: Sample, wrap: Wrap, ruleset) -> str | None:
    """None when ``sample`` wrapped by ``wrap`` diagnoses as plain; else what differs."""
    found, unrecognised = _plain(sample, ruleset, not form.reads_rank)
    assert found and not unrecognised, (sample.name, "the plain sample itself must say something")
    wrapped = wrap(sample.text)
    w_found, w_unrecognised = _diagnose(sample.path.name, wrapped, ruleset, not form.reads_rank)
    if w_unrecognised:
        return f"{form.name} x {sample.name}: unrecognised"
    if w_found != found:
        return (f"{form.name} x {sample.name}: lost {sorted(found - w_found)}, gained {sorted(w_found - found)}"
                f"\n  first line: {wrapped.splitlines()[0]!r}")
    return None


@pytest.mark.parametrize("form", FORMS, ids=[f.name for f in FORMS])
def test_findings_do_not_depend_on_the_prefix(form, ruleset):
    """Every sample the form applies to, each under its own draw of the prefix's variable parts
    (one example: ~400 diagnoses at ~25 ms keep the file well under a minute)."""

    # (no shrinking: the message names the form and sample, and shrinking reruns diagnoses)
    @settings(max_examples=1, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(data=st.data())
    def run(data):
        problems = [check(form, sample, data.draw(form.wraps(sample.kernel), label=sample.name), ruleset)
                    for sample in (KERNEL if form.kernel_only else SAMPLES)]
        problems = [p for p in problems if p]
        assert not problems, "\n".join(problems)

    run()

"""go_runtime_crash: a Go program's runtime crash pasted alone, and which program it was."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import go_runtime_crash


def _crashes(r):
    return [(f.evidence.line, f.crash, f.message, f.module, f.function, f.in_cgo) for f in r.facts]


def test_exporter_cgo_signal():
    # NVIDIA/dcgm-exporter#412: the crash's frames name go-dcgm's call into libdcgm
    r = parse_fixture(go_runtime_crash, "go_runtime_crash/dcgm_exporter_cgo_sigsegv_dcgmexporter412.txt")
    assert _crashes(r) == [(1, "signal", "SIGSEGV: segmentation violation", "github.com/nvidia/go-dcgm",
                            "github.com/NVIDIA/go-dcgm/pkg/dcgm._Cfunc_dcgmGetCpuHierarchy", True)]


def test_klog_observed_panic_names_the_program_past_its_dependencies():
    # koordinator-sh/koordinator#678: apimachinery's frames come from the module cache; koordlet's own frame names it
    r = parse_fixture(go_runtime_crash, "go_runtime_crash/koordlet_observed_panic_koordinator678.log")
    assert _crashes(r) == [(2, "panic", '"invalid memory address or nil pointer dereference" (runtime error: invalid memory '
                                        'address or nil pointer dereference)', "github.com/koordinator-sh/koordinator",
                            "github.com/koordinator-sh/koordinator/pkg/koordlet/statesinformer.(*statesInformer).updateDevice.func1.1",
                            False)]


def test_structured_klog_panic_line():
    # llm-d-incubation/llm-d-fast-model-actuation#572: apimachinery 0.30+'s structured "Observed a panic"
    lines = ['E0616 20:43:20.582735       1 panic.go:336] "Observed a panic" worker=1 panic="runtime error: invalid memory '
             'address or nil pointer dereference" panicGoValue="\\"invalid memory address or nil pointer dereference\\"" stacktrace=<',
             "\tgoroutine 263 [running]:"]
    assert go_runtime_crash.crash_at(lines, 0) == ("panic", "runtime error: invalid memory address or nil pointer dereference", False)


def test_main_package_frames_name_no_module():
    # NVIDIA/k8s-device-plugin#338's panic (its own reader reads it in a bundle): main.* frames and vendored urfave/cli
    text = ("panic: Unable to load resource managers to manage plugin devices: error building device map: error building "
            "device map from config.resources: error building GPU device map: error getting device handle for index '0': "
            "Unknown Error\n\ngoroutine 1 [running]:\nmain.(*migStrategyNone).GetPlugins(0xc00011c278)\n"
            "        /build/cmd/nvidia-device-plugin/mig-strategy.go:57 +0x1a5\n"
            "github.com/urfave/cli/v2.(*App).RunContext(0xc0001da9c0, {0xca9328?, 0xc00003a050}, {0xc000032060, 0x2, 0x2})\n"
            "        /build/vendor/github.com/urfave/cli/v2/app.go:322 +0x953\n")
    assert [(f.crash, f.module) for f in parse_fixture(go_runtime_crash, text=text).facts] == [("panic", None)]


def test_not_a_crash():
    # a quoted "panic:" with no goroutine stack under it, a stack with no crash line (leptonai/gpud#412's frames), nothing
    assert not go_runtime_crash.detect("the plugin said panic: something odd\nand then restarted\n")
    assert not go_runtime_crash.detect("fmt.Sprintf({0x1b62c2a, 0x34}, {0xc001ad5ea0, 0x3, 0x3})\n"
                                       "    /opt/hostedtoolcache/go/1.23.6/x64/src/fmt/print.go:239 +0x53\n")
    assert not go_runtime_crash.detect("")

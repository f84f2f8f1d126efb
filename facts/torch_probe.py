"""The compute burn and copy-bandwidth probe of ``steth patrol``, for hosts without gpu-burn or
nvbandwidth: a self-contained script (standard library and PyTorch only) that the patrol runs
as a subprocess with the host's own PyTorch interpreter::

    python3 torch_probe.py burn --seconds 20      # bf16 and fp32 matrix products on every GPU
    python3 torch_probe.py copy --mib 1024        # device-to-device, host<->device, peer copies

It imports nothing of gpu-stethoscope, so it runs under any Python that has torch, also one
that has no steth installed. Every result is one line that facts/parsers/steth_probe.py reads::

    steth-probe v1 context torch=2.11.0+cu130 cuda=13.0 nccl=2.28.9 gpus=1
    steth-probe v1 gpu index=0 name="NVIDIA H200" pci_bus_id=0000:00:06.0 sm=132 memory_mib=143155
    steth-probe v1 burn gpu=0 dtype=bf16 n=8192 seconds=10.0 iterations=4920 tflops=540.0 mismatches=0
    steth-probe v1 copy gpu=0 peer=0 direction=d2d bytes=1073741824 repeats=20 seconds=0.0101 gbps=4255.6
    steth-probe v1 error gpu=0 stage=burn_bf16 message="..."   (a stage that raised: its exception's first line)

(lines of the device machine's H200, fixtures/observations/device-h200-patrol). The bf16 rate
is a sustained 10-second rate with every product checked, below a short burst's (KINDS.md's
788 TFLOP/s is the mean of ten products after three warm-ups): the burn is meant to heat the
GPU and compare with its own baseline, not to reach the datasheet.

The burn checks its own arithmetic like gpu-burn does: the same product of the same inputs is
computed again and again and every result is compared element by element with the first one
(same kernel, same inputs: a healthy GPU gives identical bits); ``mismatches`` counts elements
that differ. ``tflops`` counts 2*n^3 operations per product. Copy bandwidth ``gbps`` counts the
bytes read plus the bytes written for device-to-device and peer copies (nvbandwidth's and
STREAM Copy's convention), the bytes moved for host<->device copies (pinned host memory).

Exit status: 0 when every stage ran, 1 when a stage failed (an ``error`` line says which), 69
(EX_UNAVAILABLE) when there is no PyTorch with CUDA here (an ``unavailable`` line says why):
the patrol records the step as skipped, with that reason.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time

PREFIX = "steth-probe v1"
EX_UNAVAILABLE = 69


def emit(what: str, **fields: object) -> None:
    parts = []
    for key, value in fields.items():
        if isinstance(value, float):
            value = f"{value:.4f}" if abs(value) < 10 else f"{value:.1f}"
        text = str(value)
        if not text or any(c in text for c in ' "='):
            text = '"' + text.replace('"', "'") + '"'
        parts.append(f"{key}={text}")
    print(f"{PREFIX} {what} " + " ".join(parts), flush=True)


def _torch():
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install raising anything
        emit("unavailable", reason=f"PyTorch is not importable here: {exc}"[:300])
        sys.exit(EX_UNAVAILABLE)
    if not torch.cuda.is_available():
        emit("unavailable", reason=f"PyTorch {torch.__version__} sees no CUDA GPU")
        sys.exit(EX_UNAVAILABLE)
    return torch


def context(torch) -> list[int]:
    nccl = None
    try:
        v = torch.cuda.nccl.version()
        nccl = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
    except Exception:  # a build without NCCL
        pass
    n = torch.cuda.device_count()
    emit("context", torch=torch.__version__, cuda=torch.version.cuda or "none", nccl=nccl or "none", gpus=n)
    for i in range(n):
        p = torch.cuda.get_device_properties(i)
        emit("gpu", index=i, name=p.name, pci_bus_id=_bus_id(p), sm=p.multi_processor_count,
             memory_mib=p.total_memory // (1 << 20))
    return list(range(n))


def _bus_id(props) -> str:
    """``dddd:bb:dd.0`` from the properties' PCI numbers (integers in PyTorch 2.x)."""
    try:
        return "%04x:%02x:%02x.0" % (props.pci_domain_id, props.pci_bus_id, props.pci_device_id)
    except (AttributeError, TypeError):
        return "unknown"


def _burn_one(torch, gpu: int, dtype_name: str, n: int, seconds: float, out: dict) -> None:
    try:
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype_name]
        dev = torch.device("cuda", gpu)
        torch.cuda.set_device(dev)
        gen = torch.Generator(device=dev).manual_seed(1234 + gpu)
        a = torch.randn(n, n, device=dev, dtype=dtype, generator=gen)
        b = torch.randn(n, n, device=dev, dtype=dtype, generator=gen)
        c = torch.empty(n, n, device=dev, dtype=dtype)
        ref = torch.matmul(a, b)
        mismatches = torch.zeros((), device=dev, dtype=torch.int64)
        for _ in range(3):  # warm-up: clocks up, kernels chosen
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize(dev)
        iterations, start = 0, time.perf_counter()
        while True:
            for _ in range(10):
                torch.matmul(a, b, out=c)
                mismatches += (c != ref).sum()
            iterations += 10
            torch.cuda.synchronize(dev)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        out[gpu] = dict(gpu=gpu, dtype=dtype_name, n=n, seconds=elapsed, iterations=iterations,
                        tflops=2 * n ** 3 * iterations / elapsed / 1e12, mismatches=int(mismatches.item()))
    except Exception as exc:  # a CUDA error: reported as a line, the other GPUs go on
        out[gpu] = dict(error=str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)


def burn(torch, gpus: list[int], seconds: float, n: int, dtypes: list[str]) -> bool:
    """Every GPU at once (one thread each: the heat and power of a real job), one dtype after
    the other, ``seconds`` split between them."""
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32, not TF32
    ok = True
    for dtype_name in dtypes:
        out: dict[int, dict] = {}
        threads = [threading.Thread(target=_burn_one, args=(torch, g, dtype_name, n, seconds / len(dtypes), out)) for g in gpus]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for g in gpus:
            r = out.get(g, {"error": "no result"})
            if "error" in r:
                ok = False
                emit("error", gpu=g, stage=f"burn_{dtype_name}", message=r["error"])
            else:
                emit("burn", **r)
    return ok


def _time_copy(torch, dst, src, repeats: int, dev) -> float:
    for _ in range(3):
        dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize(dev)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        dst.copy_(src, non_blocking=True)
    end.record()
    torch.cuda.synchronize(dev)
    return start.elapsed_time(end) / 1000.0


def copy(torch, gpus: list[int], mib: int, repeats: int) -> bool:
    nbytes = mib << 20
    ok = True
    for g in gpus:
        dev = torch.device("cuda", g)
        torch.cuda.set_device(dev)
        try:
            src = torch.empty(nbytes, dtype=torch.uint8, device=dev).random_(0, 255)
            dst = torch.empty_like(src)
            t = _time_copy(torch, dst, src, repeats, dev)
            emit("copy", gpu=g, peer=g, direction="d2d", bytes=nbytes, repeats=repeats, seconds=t, gbps=2 * nbytes * repeats / t / 1e9)
            if not torch.equal(src, dst):
                ok = False
                emit("error", gpu=g, stage="copy_d2d", message="the copy differs from its source")
            host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
            t = _time_copy(torch, src, host, repeats, dev)
            emit("copy", gpu=g, peer=-1, direction="h2d", bytes=nbytes, repeats=repeats, seconds=t, gbps=nbytes * repeats / t / 1e9)
            t = _time_copy(torch, host, dst, repeats, dev)
            emit("copy", gpu=g, peer=-1, direction="d2h", bytes=nbytes, repeats=repeats, seconds=t, gbps=nbytes * repeats / t / 1e9)
            for p in gpus:
                if p == g:
                    continue
                if not torch.cuda.can_device_access_peer(g, p):
                    emit("copy", gpu=g, peer=p, direction="p2p", bytes=nbytes, repeats=0, seconds=0.0, gbps=0.0, peer_access="no")
                    continue
                far = torch.empty(nbytes, dtype=torch.uint8, device=torch.device("cuda", p))
                t = _time_copy(torch, far, src, repeats, dev)
                emit("copy", gpu=g, peer=p, direction="p2p", bytes=nbytes, repeats=repeats, seconds=t, gbps=2 * nbytes * repeats / t / 1e9)
                del far
            del src, dst, host
            torch.cuda.empty_cache()
        except Exception as exc:
            ok = False
            emit("error", gpu=g, stage="copy", message=(str(exc).splitlines() or [type(exc).__name__])[0][:300])
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="stage", required=True)
    b = sub.add_parser("burn", help="matrix products on every GPU, results checked")
    b.add_argument("--seconds", type=float, default=20.0)
    b.add_argument("--n", type=int, default=8192, help="matrix side")
    b.add_argument("--dtypes", default="bf16,fp32")
    c = sub.add_parser("copy", help="copy bandwidth: device, host<->device, peers")
    c.add_argument("--mib", type=int, default=1024)
    c.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args(argv)
    torch = _torch()
    gpus = context(torch)
    if args.stage == "burn":
        ok = burn(torch, gpus, args.seconds, args.n, [d for d in args.dtypes.split(",") if d])
    else:
        ok = copy(torch, gpus, args.mib, args.repeats)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

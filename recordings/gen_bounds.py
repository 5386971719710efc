"""PyTorch loops each bound by one thing, recorded by torch.profiler (Kineto), or run bare
for `nsys profile` (PLAIN=1) or for `ncu` (NCU=1), so that a diagnosis can be checked
against a run whose character is known:

  bound_loader   a host-side data step (sleep + NumPy sort) before each short training
                 step: the GPU waits on the host
  bound_sync     a small matmul, .item() on its result, then host work on the value, every
                 iteration: the GPU idles after each wait
  bound_copy     a 128 MB pageable host-to-device copy, then a little compute, every step
  bound_compute  back-to-back 4096x4096 bf16 GEMMs: the GPU busy with compute
  bound_launch   eager element-wise ops on a 256-element tensor: thousands of 2 µs kernels
  bound_memory   in-place element-wise ops on a 256 MB tensor: busy, bound by DRAM bandwidth

Usage: python gen_bounds.py OUTDIR [workload ...]
  PLAIN=1: no profiler; each workload inside an NVTX range of its name
  NCU=1:   three GEMMs and three element-wise multiplies in an NVTX range "ncu"
  DRY=1:   on the CPU, small sizes, no CUDA activity (to try the script without a GPU)
"""
import gzip
import os
import shutil
import sys
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

DRY = bool(os.environ.get("DRY"))
DEV = "cpu" if DRY else "cuda"
SCALE = 8 if DRY else 1  # sizes divided by this in a dry run


def sync_device():
    if not DRY:
        torch.cuda.synchronize()


def nvtx(name):
    class _Range:
        def __enter__(self):
            if not DRY:
                torch.cuda.nvtx.range_push(name)

        def __exit__(self, *exc):
            if not DRY:
                torch.cuda.nvtx.range_pop()
    return _Range()


def mlp(d=1024, hidden=4096):
    return torch.nn.Sequential(
        torch.nn.Linear(d, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, hidden),
        torch.nn.GELU(), torch.nn.Linear(hidden, d),
    ).to(DEV)


def bound_loader():
    """Host-bound: 6 ms of sleep and a NumPy sort make each batch; the step takes ~1.5 ms."""
    m = mlp(1024 // SCALE, 4096 // SCALE)
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)

    def step(i):
        with record_function("dataloader"):
            time.sleep(0.006)
            a = np.sort(rng.standard_normal((512, 1024 // SCALE), dtype=np.float32), axis=1)
            x = torch.from_numpy(a)
            x = (x if DRY else x.pin_memory()).to(DEV, non_blocking=True)
        with record_function("train_step"):
            loss = m(x).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    return 40, step


def bound_sync():
    """Sync-bound: each iteration a 1024^2 matmul (~50 µs), .item() and ~0.5 ms of host
    work on the value, 25 iterations a step: the GPU idles after every wait."""
    n = 1024 // SCALE
    w = torch.randn(n, n, device=DEV) / n ** 0.5
    x = torch.randn(n, n, device=DEV)
    history = []

    def step(i):
        nonlocal x
        for _ in range(25):
            with record_function("iteration"):
                x = torch.tanh(x @ w)
                value = x.abs().mean().item()  # the host waits for the GPU here
                history.append(value)
                time.sleep(0.0004)  # host work that needs the value (logging, control)
    return 40, step


def bound_copy():
    """Copy-bound: a 128 MB host-to-device copy from pageable memory, then ~0.1 ms of
    compute on it, every step."""
    host = torch.randn(32 * 2 ** 20 // SCALE ** 2)  # pageable: not pinned

    def step(i):
        with record_function("copy_in"):
            x = host.to(DEV)
        with record_function("compute"):
            y = (x * 2.0).sum()
        del y
    return 40, step


def bound_compute():
    """Compute-bound: 100 back-to-back 4096^2 bf16 GEMMs a step (~0.25 ms each)."""
    n = 4096 // SCALE
    dtype = torch.float32 if DRY else torch.bfloat16
    a = torch.randn(n, n, device=DEV, dtype=dtype)
    b = torch.randn(n, n, device=DEV, dtype=dtype)
    c = torch.empty(n, n, device=DEV, dtype=dtype)

    def step(i):
        for _ in range(100 // SCALE):
            torch.mm(a, b, out=c)
    return 10, step


def bound_launch():
    """Launch-bound: 500 eager x * a + b on 256 elements a step: 1,000 kernels of ~2 µs."""
    x = torch.ones(256, device=DEV)

    def step(i):
        nonlocal x
        for _ in range(500 // SCALE):
            x = x * 0.999 + 0.001
    return 25, step


def bound_memory():
    """Memory-bound: 100 in-place multiplies of a 256 MB tensor a step (~0.17 ms each)."""
    x = torch.ones(64 * 2 ** 20 // SCALE ** 2, device=DEV)

    def step(i):
        for _ in range(100 // SCALE):
            x.mul_(0.9999)
    return 10, step


WORKLOADS = {"bound_loader": bound_loader, "bound_sync": bound_sync, "bound_copy": bound_copy,
             "bound_compute": bound_compute, "bound_launch": bound_launch,
             "bound_memory": bound_memory}


def run_plain(name, steps, step):
    """The steps between cudaProfilerStart and Stop, which `nsys profile --capture-range
    cudaProfilerApi` records (not the start-up and warm-up before them)."""
    if not DRY:
        torch.cuda.profiler.start()
    with nvtx(name):
        for i in range(steps + 2):
            with nvtx(f"step_{i}"):
                step(i)
        sync_device()
    if not DRY:
        torch.cuda.profiler.stop()


def run_profiled(outdir, name, steps, step):
    path = os.path.join(outdir, f"{name}.pt.trace.json")
    activities = [ProfilerActivity.CPU] + ([] if DRY else [ProfilerActivity.CUDA])
    with profile(
        activities=activities,
        schedule=schedule(wait=1, warmup=1, active=steps, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(path),
    ) as prof:
        for i in range(steps + 2):
            with record_function(f"step_{i}"):
                step(i)
            prof.step()
    sync_device()
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    print(name, "ok", os.path.getsize(path + ".gz"), flush=True)


def run_ncu():
    """Three launches of the GEMM of bound_compute and three of the multiply of
    bound_memory, in an NVTX range "ncu" that `ncu --nvtx --nvtx-include ncu/` picks."""
    n = 4096 // SCALE
    a = torch.randn(n, n, device=DEV, dtype=torch.float32 if DRY else torch.bfloat16)
    c = torch.empty_like(a)
    x = torch.ones(64 * 2 ** 20 // SCALE ** 2, device=DEV)
    torch.mm(a, a, out=c)  # warm: the kernels are chosen and loaded
    x.mul_(0.9999)
    sync_device()
    with nvtx("ncu"):
        for _ in range(3):
            torch.mm(a, a, out=c)
        for _ in range(3):
            x.mul_(0.9999)
    sync_device()
    print("ncu workload ok", flush=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    names = sys.argv[2:] or list(WORKLOADS)
    print("torch", torch.__version__, "cuda" if not DRY else "dry run on the CPU", flush=True)
    if os.environ.get("NCU"):
        run_ncu()
        return
    for name in names:
        try:
            steps, step = WORKLOADS[name]()
            step(0)  # warm: kernels chosen, allocator filled
            sync_device()
            if os.environ.get("PLAIN"):
                run_plain(name, steps, step)
                print(name, "ok", flush=True)
            else:
                run_profiled(out, name, steps, step)
        except Exception as exc:  # one workload failing must not lose the others
            print(name, "failed:", repr(exc), flush=True)


if __name__ == "__main__":
    main()

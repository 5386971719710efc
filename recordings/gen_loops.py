"""Six PyTorch loops of known character, each a whole program as users run it: the imports,
CUDA set-up, host tensors and one warm-up step come first (the start-up), then the loop
inside one NVTX range named after it, one NVTX range `step N` per iteration inside that.
A diagnosis of the whole capture should describe the loop, not the start-up.

  compute  back-to-back 8192x8192 bf16 GEMMs (~1.4 ms each), 50 a step, enqueued far
           ahead of the GPU: ~99% GPU busy inside the range
  sync     a 1024x1024 fp32 GEMM (~40 µs), torch.cuda.synchronize(), then ~0.4 ms of host
           work (a pure-Python loop and a 0.2 ms sleep), 25 times a step: the GPU idles
           after every sync (~10% busy)
  copy     a 128 MB host-to-device copy from pageable (not pinned) memory, then a little
           compute on it, every step: the copy engine's time dominates, kernels are tiny
  launch   eager `x * 0.999 + 0.001` on a 256-element tensor, 400 times a step: 800
           kernels of ~2 µs a step, the GPU waiting on the launches (host/launch-bound)
  host     each step prepares its batch on the CPU: NumPy linear algebra on 512x512
           matrices (solve, QR, singular values) and a pure-Python tokenizer over ~300 kB of
           text, then a short GPU step (embedding + MLP forward/backward, SGD): the GPU
           idles while the host works (a few % busy)
  memory   in-place element-wise ops (mul_, add_) on a 256 MB fp32 tensor, 200 a step
           (~0.17 ms each): busy, bound by DRAM bandwidth, not by compute

Usage: python gen_loops.py OUTDIR [loop ...]   (all six when none is named)
  PLAIN=1: bare, for `nsys profile` of the whole program (no capture range): NVTX ranges
           `<loop>` > `step N` (> sub-ranges: `prepare`, `tokenize`, `linalg`, `gpu_step`)
  default: under torch.profiler, one Kineto trace per loop, OUTDIR/loop_<name>.pt.trace.json.gz,
           schedule(wait=1, warmup=1, active=N), prof.step() each iteration (ProfilerStep#k
           ranges), with_stack=True; the sub-ranges as record_function
  DRY=1:   on the CPU, small sizes, no CUDA activity (to try the script without a GPU)
Prints one line per loop: `<name> ok steps=<n> loop_s=<seconds> ...`.
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
PLAIN = bool(os.environ.get("PLAIN"))
DEV = "cpu" if DRY else "cuda"
SCALE = 8 if DRY else 1  # sizes divided by this in a dry run


def sync_device():
    if not DRY:
        torch.cuda.synchronize()


class region:
    """An NVTX range when bare (PLAIN=1), a record_function under torch.profiler."""

    def __init__(self, name):
        self.name = name
        self.rf = None

    def __enter__(self):
        if PLAIN:
            if not DRY:
                torch.cuda.nvtx.range_push(self.name)
        else:
            self.rf = record_function(self.name)
            self.rf.__enter__()

    def __exit__(self, *exc):
        if PLAIN:
            if not DRY:
                torch.cuda.nvtx.range_pop()
        else:
            self.rf.__exit__(*exc)


# Each loop builds its data (the start-up) and returns (steps, kineto_active_steps, step).

def loop_compute():
    n = 8192 // SCALE
    dtype = torch.float32 if DRY else torch.bfloat16
    a = torch.randn(n, n).to(dtype).to(DEV)  # made on the host, copied over
    b = torch.randn(n, n).to(dtype).to(DEV)
    c = torch.empty(n, n, device=DEV, dtype=dtype)

    def step(i):
        for _ in range(50 // SCALE):
            torch.mm(a, b, out=c)
    return 20, 4, step


def loop_sync():
    n = 1024 // SCALE
    x = torch.randn(n, n).to(DEV)
    w = (torch.randn(n, n) / n ** 0.5).to(DEV)
    y = torch.empty(n, n, device=DEV)

    def host_work():
        acc = 0.0
        for k in range(4000):  # bookkeeping in Python, ~0.2 ms
            acc += k * 0.5
        time.sleep(0.0002)
        return acc

    def step(i):
        for _ in range(25):
            torch.mm(x, w, out=y)
            sync_device()  # the host waits for the GPU here
            host_work()  # ... and the GPU waits for the host here
    return 80, 5, step


def loop_copy():
    host = torch.randn(32 * 2 ** 20 // SCALE ** 2)  # 128 MB, pageable: not pinned

    def step(i):
        x = host.to(DEV)  # pageable: staged by the driver, the host blocks
        y = (x * 2.0).sum()
        del x, y
    return 50, 5, step


def loop_launch():
    x = torch.ones(256, device=DEV)

    def step(i):
        nonlocal x
        for _ in range(400 // SCALE):
            x = x * 0.999 + 0.001
    return 50, 3, step


WORDS = ("the model reads a batch of tokens and the optimizer updates every weight after "
         "backward while the loader prepares the next batch on the host, numbers such as "
         "3.14 and 42 appear, punctuation too!").split()


def loop_host():
    rng = np.random.default_rng(0)
    text = " ".join(WORDS[j] for j in rng.integers(0, len(WORDS), 48000 // SCALE))
    vocab = {w: k for k, w in enumerate(sorted(set(WORDS)))}
    alnum = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    d, hidden, nvocab = 256, 1024, len(vocab) + 1
    emb = torch.nn.Embedding(nvocab, d).to(DEV)
    mlp = torch.nn.Sequential(torch.nn.Linear(d + 64, hidden), torch.nn.GELU(),
                              torch.nn.Linear(hidden, d)).to(DEV)
    opt = torch.optim.SGD(list(emb.parameters()) + list(mlp.parameters()), lr=1e-3)

    def tokenize(s):
        """A pure-Python tokenizer: one pass over the characters, no calls per token."""
        n = len(s)
        ids, m, start = [0] * (n // 2 + 1), 0, -1  # no list.append: stacks stay small
        for k in range(n + 1):
            ch = s[k] if k < n else " "
            if ch in alnum:
                if start < 0:
                    start = k
            elif start >= 0:
                tok = s[start:k]
                ids[m] = vocab[tok] if tok in vocab else 0
                m += 1
                start = -1
        return ids[:m]

    def linalg():
        a = rng.standard_normal((512 // SCALE, 512 // SCALE))
        b = rng.standard_normal((512 // SCALE, 64))
        x = np.linalg.solve(a, b)
        q, r = np.linalg.qr(a)
        s = np.linalg.svd(a, compute_uv=False)
        return np.concatenate([x.mean(axis=0), [s.max() / s.min(), abs(r).trace()]])

    def step(i):
        with region("prepare"):
            with region("linalg"):
                feats = linalg()
            with region("tokenize"):
                ids = tokenize(text)
        with region("gpu_step"):
            t = torch.tensor(ids[:4096], device=DEV)
            f = torch.tensor(feats[:64], dtype=torch.float32, device=DEV)
            h = emb(t)
            out = mlp(torch.cat([h, f.expand(h.shape[0], f.shape[0])], dim=1))
            loss = out.pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    return 30, 5, step


def loop_memory():
    x = torch.ones(64 * 2 ** 20 // SCALE ** 2).to(DEV)  # 256 MB, made on the host

    def step(i):
        for _ in range(100 // SCALE):
            x.mul_(0.9999)
            x.add_(0.0001)
    return 40, 5, step


LOOPS = {"compute": loop_compute, "sync": loop_sync, "copy": loop_copy,
         "launch": loop_launch, "host": loop_host, "memory": loop_memory}


def run_plain(name, steps, step):
    """The loop in one NVTX range of its name, `step N` inside; ends once the GPU is done."""
    t0 = time.perf_counter()
    with region(name):
        for i in range(steps):
            with region(f"step {i}"):
                step(i)
        sync_device()
    return steps, time.perf_counter() - t0


def run_profiled(outdir, name, active, step):
    """Kineto with profiler steps: wait=1, warmup=1, active=ACTIVE, prof.step() each
    iteration, Python stacks on; the whole trace gzipped."""
    path = os.path.join(outdir, f"loop_{name}.pt.trace.json")
    activities = [ProfilerActivity.CPU] + ([] if DRY else [ProfilerActivity.CUDA])
    steps = active + 2
    t0 = time.perf_counter()
    with profile(
        activities=activities,
        schedule=schedule(wait=1, warmup=1, active=active, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(path),
        with_stack=True,
    ) as prof:
        for i in range(steps):
            step(i)
            prof.step()
    sync_device()
    took = time.perf_counter() - t0
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    raw = os.path.getsize(path)
    os.remove(path)
    return steps, took, f"json={raw} gz={os.path.getsize(path + '.gz')}"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    names = sys.argv[2:] or list(LOOPS)
    os.makedirs(out, exist_ok=True)
    print("torch", torch.__version__, "numpy", np.__version__,
          "cuda" if not DRY else "dry run on the CPU", "plain" if PLAIN else "kineto", flush=True)
    for name in names:
        try:
            t0 = time.perf_counter()
            steps, active, step = LOOPS[name]()
            step(-1)  # warm-up, outside the loop's range: kernels chosen, allocator filled
            sync_device()
            setup = time.perf_counter() - t0
            if PLAIN:
                n, took = run_plain(name, steps, step)
                extra = ""
            else:
                n, took, extra = run_profiled(out, name, active, step)
            print(f"{name} ok steps={n} loop_s={took:.3f} setup_s={setup:.3f} {extra}",
                  flush=True)
        except Exception as exc:  # one loop failing must not lose the others
            print(name, "failed:", repr(exc), flush=True)


if __name__ == "__main__":
    main()

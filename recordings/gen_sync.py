"""A PyTorch training loop with the habits NVIDIA's rules flag, recorded by torch.profiler
(Kineto) or, with PLAIN=1, run bare for `nsys profile`.

Every step: the batch is copied from pageable memory with non_blocking=True (an async copy
from pageable memory), the loss is read with .item() (a host-blocking sync), the step ends
in torch.cuda.synchronize(), an event is waited on, and a 3 ms host pause idles the GPU.
Usage: python gen_sync.py OUTDIR
"""
import gzip
import os
import shutil
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

DEV = "cuda"
STEPS = 6


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    m = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
    ).to(DEV)
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)
    plain = bool(os.environ.get("PLAIN"))

    def step(i):
        with record_function("dataloader"):
            time.sleep(0.003)
            x = torch.randn(256, 1024)  # pageable host memory
            x = x.to(DEV, non_blocking=True)
        with record_function("forward"):
            loss = m(x).pow(2).mean()
        with record_function("backward"):
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        with record_function("log"):
            print_loss = loss.item()  # a host-blocking read
        del print_loss
        done = torch.cuda.Event()
        done.record()
        done.synchronize()
        torch.cuda.synchronize()
        host = torch.empty(256, 1024)
        host.copy_(x)  # a device-to-pageable copy

    if plain:
        for i in range(STEPS + 3):
            torch.cuda.nvtx.range_push(f"step_{i}")
            step(i)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        return
    path = os.path.join(out, "sync_habits.pt.trace.json")
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=2, active=STEPS, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(path),
    ) as prof:
        for i in range(STEPS + 3):
            with record_function(f"step_{i}"):
                step(i)
            prof.step()
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    print("sync_habits ok", os.path.getsize(path + ".gz"))


if __name__ == "__main__":
    main()

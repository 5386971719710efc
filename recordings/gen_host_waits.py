"""Two loops whose GPU waits on the host, under torch.profiler with Python stacks and no
annotations: `sleep` (time.sleep(5 ms) before each step) and `python` (~5 ms of pure
Python before each step). Each step is one 1024x1024 GEMM.
Usage: python gen_host_waits.py OUTDIR  ->  OUTDIR/host_<loop>.pt.trace.json.gz"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def featurize(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def run(loop, out):
    x = torch.randn(1024, 1024, device="cuda")
    n = 1
    while True:  # calibrate: ~5 ms of Python
        t = time.perf_counter()
        featurize(n)
        if time.perf_counter() - t > 0.005:
            break
        n *= 2
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=5), with_stack=True) as prof:
        for _ in range(7):
            if loop == "sleep":
                time.sleep(0.005)
            else:
                featurize(n)
            y = x @ x
            prof.step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(f"{out}/host_{loop}.pt.trace.json")
    print(loop, "ok", float(y[0, 0]))


for name in ("sleep", "python"):
    run(name, sys.argv[1])

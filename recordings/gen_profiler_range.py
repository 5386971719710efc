"""A loop between cudaProfilerStart and cudaProfilerStop, with no NVTX range or profiler
step: a 4096x4096 fp32 GEMM, torch.cuda.synchronize() and a 2 ms sleep, 30 times (the GPU
idles while the host sleeps: host-bound), after a warm-up and 0.3 s without GPU work.
Recorded whole (no capture range) by `nsys profile -t cuda`, which keeps the start and stop
calls: sample_traces/profiler_range.sqlite."""
import time

import torch

x = torch.randn(4096, 4096, device="cuda")
for _ in range(3):
    y = x @ x
torch.cuda.synchronize()
time.sleep(0.3)
torch.cuda.profiler.start()
for _ in range(30):
    y = x @ x
    torch.cuda.synchronize()
    time.sleep(0.002)
torch.cuda.profiler.stop()
torch.cuda.synchronize()
print("ok", float(y[0, 0]))

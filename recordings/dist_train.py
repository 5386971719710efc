"""Data-parallel training of a small ViT, one process per GPU, each rank traced by torch.profiler.

One rank (SLOW_RANK, default the last) has a slow data loader (SLOW_MS per step, default
15 ms), so the others wait for it inside NCCL collectives: a straggler.
Usage: torchrun --nproc_per_node=N dist_train.py ddp|fsdp OUTDIR
Writes OUTDIR/<mode>_rank<R>.pt.trace.json (Kineto, with distributedInfo) per rank.
Env: PLAIN=1 runs bare with NVTX ranges per step, for an outside profiler (nsys);
DEVICE=cpu runs on the CPU with gloo (a dry run of the script, small sizes).
"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

MODE, OUT = sys.argv[1], sys.argv[2]
CPU = os.environ.get("DEVICE") == "cpu"
PLAIN = bool(os.environ.get("PLAIN"))
WAIT, WARMUP, ACTIVE = 1, 2, 3
STEPS = WAIT + WARMUP + ACTIVE
# a ViT-S-like encoder: 128x128 images in 16x16 patches (64 tokens), width 384
DEPTH, WIDTH, HEADS, IMG, PATCH, BATCH = (2, 64, 4, 32, 16, 4) if CPU else (6, 384, 6, 128, 16, 64)


class ViT(torch.nn.Module):
    def __init__(self, classes=100):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, WIDTH, PATCH, stride=PATCH)
        self.pos = torch.nn.Parameter(torch.zeros(1, (IMG // PATCH) ** 2, WIDTH))
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(WIDTH, HEADS, 4 * WIDTH, dropout=0.0,
                                             activation="gelu", batch_first=True,
                                             norm_first=True)
            for _ in range(DEPTH))
        self.norm = torch.nn.LayerNorm(WIDTH)
        self.head = torch.nn.Linear(WIDTH, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(dim=1))


def wrap(model, device):
    if MODE == "ddp":
        ids = None if CPU else [device]
        return torch.nn.parallel.DistributedDataParallel(model, device_ids=ids, bucket_cap_mb=4)
    from torch.distributed.fsdp import fully_shard  # FSDP2: one unit per block, then the root

    for block in model.blocks:
        fully_shard(block)
    return fully_shard(model)


def main():
    dist.init_process_group("gloo" if CPU else "nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    slow = int(os.environ.get("SLOW_RANK", world - 1))
    slow_s = float(os.environ.get("SLOW_MS", "15")) / 1000
    local = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device("cpu") if CPU else torch.device("cuda", local)
    if not CPU:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = wrap(ViT().to(device), device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=not CPU and MODE == "ddp")
    print(f"rank {rank}/{world} on {socket.gethostname()} pid {os.getpid()} device {device}",
          flush=True)

    def step(i):
        with record_function("dataloader"):
            x = torch.randn(BATCH, 3, IMG, IMG)
            y = torch.randint(0, 100, (BATCH,))
            if rank == slow:
                time.sleep(slow_s)  # the slow data loader
            if not CPU:
                x, y = x.pin_memory().to(device, non_blocking=True), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    if PLAIN:
        for i in range(STEPS):
            torch.cuda.nvtx.range_push(f"step {i}")
            step(i)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    else:
        path = os.path.join(OUT, f"{MODE}_rank{rank}.pt.trace.json")
        activities = [ProfilerActivity.CPU] + ([] if CPU else [ProfilerActivity.CUDA])
        with profile(activities=activities,
                     schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
                     on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
            for i in range(STEPS):
                step(i)
                prof.step()
        if not CPU:
            torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    print("rank", rank, MODE, "ok", flush=True)


if __name__ == "__main__":
    main()

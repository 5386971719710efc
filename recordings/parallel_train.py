"""Pipeline- and tensor-parallel training steps, one process per GPU, each rank traced by
torch.profiler (Kineto with distributedInfo and the collectives' record_param_comms).

  pp-gpipe  a 4-stage pipeline of an MLP (torch.distributed.pipelining, ScheduleGPipe):
            all forwards of MICRO micro-batches, then all backwards; NCCL send/recv
            between neighbouring stages
  pp-1f1b   the same stages under Schedule1F1B (one forward, one backward in turn)
  pp-interleaved  two stages a rank, looped (rank r holds stages r and r + N, each of
            LAYERS / 2 layers), under ScheduleInterleaved1F1B: the activations go from the
            last rank back to the first between a rank's two stages
  tp        a Megatron-style tensor-parallel MLP over every rank: each layer a
            column-parallel Linear then a row-parallel one, an all-reduce of the
            activations inside every layer's forward (and of their gradients in the
            backward); no data parallelism
Every step starts with a host data step of DATA_MS (default 2 ms) on every rank.

Usage: torchrun --nproc_per_node=N parallel_train.py MODE OUTDIR
Writes OUTDIR/<mode>_rank<R>.pt.trace.json per rank. Env: PLAIN=1 runs bare with NVTX
ranges `step N`, for nsys (MARKS=0: without them, a program that marks nothing);
DEVICE=cpu runs on the CPU with gloo (a dry run, small sizes);
MICRO (micro-batches, default 8), LAYERS (per stage, default 4), WIDTH (default 4096).
"""
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

MODE, OUT = sys.argv[1], sys.argv[2]
CPU = os.environ.get("DEVICE") == "cpu"
PLAIN = bool(os.environ.get("PLAIN"))
MARKS = os.environ.get("MARKS", "1") != "0"
WAIT, WARMUP, ACTIVE = 1, 2, 3
STEPS = WAIT + WARMUP + ACTIVE
MICRO = int(os.environ.get("MICRO", "8"))
LAYERS = int(os.environ.get("LAYERS", "4"))
WIDTH = int(os.environ.get("WIDTH", "256" if CPU else "4096"))
BATCH = 8 * MICRO if CPU else 64 * MICRO  # rows per step
DATA_S = float(os.environ.get("DATA_MS", "2")) / 1000
DTYPE = torch.float32 if CPU else torch.bfloat16


def mlp_stage(layers):
    blocks = []
    for _ in range(layers):
        blocks += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.GELU()]
    return torch.nn.Sequential(*blocks)


class ColumnRowMLP(torch.nn.Module):
    """One tensor-parallel layer: W1 split by columns, W2 by rows, outputs all-reduced."""

    def __init__(self, world):
        super().__init__()
        self.up = torch.nn.Linear(WIDTH, 4 * WIDTH // world)
        self.down = torch.nn.Linear(4 * WIDTH // world, WIDTH, bias=False)

    def forward(self, x):
        return x + AllReduce.apply(self.down(torch.nn.functional.gelu(self.up(x))))


class AllReduce(torch.autograd.Function):
    """Megatron's g: all-reduce in the forward; the backward's all-reduce sits in f."""

    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class Copy(torch.autograd.Function):
    """Megatron's f: identity in the forward, all-reduce of the gradient in the backward."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous()
        dist.all_reduce(grad)
        return grad


class TensorParallelMLP(torch.nn.Module):
    def __init__(self, world):
        super().__init__()
        self.layers = torch.nn.ModuleList(ColumnRowMLP(world) for _ in range(LAYERS))

    def forward(self, x):
        for layer in self.layers:
            x = layer(Copy.apply(x))
        return x


def data(device, rank):
    with record_function("dataloader"):
        time.sleep(DATA_S)
        g = torch.Generator().manual_seed(0)  # every rank the same batch (tp needs it)
        x = torch.randn(BATCH, WIDTH, generator=g)
        y = torch.randn(BATCH, WIDTH, generator=g)
        return x.to(device, DTYPE), y.to(device, DTYPE)


def pipeline_step(pipe, rank, world):
    """A step of a pipeline schedule on this rank: the first stage's rank feeds the
    inputs, the last stage's the targets, the others neither."""

    def run(x, y):
        if rank == 0:
            pipe.step(x)
        elif rank == world - 1:
            pipe.step(target=y, losses=[])
        else:
            pipe.step()

    return run


def main():
    dist.init_process_group("gloo" if CPU else "nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device("cpu") if CPU else torch.device("cuda", local)
    if not CPU:
        torch.cuda.set_device(device)
    torch.manual_seed(rank)
    loss_fn = torch.nn.functional.mse_loss

    if MODE == "pp-interleaved":
        from torch.distributed.pipelining import PipelineStage, ScheduleInterleaved1F1B

        # two stages a rank, looped: rank r holds stages r and r + world
        modules = [mlp_stage(LAYERS // 2).to(device, DTYPE) for _ in range(2)]
        stages = [PipelineStage(m, rank + k * world, 2 * world, device)
                  for k, m in enumerate(modules)]
        pipe = ScheduleInterleaved1F1B(stages, n_microbatches=MICRO, loss_fn=loss_fn)
        params = [p for m in modules for p in m.parameters()]

        run = pipeline_step(pipe, rank, world)
    elif MODE.startswith("pp-"):
        from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

        module = mlp_stage(LAYERS).to(device, DTYPE)
        stage = PipelineStage(module, rank, world, device)
        kind = ScheduleGPipe if MODE == "pp-gpipe" else Schedule1F1B
        pipe = kind(stage, n_microbatches=MICRO, loss_fn=loss_fn)
        params = module.parameters()

        run = pipeline_step(pipe, rank, world)
    elif MODE == "tp":
        model = TensorParallelMLP(world).to(device, DTYPE)
        params = model.parameters()

        def run(x, y):
            loss_fn(model(x), y).backward()
    else:
        raise SystemExit(f"unknown mode {MODE}")
    opt = torch.optim.SGD(params, lr=1e-4)

    def step(i):
        x, y = data(device, rank)
        run(x, y)
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)

    print(f"rank {rank}/{world} pid {os.getpid()} device {device} {MODE}", flush=True)
    if PLAIN:
        for i in range(STEPS):
            if MARKS:
                torch.cuda.nvtx.range_push(f"step {i}")
            step(i)
            if MARKS:
                torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    else:
        path = os.path.join(OUT, f"{MODE}_rank{rank}.pt.trace.json")
        activities = [ProfilerActivity.CPU] + ([] if CPU else [ProfilerActivity.CUDA])
        with profile(activities=activities, record_shapes=True,
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

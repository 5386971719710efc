"""A compiled language model's training, as a whole program: Hugging Face GPT-2 (random
weights from its config: 6 layers, width 768, 12 heads, sequences of 512, batches of 16),
`torch.compile`d, bf16 autocast, fused AdamW, its batches from a `DataLoader` with two
worker processes (pinned memory) that build each sample in Python. The imports, the model's
build and the compile (its first steps) come first; then the loop, inside one NVTX range
`train` with one range `step N` per iteration. Every 10th step reads the loss to the host
(`.item()`); step 20 writes a checkpoint (`torch.save` of the model and optimizer) inside
the loop, a host pause the GPU waits through.

A diagnosis of the whole capture should describe the loop, not the compile before it.

Under torchrun (WORLD_SIZE > 1) the model is data-parallel (DDP, NCCL, one process per GPU)
and only rank 0 writes the checkpoint: the other ranks wait for it in step 21's all-reduce.

Usage: python gen_compiled_lm.py OUTDIR
       (or: torchrun --nproc_per_node=N gen_compiled_lm.py OUTDIR)
  PLAIN=1: bare, NVTX ranges, for `nsys profile` of the whole program
  default: under torch.profiler (schedule wait=14, warmup=2, active=6, repeat=1: steps
           16-21, profiler steps, with_stack, profile_memory, record_shapes):
           OUTDIR/compiled_lm.pt.trace.json.gz
  STEPS:   loop iterations (40)
Prints `compiled_lm ok rank=<r> steps=<n> loop_s=<seconds> compile_s=<seconds>`.
"""
import gzip
import os
import shutil
import sys
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset
from transformers import GPT2Config, GPT2LMHeadModel

PLAIN = bool(os.environ.get("PLAIN"))
STEPS = int(os.environ.get("STEPS", "40"))
SEQ, BATCH, VOCAB = 512, 16, 50257


class Tokens(Dataset):
    """Each sample built on the host: a pure-Python pass over a random text's words
    (a tokenizer's work, ~1 ms), then its ids as a tensor."""

    def __init__(self, samples: int) -> None:
        self.samples = samples
        self.words = [f"w{i}" for i in range(4096)]

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, index: int) -> torch.Tensor:
        rng = np.random.default_rng(index)
        picks = rng.integers(0, len(self.words), SEQ + 1)
        text = " ".join(self.words[p] for p in picks)
        ids = [hash(word) % VOCAB for word in text.split()]
        return torch.tensor(ids, dtype=torch.long)


def nvtx(name: str):
    return torch.cuda.nvtx.range(name) if PLAIN else _NoRange()


class _NoRange:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main(outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    rank, distributed = 0, int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:  # under torchrun: data-parallel (DDP), one process per GPU
        torch.distributed.init_process_group("nccl")
        rank = torch.distributed.get_rank()
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    config = GPT2Config(n_layer=6, n_embd=768, n_head=12, n_positions=SEQ, vocab_size=VOCAB)
    model = GPT2LMHeadModel(config).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    trained = (torch.nn.parallel.DistributedDataParallel(
        model, device_ids=[torch.cuda.current_device()]) if distributed else model)
    compiled = torch.compile(trained)
    suffix = f"_rank{rank}" if distributed else ""
    loader = DataLoader(Tokens(BATCH * (STEPS + 4)), batch_size=BATCH, num_workers=2,
                        pin_memory=True, persistent_workers=True)
    batches = iter(loader)

    def train_step(batch: torch.Tensor) -> torch.Tensor:
        batch = batch.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(batch[:, :-1], labels=batch[:, 1:]).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    started = time.perf_counter()
    with nvtx("compile"):
        for _ in range(2):  # the compile, forward and backward, and the optimizer's warm-up
            train_step(next(batches))
        torch.cuda.synchronize()
    compile_s = time.perf_counter() - started

    prof = None
    if not PLAIN:
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                       schedule=schedule(wait=14, warmup=2, active=6, repeat=1),
                       with_stack=True,
                       profile_memory=True, record_shapes=True,
                       on_trace_ready=lambda p: p.export_chrome_trace(
                           os.path.join(outdir, f"compiled_lm{suffix}.pt.trace.json")))
        prof.start()
    started = time.perf_counter()
    with nvtx("train"):
        for step in range(STEPS):
            with nvtx(f"step {step}"):
                loss = train_step(next(batches))
                if step % 10 == 9:
                    print(f"step {step} loss {loss.item():.3f}", flush=True)
                if step == 20 and rank == 0:  # on one rank: the others wait in step 21
                    torch.save({"model": model.state_dict(), "opt": optimizer.state_dict()},
                               os.path.join(outdir, "checkpoint.pt"))
            if prof is not None:
                prof.step()
        torch.cuda.synchronize()
    loop_s = time.perf_counter() - started
    if prof is not None:
        prof.stop()
        plain = os.path.join(outdir, f"compiled_lm{suffix}.pt.trace.json")
        with open(plain, "rb") as src, gzip.open(plain + ".gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(plain)
    if rank == 0 and STEPS > 20:  # the checkpoint step ran
        os.remove(os.path.join(outdir, "checkpoint.pt"))
    print(f"compiled_lm ok rank={rank} steps={STEPS} loop_s={loop_s:.3f} "
          f"compile_s={compile_s:.3f}", flush=True)
    if distributed:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])

"""Record PyTorch profiles with Python call stacks and memory (with_stack=True,
profile_memory=True, record_shapes=True), or, with PLAIN=1, run the same work bare for
`nsys profile --cuda-memory-usage=true --cudabacktrace=all`.

  stacks_training  a 2-block transformer, forward/backward/AdamW, 4 profiled steps
  stacks_generate  Hugging Face GPT-2 (random weights from its default config: nothing is
                   downloaded) generating 24 tokens greedily, twice
Usage: python gen_stacks.py OUTDIR [workload ...]
"""
import gzip
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function

DEV = "cuda"


class Block(torch.nn.Module):
    def __init__(self, d=1024, heads=16):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)
        )

    def forward(self, x):
        y = self.ln1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


def training():
    m = torch.nn.Sequential(Block(), Block()).to(DEV)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)

    def step(i):
        x = torch.randn(8, 256, 1024, device=DEV)
        loss = m(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step, 4


def generate():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    m = GPT2LMHeadModel(GPT2Config()).to(DEV).eval()
    ids = torch.randint(0, 50257, (1, 16), device=DEV)

    def step(i):
        with torch.no_grad():
            m.generate(ids, max_new_tokens=24, do_sample=False, pad_token_id=0)
    return step, 2


WORKLOADS = {"stacks_training": training, "stacks_generate": generate}


def record(out, name):
    step, steps = WORKLOADS[name]()
    step(-1)  # warm-up: allocator, cuBLAS handles, kernel caches
    torch.cuda.synchronize()
    if os.environ.get("PLAIN"):
        for i in range(steps):
            torch.cuda.nvtx.range_push(f"step_{i}")
            step(i)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        return
    path = os.path.join(out, f"{name}.pt.trace.json")
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        with_stack=True, profile_memory=True, record_shapes=True,
    ) as prof:
        for i in range(steps):
            with record_function(f"step_{i}"):
                step(i)
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    print(name, "ok", os.path.getsize(path + ".gz"), flush=True)


if __name__ == "__main__":
    for name in sys.argv[2:] or list(WORKLOADS):
        record(sys.argv[1], name)

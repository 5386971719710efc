"""A small GPT-style language model trained for a few steps, as users run it, in one of
three precisions, for FLOP counts (torch.profiler `with_flops`), shapes (`record_shapes`)
and tensor-core use by kernel name:

  bf16  autocast to bfloat16: GEMMs on tensor cores
  tf32  float32 with TF32 matmuls allowed (torch.set_float32_matmul_precision('high'))
  fp32  float32, TF32 off (the PyTorch default for matmuls): FP32 GEMMs on CUDA cores

The vocabulary is GPT-2's 50,257 tokens: the output projection's N is not a multiple of 8.

Usage: python gen_flops.py OUTDIR PRECISION [PRECISION ...]
  default: torch.profiler, schedule(wait=1, warmup=1, active=4), with_flops=True,
           record_shapes=True: OUTDIR/flops_<precision>.pt.trace.json.gz
  PLAIN=1: bare, for `nsys profile` of the whole program: NVTX ranges `<precision>` >
           `step N`, 8 steps after 2 warm-up steps
Prints one line per precision: `<precision> ok steps=<n> step_ms=<mean>`.
"""
import gzip
import os
import shutil
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

VOCAB, D_MODEL, HEADS, LAYERS, SEQ, BATCH = 50257, 1024, 16, 4, 512, 8


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.proj = nn.Linear(D_MODEL, D_MODEL)
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.up = nn.Linear(D_MODEL, 4 * D_MODEL)
        self.down = nn.Linear(4 * D_MODEL, D_MODEL)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D_MODEL, dim=-1)
        q, k, v = (y.view(b, t, HEADS, -1).transpose(1, 2) for y in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, D_MODEL))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def run(outdir: str, precision: str) -> None:
    torch.manual_seed(0)
    torch.set_float32_matmul_precision("high" if precision == "tf32" else "highest")
    model = GPT().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), device="cuda")
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "bf16")

    def step() -> None:
        with autocast:
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, VOCAB).float(), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    plain = os.environ.get("PLAIN") == "1"
    n = 10 if plain else 6
    times = []
    if plain:
        for i in range(n):
            torch.cuda.nvtx.range_push(f"step {i}" if i >= 2 else f"warmup {i}")
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            torch.cuda.nvtx.range_pop()
    else:
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                       schedule=schedule(wait=1, warmup=1, active=n - 2),
                       with_flops=True, record_shapes=True)
        with prof:
            for _ in range(n):
                t0 = time.perf_counter()
                step()
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
                prof.step()
        raw = os.path.join(outdir, f"flops_{precision}.pt.trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(raw)
    print(f"{precision} ok steps={n} step_ms={1e3 * sum(times[2:]) / (n - 2):.2f}", flush=True)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or ["bf16", "tf32", "fp32"]:
        if os.environ.get("PLAIN") == "1":
            torch.cuda.nvtx.range_push(name)
        run(out, name)
        if os.environ.get("PLAIN") == "1":
            torch.cuda.nvtx.range_pop()

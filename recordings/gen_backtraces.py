"""A small transformer trained for a few steps ($STEPS, default 4), NVTX-annotated per
step: the workload of sample_traces/backtraces_training.sqlite, recorded by nsys with CUDA
API backtraces and memory usage (record_all.sh backtraces)."""
import os

import torch
import torch.nn as nn


def build_model() -> nn.Module:
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                       batch_first=True)
    return nn.Sequential(nn.TransformerEncoder(layer, num_layers=2), nn.Linear(512, 1000)).cuda()


def make_batch():
    x = torch.randn(16, 128, 512, device="cuda")
    y = torch.randint(0, 1000, (16, 128), device="cuda")
    return x, y


def train_step(model, opt, x, y):
    out = model(x)
    loss = nn.functional.cross_entropy(out.reshape(-1, 1000), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


def main():
    torch.manual_seed(0)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(2):  # warm-up
        train_step(model, opt, *make_batch())
    torch.cuda.synchronize()
    for step in range(int(os.environ.get("STEPS", "4"))):
        torch.cuda.nvtx.range_push(f"step {step}")
        x, y = make_batch()
        train_step(model, opt, x, y).item()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()

"""A training-free loop replayed as a CUDA graph, as a whole program for nsys: an MLP's
forward (8 layers of 2048x2048 bf16 GEMMs, GELU) captured once with torch.cuda.graph, then
replayed 200 times inside NVTX `replay` (a `step N` range each, every 20th step reading a
value back with .item()); before it, the same forward run eagerly 50 times inside NVTX
`eager`. Recorded with nsys' default `--cuda-graph-trace=graph`, a replay is one graph
activity, not its kernels; with `node`, its kernels.

Usage: python gen_cuda_graph.py     (prints `cuda_graph ok replays=<n> eager_s=… replay_s=…`)
"""
import time

import torch

LAYERS, WIDTH, BATCH = 8, 2048, 4096


def main() -> None:
    torch.manual_seed(0)
    weights = [torch.randn(WIDTH, WIDTH, device="cuda", dtype=torch.bfloat16) * 0.02
               for _ in range(LAYERS)]
    x = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)

    def forward(inp: torch.Tensor) -> torch.Tensor:
        for w in weights:
            inp = torch.nn.functional.gelu(inp @ w)
        return inp

    torch.cuda.synchronize()
    started = time.perf_counter()
    with torch.cuda.nvtx.range("eager"):
        for _ in range(50):
            out = forward(x)
        torch.cuda.synchronize()
    eager_s = time.perf_counter() - started

    side = torch.cuda.Stream()  # warm up on a side stream, as graph capture asks
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            out = forward(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = forward(x)
    torch.cuda.synchronize()

    started = time.perf_counter()
    with torch.cuda.nvtx.range("replay"):
        for step in range(200):
            with torch.cuda.nvtx.range(f"step {step}"):
                graph.replay()
                if step % 20 == 19:
                    out[0, 0].item()
        torch.cuda.synchronize()
    replay_s = time.perf_counter() - started
    print(f"cuda_graph ok replays=200 eager_s={eager_s:.3f} replay_s={replay_s:.3f}",
          flush=True)


if __name__ == "__main__":
    main()

"""Phases of known character on every GPU of one host, one process per GPU (NCCL), for
nsys with the GPUs' hardware counters (`--gpu-metrics-devices=all`): NVLink throughput is
sampled only where the GPUs talk over it.

  allreduce  20 all-reduces of 256 MB (bf16) in the NVTX range `allreduce`: NVLink-bound
  compute    40 bf16 GEMMs of 8192² in the NVTX range `compute`: tensor cores, no traffic
  idle       a 200 ms host sleep in the NVTX range `idle`

Usage: torchrun --nproc_per_node=N gen_nvlink.py
"""
import os
import time

import torch
import torch.distributed as dist

if __name__ == "__main__":
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    big = torch.ones(128 * 1024 * 1024, dtype=torch.bfloat16, device="cuda")  # 256 MB
    a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda") * 0.01
    dist.all_reduce(big)  # NCCL's set-up outside the phases
    torch.cuda.synchronize()
    for _ in range(2):
        torch.cuda.nvtx.range_push("allreduce")
        for _ in range(20):
            dist.all_reduce(big)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("compute")
        for _ in range(40):
            a = a @ b
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("idle")
        time.sleep(0.2)
        torch.cuda.nvtx.range_pop()
    dist.barrier()
    dist.destroy_process_group()

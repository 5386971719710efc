"""Whole programs with no annotations at all (no NVTX range, no profiler step), as most
programs are when first put under `nsys profile`: the imports, the model's build and the
first iterations' set-up come first, then the work.

Workloads (argv[1]):
  generate  Hugging Face Llama-style model (random weights from its config: 8 layers,
            width 1024, 16 heads, 4 KV heads) in bf16, eager, `generate()` greedy of 192
            new tokens for 4 prompts of 128 tokens, 4 times: the decode launches many
            small kernels one after another from Python (launch-bound).
  vision    timm ResNet-50 trained in bf16 autocast, channels_last, SGD, 40 steps of 64
            images at 224x224, each image decoded and augmented on the host in NumPy by a
            two-worker DataLoader (~8 ms an image): the GPU waits on the loader.
  jax       a jitted JAX MLP (4 layers of 4096, bf16) trained 200 steps with SGD, each
            batch made on the host in NumPy (~4 ms: random inputs, a sort, a normalisation)
            and put on the device before the step: the GPU waits on the host's data step.
  ddp       (under torchrun, one process per GPU) an MLP (8 layers of 4096, bf16 autocast)
            trained 100 steps data-parallel (DDP, NCCL) on batches made on the GPU; the
            last rank sleeps 20 ms before each step (a slow input), so the others wait
            for it in the gradients' all-reduce. Env KINETO_WHOLE_DIR: the whole loop under
            torch.profiler with no step marked (no `prof.step()`), as a profiler put round
            a training loop records it, each rank into DIR/ddp_rankN.pt.trace.json.
  churn     an MLP (6 layers of 4096, bf16 autocast) trained 60 steps on batches of a
            different size each step (512 to 4096 rows), `torch.cuda.empty_cache()` after
            each: PyTorch's caching allocator gives its memory back and asks for it again
            (cudaFree, cudaMalloc) every step.
  decode    the `generate` model decoding as Hugging Face's guide to fast generation
            says: a static KV cache, with which `generate()` compiles the decoding forward
            itself (`torch.compile`, whose forward Inductor replays as CUDA graphs, or where
            it logs "skipping cudagraphs due to mutated inputs", launches kernel by
            kernel); greedy, 64 new tokens (env TOKENS) for 4 prompts of 128 tokens, twice
            (env ROUNDS) after a warm-up call (the compile): launch-bound by the decoding
            loop's own small kernels between the model's.
  bert      Hugging Face BERT-base (random weights from its config) fine-tuned for
            sequence classification in bf16 autocast with AdamW (PyTorch's default
            for-each steps), 60 steps of 32 sequences of 128 tokens that a two-worker
            DataLoader tokenizes on the host (~1 ms a sequence: words hashed to ids),
            the loss read with `.item()` after each step, as a training loop logs it.
            Env EMIT_NVTX=1: the loop inside `torch.autograd.profiler.emit_nvtx()`.
  split     (two GPUs, one process) an MLP of 8 layers of 4096 split by hand, its first
            4 layers on cuda:0 and the rest on cuda:1 (bf16 autocast, AdamW), trained 40
            steps on batches of 8192 made on cuda:0: the activations and their gradients
            cross between the GPUs each step, and each GPU waits while the other runs its
            half (no micro-batches). Env KINETO=FILE: steps 10-14 traced by torch.profiler
            instead (ProfilerStep#N), written to FILE as Chrome-trace JSON.
  triton    a Triton softmax kernel and a Triton matmul kernel timed with
            `triton.testing.do_bench` (its L2 flush between runs): compute on the GPU, a
            JIT compile before each kernel's first run.
  dataparallel  (two GPUs, one process) an MLP of 8 layers of 4096 wrapped in
            `torch.nn.DataParallel` over both GPUs (bf16 autocast, AdamW), 40 steps of
            batches of 8192 made on cuda:0: each step scatters the batch, copies the
            weights to the second GPU, runs a replica on each from a thread of its own and
            gathers the outputs and gradients back on cuda:0. Env KINETO=FILE: as split's.
  trainer   Hugging Face `Trainer` fine-tuning BERT-base (random weights from its config)
            on `Sentences` for 60 steps of 32 (bf16, two DataLoader workers), evaluating
            on 256 sequences every 20 steps and saving a checkpoint every 30, logging
            every 10: a training loop as the library writes it.
  cycles    an MLP trained 20 steps under `torch.profiler` with
            `schedule(wait=2, warmup=2, active=3, repeat=2)` and
            `tensorboard_trace_handler(DIR)` (env KINETO_DIR), the profiler tutorial's
            usage: two traces of one process in one folder, one a cycle. `ddp` with
            KINETO_DIR profiles so too, each rank writing its cycles (gzipped).
  amp       timm ResNet-50 trained 60 steps in fp16 autocast with `torch.amp.GradScaler`
            (its step reads whether the gradients were finite back to the host), batches
            of 64 made on the GPU.
  autotune  an MLP (4 layers of 4096, bf16 autocast) compiled with
            `torch.compile(mode="max-autotune-no-cudagraphs")` and trained 60 steps: its
            first step benchmarks Triton's GEMM templates against cuBLAS for each shape
            (thousands of kernels) before the loop runs the winners.
  infer     timm ViT-B/16 inference in bf16 (`torch.inference_mode`), 50 batches of 256
            images made on the GPU: large GEMMs back to back, the GPU kept busy.
  serve     timm ViT-B/16 in bf16 serving 300 requests of 1 to 32 images each, which
            a client thread puts on a queue every 2 to 12 ms; the serving loop takes each
            from the queue, copies it to the GPU, runs the model and reads the classes
            back (`.tolist()`): the GPU waits for requests.
  accum     Hugging Face BERT-base fine-tuned with gradient accumulation: 15 optimizer
            steps (env STEPS) (AdamW) of 8 micro-batches (env MICRO) of 8 sequences made
            on the GPU, bf16 autocast, the loss read with `.item()` at each optimizer step.
  offload   an MLP (8 layers of 4096, bf16 autocast) trained 20 steps with its optimizer
            on the CPU, as optimizer offloading does: each step copies the gradients to
            fp32 master weights on the host, takes AdamW's step there and copies the
            weights back (pageable memory, 537 MB each way).
  loader0   `vision` with its images made in the training loop's own process
            (`num_workers=0`, the DataLoader's default): 20 steps.
  shared    two processes training at once on one GPU, as two jobs or a notebook beside
            a run share one: this one starts a second (`shared_worker`), each training an
            MLP (4 layers of 4096, bf16 autocast, fused AdamW) 200 steps, both loops
            starting at one time (20 s after the first process starts).
  compiled  `accum`'s BERT-base compiled with `torch.compile` (its default mode; env
            COMPILE_MODE another, `reduce-overhead`: Inductor's CUDA graphs), 30 steps of
            32 sequences made on the GPU, one batch a step. Env KINETO=FILE: as split's.
  threads   two Python threads of one process, each serving its own model (ViT-B/16 and
            ResNet-50, bf16) on its own CUDA stream, 100 batches of 64 each, concurrently.
  prefetch  an MLP (4 layers of 4096, bf16 autocast) trained 60 steps on batches that a
            Python thread makes on the host (~15 ms each: NumPy) and hands over through
            a queue of 2: the training loop waits on the queue.
  ddp_accum (under torchrun, one process per GPU) `ddp`'s MLP trained 15 optimizer steps
            of 4 micro-batches each, the first three inside DDP's `no_sync()`: the
            gradients all-reduced once a step.
  nocache   `squares_loop`'s MLP (6 layers of 4096) trained 40 steps with PyTorch's
            caching allocator off (the recording sets PYTORCH_NO_CUDA_MEMORY_CACHING=1,
            as one does to find a memory bug): every tensor is a cudaMalloc and a
            cudaFree, and cudaFree waits for the device.
  moe       a mixture-of-experts MLP (4 layers of 8 experts of 2048x8192, top-1 routing,
            bf16 autocast, AdamW) trained 40 steps on batches of 8192 tokens made on the
            GPU, each expert's tokens picked by a boolean mask (`nonzero`): the host
            waits for the GPU to learn each expert's token count, 32 times a forward.
            Env KINETO=FILE: as split's.
  graphed   an MLP (6 layers of 1024, bf16) whose forward and backward are captured by
            `torch.cuda.make_graphed_callables` and trained 300 steps on static batches
            of 512 (SGD): each step replays two CUDA graphs and launches the optimizer.
  ep        (under torchrun, one process per GPU) expert parallelism: a mixture-of-experts
            layer of 4 experts a rank (2048x8192, bf16 autocast, AdamW), each token routed
            to one expert of any rank: its rank's tokens counts exchanged
            (`all_to_all_single`, read back to the host), the tokens and their experts' ids
            sent to their experts' ranks and the outputs sent back (uneven
            `all_to_all_single`, differentiable: the backward sends the gradients the other
            way); 30 steps of 8192 tokens made on the GPU. Env KINETO_DIR: steps 10-14 of
            each rank traced by torch.profiler into DIR/ep_rankN.pt.trace.json.
  pinned    an MLP (2 layers of 4096, bf16 autocast, fused AdamW) trained 40 steps on
            batches of 16,384 rows held in pinned host memory and copied to the GPU with
            `non_blocking=True` each step, on the step's own stream: 256 MB a step moved
            for a step's worth of compute on 4,096 of the rows.
  jax_tp    (two GPUs, one process) a jitted JAX MLP (4 layers of 8192: bf16 inputs,
            float32 weights, which a NumPy scale promotes them to) trained 100
            steps tensor-parallel over a 2-device mesh: each layer's weight split by
            columns then rows (Megatron's pattern), so XLA all-reduces the activations in
            the forward and their gradients in the backward; batches of 2048 made on the
            device. Env JAX_TRACE_DIR: after 20 steps, 5 traced by jax.profiler
            (`StepTraceAnnotation("train")`) into DIR.
  ranged    `squares_loop`'s MLP (6 layers of 4096) trained 60 steps, steps 20-29 between
            `torch.cuda.profiler.start()` and `stop()` (cudaProfilerStart/Stop), as users
            mark what `nsys profile --capture-range=cudaProfilerApi` records.
  ckpt      a GPT-style decoder (12 blocks of width 2048, 16 heads, causal
            `scaled_dot_product_attention`, bf16 autocast, fused AdamW) trained 20 steps on
            4 sequences of 4096 tokens made on the GPU, each block under activation
            checkpointing (`torch.utils.checkpoint`, non-reentrant): the forward runs
            twice, attention and GEMMs keep the GPU busy. Env KINETO=FILE: as split's;
            with KINETO_MEMORY=1 the allocator's events too, and the program prints
            torch.cuda.max_memory_allocated() over the profiled steps (10-14).
  recompile an MLP (4 layers of 4096, bf16 autocast) under `torch.compile(dynamic=False)`
            trained 60 steps on batches whose row count cycles through 6 sizes (1024 to
            6144): each new size compiles again while the GPU waits, the first 6 steps.
  tp_sp     (under torchrun, one process per GPU) a GPT-style decoder (4 blocks of width
            2048, 16 heads, bf16 autocast, AdamW) trained 30 steps tensor- and
            sequence-parallel over the ranks, as PyTorch's tensor-parallel tutorial writes
            it (`parallelize_module`: norms `SequenceParallel`, the attention's q, k, v and
            the MLP's first Linear `ColwiseParallel`, their outputs' Linear
            `RowwiseParallel(output_layouts=Shard(1))`): each block's forward all-gathers
            the sequence before its attention and its MLP and reduce-scatters after them;
            4 sequences of 4096 tokens made on the GPU, each rank holding its share of the
            sequence. Env KINETO_DIR: as ep's (tp_sp_rankN.pt.trace.json). DEVICE=cpu:
            gloo on the CPU, small sizes (a dry run).
  jax_fsdp  (two GPUs, one process) a jitted JAX MLP (4 layers of 8192: bf16 inputs,
            float32 weights, as jax_tp's) trained 100
            steps fully sharded over a 2-device mesh: each weight split by rows over the
            devices, as is each batch of 4096 made on the device, the updated weights kept
            so: XLA all-gathers each weight before its use and reduce-scatters its
            gradient. Env JAX_TRACE_DIR: as jax_tp's.
  jax_ring  (two GPUs, one process) a jitted JAX ring: under `shard_map`, each device
            holds a block of rows of an 8192x8192 bf16 matrix and passes its block of
            the other operand round the ring (`lax.ppermute`, a collective-permute) while
            it multiplies the block it holds: 100 steps of the whole product. Env
            JAX_TRACE_DIR: as jax_tp's. Env DEVICE=cpu: on the CPU, small sizes (a dry
            run; XLA_FLAGS=--xla_force_host_platform_device_count=2).
  ddp_log   (under torchrun, one process per GPU) a small MLP (2 layers of 1024: one DDP
            gradient bucket) trained 30 steps data-parallel on batches made on the GPU, each
            step's loss all-reduced and read back for logging (`dist.all_reduce` of a
            one-element tensor, `.item()`), as training loops log a global loss. Env
            KINETO_DIR: as ep's (ddp_log_rankN.pt.trace.json).
  jax_mp    (one process per GPU, env RANK of WORLD, each seeing its own GPU) a jitted JAX
            MLP (4 layers of 4096, bf16) trained 100 steps data-parallel over the processes
            (`jax.distributed.initialize`, a global mesh over both GPUs, each process
            feeding its half of the batch: XLA all-reduces the gradients), as multi-host
            JAX runs; env JAX_TRACE_DIR: steps 20-24 under jax.profiler, each process into
            DIR/rankN.
  ddp_compile (under torchrun, one process per GPU) `ddp`'s MLP (8 layers of 4096) in DDP
            under `torch.compile` (its DDPOptimizer splits the graph at the gradient
            buckets), 30 steps on batches made on the GPU. Env KINETO_DIR: as ep's
            (ddp_compile_rankN.pt.trace.json).
  fsdp_root (under torchrun, one process per GPU) an MLP (4 layers of 4096, bf16 autocast)
            sharded by FSDP2 as one unit (`fully_shard(model)` alone, no per-layer units),
            30 steps on batches made on the GPU. Env KINETO_DIR: as ep's
            (fsdp_root_rankN.pt.trace.json).
  collbench (under torchrun, one process per GPU) a collectives' benchmark measured as
            nccl-tests measures: all_reduce, all_gather_into_tensor and
            reduce_scatter_tensor of float32 buffers of 1 MiB to 256 MiB (the whole
            buffer: the all-gather's output, the reduce-scatter's input), 5 warm-up calls
            then 20 timed between two CUDA events; rank 0 prints each one's time and
            nccl-tests' algorithm and bus bandwidths (`collbench OP bytes=… time_us=…
            algbw=… busbw=…`, GB/s). Env KINETO_DIR: the whole of it under torch.profiler,
            each rank into DIR/collbench_rankN.pt.trace.json.
  sweep     (two GPUs) two trainings at once, a process a GPU, as a hyperparameter sweep
            runs them: this one starts a second (`sweep_worker`) that sees only the second
            GPU, each training an MLP of 4096 (this one 4 layers, the other 8: twice the
            work a step) 200 steps (bf16 autocast, fused AdamW), both loops starting at
            one time (20 s after the first process starts); no collective, nothing shared.
  cp        (under torchrun, one process per GPU) context parallelism: `tp_sp`'s decoder
            (4 blocks of width 2048, 16 heads, causal attention, bf16 autocast, AdamW) in
            DDP, trained 30 steps on 2 sequences of 16,384 tokens made on the GPU, each
            step under `torch.distributed.tensor.experimental.context_parallel` over a
            mesh of the ranks: the sequence split over them (round-robin for causal
            balance), each attention's keys and values passed between the ranks (env
            CP_ROTATE: PyTorch's `allgather`, the default, or `alltoall`), the gradients
            all-reduced by DDP. Env KINETO_DIR: as ep's (cp_rankN.pt.trace.json).
  jax_log   a jitted JAX MLP (4 layers of 2048, bf16, SGD) trained 300 steps on one
            batch of 256 rows on the GPU, its loss read back with `float(loss)` after each
            step, as a training loop logs it: the host waits for each step before it
            dispatches the next. Env JAX_TRACE_DIR (so jax_shapes and jax_callback too): steps
            20-24 under jax.profiler, as jax_tp's.
  jax_shapes  jax_log's step on batches of a new size each step (256 + 64*i rows, 40
            steps), as unpadded variable-length batches come: XLA compiles the step
            again for every one.
  jax_callback  jax_log's MLP (batches of 1024) whose step scales its update by a number
            computed on the host mid-step (`jax.pure_callback`, ~3 ms of NumPy on the
            gradients' norm), 200 steps: the GPU waits for the callback each step.
  tokenize  a 4-layer BERT (random weights from its config) classifying 100 batches of
            64 texts of 200 words in bf16 (`torch.inference_mode`), each batch tokenized
            in the serving loop itself by a Hugging Face fast tokenizer (WordPiece over
            the texts' words: nothing to download; padded to 512 tokens) and its classes
            read back with `.tolist()`.
  multiscale  timm ResNet-18 trained 48 steps (bf16 autocast, channels_last, SGD) on
            batches of 64 images made on the GPU at a size that cycles through 160 to 320
            pixels, with `torch.backends.cudnn.benchmark = True`: cuDNN benchmarks each
            size's convolutions on its first step.
  ddp_eval  (under torchrun, one process per GPU) an MLP (4 layers of 4096, bf16
            autocast, fused AdamW) trained 40 steps with DDP on batches made on the GPU;
            every 10 steps rank 0 alone evaluates it on 64 held-out batches (reading each
            score with `.item()`) and writes a checkpoint (`torch.save`), while the other
            rank waits in the next step's all-reduce.
  diskread  an MLP (4 layers of 4096, bf16 autocast, fused AdamW) trained 40 steps on
            batches stored as .npy files (4096x4096 float32, 64 MB), each read with
            `np.load` in the training loop after it is dropped from the page cache
            (`posix_fadvise`): the GPU waits while the host reads the disk (env DATA_DIR:
            where the files go).
  bandwidth  six LayerNorms, each followed by a GELU and a residual add, trained 30 steps
            in fp32 on activations of 8192x8192 (256 MB) made on the GPU, eager: kernels
            that move far more bytes than they compute on.
  fp32      an MLP (4 layers of 4096) trained 30 steps in fp32, no autocast and TF32 off
            (PyTorch's default for matmuls), fused AdamW: the GEMMs on the CUDA cores.
  features  a recommendation-style model (32 EmbeddingBags of 10,000 x 64 and an MLP
            on their pooled outputs beside 32 dense features, fused AdamW) trained 100
            steps on batches that are dicts of 64 small tensors (2,048 rows each) made on
            the host, each moved to the GPU by its own `.to("cuda")` from pageable memory.
  sidestream  an MLP (4 layers of 4096, bf16 autocast, fused AdamW) trained 60 steps on
            batches of 8192 rows in pinned host memory, each copied to the GPU one step
            ahead on a side stream (`non_blocking`), the step waiting on an event for it:
            the copies overlap the compute, as the guides advise.
  cpu_eval  an MLP (4 layers of 4096, bf16 autocast, fused AdamW) trained 60 steps on
            batches made on the GPU, stopping every 20 steps to evaluate a copy of it on
            the CPU (fp32, 32 batches of 256): the GPU idles through each evaluation.
  fsdp_offload  (under torchrun, one process per GPU) an MLP (8 layers of 4096) sharded
            by FSDP2 layer by layer with `CPUOffloadPolicy`: parameters, gradients and
            AdamW's state on the CPU, each layer's shard copied to the GPU before its
            all-gather and its gradients back after the reduce-scatter; 30 steps (env
            STEPS) of 4096 rows in bf16 autocast.
  ddp_gather  (under torchrun, one process per GPU) `ddp_eval`'s MLP trained 40 steps with
            DDP, each step's loss gathered to every rank with `all_gather_object` (a
            dict holding the loss tensor: pickled, its size exchanged, copied to the host).
  graphbreak  an MLP (4 layers of 4096, bf16 autocast, fused AdamW) under `torch.compile`,
            its forward branching on a value it reads back mid-forward (a graph break), 60
            steps on batches made on the GPU.
  ddp_barrier  (under torchrun, one process per GPU) `ddp_eval`'s MLP trained 40 steps with
            DDP, `dist.barrier()` after each step, the last rank sleeping 10 ms a step.

Usage: python gen_unannotated.py WORKLOAD
Prints `<workload> ok work_s=<seconds> ...`.
"""
import contextlib
import functools
import os
import sys
import time
from collections.abc import Callable

import numpy as np
import torch


def squares_step(model: torch.nn.Module, opt: torch.optim.Optimizer,
                 x: torch.Tensor) -> torch.Tensor:
    """One training step of the MLP workloads in bf16 autocast: the mean square of the
    output as the loss, backward, the optimizer's step; the loss."""
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


def squares_loop(model: torch.nn.Module, opt: torch.optim.Optimizer, steps: int) -> float:
    """`steps` of squares_step on batches of 4096x4096 made on the GPU; the seconds they
    took, the GPU's work included."""
    start = time.perf_counter()
    for _ in range(steps):
        x = torch.randn(4096, 4096, device="cuda")
        squares_step(model, opt, x)
    torch.cuda.synchronize()
    return time.perf_counter() - start


def llama() -> torch.nn.Module:
    """The Llama-style model of `generate` and `decode`: random weights from its config, bf16."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
                         max_position_embeddings=1024)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).to(torch.bfloat16).cuda().eval()
    return model


def generate() -> str:
    model = llama()
    prompts = torch.randint(3, 32000, (4, 128), device="cuda")
    rounds = int(os.environ.get("ROUNDS", "4"))
    start = time.perf_counter()
    with torch.inference_mode():
        for _ in range(rounds):
            out = model.generate(prompts, attention_mask=torch.ones_like(prompts),
                                 max_new_tokens=192, min_new_tokens=192, do_sample=False,
                                 pad_token_id=0)
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} tokens={out.shape[1] - 128}"


def decode() -> str:
    model = llama()
    # a static cache: generate() compiles the decoding forward itself (compiled by hand
    # with mode="reduce-overhead" instead, the graphs' outputs were read after being
    # overwritten: the cache mutates an input)
    model.generation_config.cache_implementation = "static"
    prompts = torch.randint(3, 32000, (4, 128), device="cuda")
    tokens = int(os.environ.get("TOKENS", "64"))

    def one_call() -> torch.Tensor:
        return model.generate(prompts, attention_mask=torch.ones_like(prompts),
                              max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False,
                              pad_token_id=0)

    with torch.inference_mode():
        one_call()  # the compile
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(int(os.environ.get("ROUNDS", "2"))):
            out = one_call()
    torch.cuda.synchronize()
    compiled = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    return (f"work_s={time.perf_counter() - start:.2f} tokens={out.shape[1] - 128} "
            f"compiled_graphs={compiled}")


class Images(torch.utils.data.Dataset):
    """Each image 'decoded' (a random 256x256 RGB array from its index) and augmented on
    the host: a random crop to 224, a flip, a colour jitter and normalisation in float32."""

    def __len__(self) -> int:
        return 1 << 20

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        rng = np.random.default_rng(index)
        image = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
        y, x = rng.integers(0, 32, 2)
        crop = image[y:y + 224, x:x + 224].astype(np.float32) / 255.0
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        for _ in range(3):  # jitter: brightness, contrast, saturation
            crop = np.clip(crop * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1), 0, 1)
        crop = (crop - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
        chw = np.ascontiguousarray(crop.transpose(2, 0, 1), np.float32)
        return torch.from_numpy(chw), index % 1000


def vision() -> str:
    import timm

    model = timm.create_model("resnet50", num_classes=1000).cuda().to(
        memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    workers = int(os.environ.get("WORKERS", "2"))
    loader = torch.utils.data.DataLoader(Images(), batch_size=64, num_workers=workers,
                                         pin_memory=True, shuffle=False)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        images = images.cuda(non_blocking=True).to(memory_format=torch.channels_last)
        labels = labels.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


class Sentences(torch.utils.data.Dataset):
    """Each sequence 'tokenized' on the host: random words hashed to ids, padded to 128
    tokens with its attention mask, and a label."""

    def __len__(self) -> int:
        return 1 << 20

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        rng = np.random.default_rng(index)
        words = ["".join(rng.choice(list("abcdefghij"), rng.integers(2, 9)))
                 for _ in range(rng.integers(32, 127))]
        ids = [101] + [1000 + hash(w) % 28000 for w in words] + [102]
        mask = [1] * len(ids) + [0] * (128 - len(ids))
        ids += [0] * (128 - len(ids))
        return torch.tensor(ids), torch.tensor(mask), index % 4


def bert() -> str:
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(num_labels=4)).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    loader = torch.utils.data.DataLoader(Sentences(), batch_size=32, num_workers=2,
                                         pin_memory=True, shuffle=False)
    steps = int(os.environ.get("STEPS", "60"))
    losses = []
    # EMIT_NVTX=1: an NVTX range around every op, as PyTorch's docs advise for nsys
    ranges = (torch.autograd.profiler.emit_nvtx() if os.environ.get("EMIT_NVTX")
              else contextlib.nullcontext())
    start = time.perf_counter()
    with ranges:
        for step, (ids, mask, labels) in enumerate(loader):
            if step == steps:
                break
            ids, mask = ids.cuda(non_blocking=True), mask.cuda(non_blocking=True)
            labels = labels.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss.item())  # logged each step: a wait on the GPU
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={losses[-1]:.3f}"


def steps_profiler() -> contextlib.AbstractContextManager:
    """With env KINETO=FILE, torch.profiler over steps 10-14 (ProfilerStep#N), written to
    FILE as Chrome-trace JSON (env KINETO_MEMORY=1: with the allocator's events,
    profile_memory); else nothing (None as the profiler)."""
    kineto = os.environ.get("KINETO")
    if not kineto:
        return contextlib.nullcontext(None)
    from torch.profiler import ProfilerActivity, profile, schedule

    # env KINETO_CUDA_ONLY=1: the GPU's activities alone (activities=[CUDA]), as some record
    cuda_only = bool(os.environ.get("KINETO_CUDA_ONLY"))
    return profile(activities=[ProfilerActivity.CUDA] if cuda_only
                   else [ProfilerActivity.CPU, ProfilerActivity.CUDA],
                   schedule=schedule(wait=8, warmup=2, active=5, repeat=1),
                   profile_memory=bool(os.environ.get("KINETO_MEMORY")),
                   on_trace_ready=lambda p: p.export_chrome_trace(kineto))


def split() -> str:
    torch.manual_seed(0)

    def half(device: str) -> torch.nn.Module:
        layers = []
        for _ in range(4):
            layers += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
        return torch.nn.Sequential(*layers).to(device)

    first, second = half("cuda:0"), half("cuda:1")
    opt = torch.optim.AdamW([*first.parameters(), *second.parameters()], lr=1e-4)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            x = torch.randn(8192, 4096, device="cuda:0")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = second(first(x).to("cuda:1")).float().pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if prof is not None:
                prof.step()
    for device in ("cuda:0", "cuda:1"):
        torch.cuda.synchronize(device)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def triton_kernels() -> str:
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, stride, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + offs, mask=offs < cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=offs < cols)

    @triton.jit
    def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))

    x = torch.randn(8192, 4096, device="cuda")
    y = torch.empty_like(x)
    soft = triton.testing.do_bench(
        lambda: softmax_kernel[(8192,)](y, x, x.stride(0), 4096, BLOCK=4096), rep=2000)
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    mm = triton.testing.do_bench(
        lambda: matmul_kernel[(n // 128, n // 128)](a, b, c, n, n, n, BM=128, BN=128, BK=64),
        rep=2000)
    torch.testing.assert_close(c.float(), (a.float() @ b.float()), atol=1, rtol=0.05)
    return f"softmax_ms={soft:.3f} matmul_ms={mm:.3f}"


def ddp() -> str:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = int(os.environ.get("LOCAL_RANK", rank))  # 0 where each rank sees one GPU
    torch.cuda.set_device(device)
    torch.manual_seed(0)
    layers = []
    for _ in range(8):
        layers += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
    model = DistributedDataParallel(torch.nn.Sequential(*layers).cuda(), device_ids=[device])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "100"))
    profiler: contextlib.AbstractContextManager = contextlib.nullcontext(None)
    if os.environ.get("KINETO_WHOLE_DIR"):  # the whole loop, no step marked (no prof.step())
        from torch.profiler import ProfilerActivity, profile

        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    elif os.environ.get("KINETO_DIR"):  # as `cycles`, each rank a file a cycle
        from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                           schedule=schedule(wait=2, warmup=2, active=3, repeat=2),
                           on_trace_ready=tensorboard_trace_handler(
                               os.environ["KINETO_DIR"], use_gzip=True))
    start = time.perf_counter()
    with profiler as prof:
        for _ in range(steps):
            if rank == world - 1:
                time.sleep(0.02)  # a slow input on the last rank
            x = torch.randn(256, 4096, device="cuda")
            squares_step(model, opt, x)
            if prof is not None and not os.environ.get("KINETO_WHOLE_DIR"):
                prof.step()
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    if prof is not None and os.environ.get("KINETO_WHOLE_DIR"):
        prof.export_chrome_trace(os.path.join(os.environ["KINETO_WHOLE_DIR"],
                                              f"ddp_rank{rank}.pt.trace.json"))
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps}"


def churn() -> str:
    torch.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    rng = np.random.default_rng(0)
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for _ in range(steps):
        rows = int(rng.integers(512, 4097))
        x = torch.randn(rows, 4096, device="cuda")
        loss = squares_step(model, opt, x)
        del x, loss
        torch.cuda.empty_cache()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def jax_train() -> str:
    import jax
    import jax.numpy as jnp

    params, loss = jax_mlp(4096)

    @jax.jit
    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)

    rng = np.random.default_rng(0)

    def batch() -> tuple:
        x = rng.standard_normal((512, 4096), dtype=np.float32)
        x = np.sort(x, axis=1)
        x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
        return (jax.device_put(x.astype(jnp.bfloat16)),
                jax.device_put(x[:, ::-1].astype(jnp.bfloat16)))

    steps = int(os.environ.get("STEPS", "200"))
    start = time.perf_counter()
    for _ in range(steps):
        params = step(params, *batch())
    jax.block_until_ready(params)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def mlp(layers: int = 8) -> torch.nn.Sequential:
    """An MLP of `layers` Linear(4096, 4096) and GELU pairs, on the CPU."""
    torch.manual_seed(0)
    parts: list[torch.nn.Module] = []
    for _ in range(layers):
        parts += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
    return torch.nn.Sequential(*parts)


def dataparallel() -> str:
    model = torch.nn.DataParallel(mlp().cuda(0), device_ids=[0, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            x = torch.randn(8192, 4096, device="cuda:0")
            squares_step(model, opt, x)
            if prof is not None:
                prof.step()
    for device in ("cuda:0", "cuda:1"):
        torch.cuda.synchronize(device)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


class LabelledSentences(torch.utils.data.Dataset):
    """`Sentences` as the dicts a Hugging Face model takes."""

    def __init__(self, size: int) -> None:
        self.size, self.sentences = size, Sentences()

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        ids, mask, label = self.sentences[index]
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor(label)}


def trainer() -> str:
    import tempfile

    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(num_labels=4))
    steps = int(os.environ.get("STEPS", "60"))
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(), max_steps=steps, per_device_train_batch_size=32,
        per_device_eval_batch_size=64, bf16=True, dataloader_num_workers=2,
        eval_strategy="steps", eval_steps=20, save_strategy="steps", save_steps=30,
        logging_steps=10, report_to=[], disable_tqdm=True)
    run = Trainer(model=model, args=args, train_dataset=LabelledSentences(1 << 16),
                  eval_dataset=LabelledSentences(256))
    start = time.perf_counter()
    result = run.train()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={result.training_loss:.3f}"


def cycles() -> str:
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    folder = os.environ["KINETO_DIR"]
    start = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=2, warmup=2, active=3, repeat=2),
                 on_trace_ready=tensorboard_trace_handler(folder)) as prof:
        for _ in range(20):
            x = torch.randn(4096, 4096, device="cuda")
            loss = squares_step(model, opt, x)
            loss.item()
            prof.step()
    return f"work_s={time.perf_counter() - start:.2f} traces={len(os.listdir(folder))}"


def amp() -> str:
    import timm

    torch.manual_seed(0)
    model = timm.create_model("resnet50", num_classes=1000).cuda().to(
        memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for _ in range(steps):
        images = torch.randn(64, 3, 224, 224, device="cuda").to(
            memory_format=torch.channels_last)
        labels = torch.randint(0, 1000, (64,), device="cuda")
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} scale={scaler.get_scale()}"


def autotune() -> str:
    model = torch.compile(mlp(4).cuda(), mode="max-autotune-no-cudagraphs")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "60"))
    return f"work_s={squares_loop(model, opt, steps):.2f} steps={steps}"


def infer() -> str:
    import timm

    torch.manual_seed(0)
    model = timm.create_model("vit_base_patch16_224").cuda().to(torch.bfloat16).eval()
    steps = int(os.environ.get("STEPS", "50"))
    start = time.perf_counter()
    with torch.inference_mode():
        for _ in range(steps):
            images = torch.randn(256, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
            model(images).argmax(-1)
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def serve() -> str:
    import queue
    import random
    import threading

    import timm

    torch.manual_seed(0)
    model = timm.create_model("vit_base_patch16_224").cuda().to(torch.bfloat16).eval()
    requests: queue.Queue = queue.Queue()
    count = int(os.environ.get("REQUESTS", "300"))

    def client() -> None:
        rng = random.Random(0)
        for _ in range(count):
            time.sleep(rng.uniform(0.002, 0.012))
            requests.put(torch.randn(rng.randint(1, 32), 3, 224, 224))
        requests.put(None)

    threading.Thread(target=client, daemon=True).start()
    served = 0
    start = time.perf_counter()
    with torch.inference_mode():
        while (batch := requests.get()) is not None:
            images = batch.to("cuda", torch.bfloat16)
            served += len(model(images).argmax(-1).tolist())
    return f"work_s={time.perf_counter() - start:.2f} requests={count} images={served}"


def accum() -> str:
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(num_labels=4)).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    steps, micro = int(os.environ.get("STEPS", "15")), int(os.environ.get("MICRO", "8"))
    start = time.perf_counter()
    for _ in range(steps):
        total = torch.zeros((), device="cuda")
        for _ in range(micro):
            ids = torch.randint(1000, 29000, (8, 128), device="cuda")
            labels = torch.randint(0, 4, (8,), device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=labels).loss / micro
            loss.backward()
            total += loss.detach()
        opt.step()
        opt.zero_grad(set_to_none=True)
        logged = total.item()  # logged each optimizer step: a wait on the GPU
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={logged:.3f}"


def offload() -> str:
    model = mlp().cuda()
    master = [p.detach().cpu().clone().requires_grad_() for p in model.parameters()]
    opt = torch.optim.AdamW(master, lr=1e-4)
    steps = int(os.environ.get("STEPS", "20"))
    start = time.perf_counter()
    for _ in range(steps):
        x = torch.randn(4096, 4096, device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        for weight, copy in zip(model.parameters(), master, strict=True):
            copy.grad = weight.grad.to("cpu")
            weight.grad = None
        opt.step()
        with torch.no_grad():
            for weight, copy in zip(model.parameters(), master, strict=True):
                weight.copy_(copy)
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def shared() -> str:
    import subprocess

    # both loops start at one time, after both set-ups
    os.environ["START_AT"] = str(time.time() + 20)
    other = subprocess.Popen([sys.executable, __file__, "shared_worker"])
    mine = shared_worker()
    return f"{mine} other_rc={other.wait()}"


def shared_worker() -> str:
    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "200"))
    time.sleep(max(0.0, float(os.environ.get("START_AT", "0")) - time.time()))
    return f"pid={os.getpid()} work_s={squares_loop(model, opt, steps):.2f} steps={steps}"


def collective(op: str, whole: torch.Tensor, part: torch.Tensor) -> None:
    """collbench's call `op` on a rank: `whole` all-reduced, all-gathered into from `part`,
    or reduce-scattered into `part`."""
    import torch.distributed as dist

    if op == "all_reduce":
        dist.all_reduce(whole)
    elif op == "all_gather":
        dist.all_gather_into_tensor(whole, part)
    else:
        dist.reduce_scatter_tensor(part, whole)


def collbench() -> str:
    import torch.distributed as dist

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    profiler: contextlib.AbstractContextManager = contextlib.nullcontext()
    if os.environ.get("KINETO_DIR"):
        from torch.profiler import ProfilerActivity, profile

        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    # nccl-tests' bus bandwidth factors (its doc/PERFORMANCE.md)
    factors = {"all_reduce": 2 * (world - 1) / world, "all_gather": (world - 1) / world,
               "reduce_scatter": (world - 1) / world}
    with profiler as prof:
        for op, factor in factors.items():
            for size in (1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28):
                whole = torch.ones(size // 4, device="cuda")
                part = torch.ones(size // 4 // world, device="cuda")
                call = functools.partial(collective, op, whole, part)
                for _ in range(5):
                    call()
                torch.cuda.synchronize()
                dist.barrier()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
                    enable_timing=True)
                start.record()
                for _ in range(20):
                    call()
                end.record()
                end.synchronize()
                seconds = start.elapsed_time(end) / 1e3 / 20
                algbw = size / seconds / 1e9
                if rank == 0:
                    print(f"collbench {op} bytes={size} time_us={seconds * 1e6:.1f} "
                          f"algbw={algbw:.2f} busbw={algbw * factor:.2f}", flush=True)
    if prof is not None:
        prof.export_chrome_trace(os.path.join(os.environ["KINETO_DIR"],
                                              f"collbench_rank{rank}.pt.trace.json"))
    dist.destroy_process_group()
    return f"rank={rank}"


def sweep() -> str:
    import subprocess

    os.environ["START_AT"] = str(time.time() + 20)  # both loops start at one time
    second = os.environ.get("CUDA_VISIBLE_DEVICES", "0,1").split(",")[-1]
    other = subprocess.Popen([sys.executable, __file__, "sweep_worker"],
                             env={**os.environ, "CUDA_VISIBLE_DEVICES": second,
                                  "LAYERS": "8"})
    mine = sweep_worker()
    return f"{mine} other_rc={other.wait()}"


def sweep_worker() -> str:
    torch.cuda.set_device(0)  # the first GPU this process sees
    model = mlp(int(os.environ.get("LAYERS", "4"))).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "200"))
    time.sleep(max(0.0, float(os.environ.get("START_AT", "0")) - time.time()))
    return f"pid={os.getpid()} work_s={squares_loop(model, opt, steps):.2f} steps={steps}"


def compiled() -> str:
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(num_labels=4)).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    step_model = torch.compile(model, mode=os.environ.get("COMPILE_MODE") or None)
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            ids = torch.randint(1000, 29000, (32, 128), device="cuda")
            labels = torch.randint(0, 4, (32,), device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = step_model(input_ids=ids, labels=labels).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={loss.item():.3f}"


def ddp_accum() -> str:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    model = DistributedDataParallel(mlp().cuda(), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps, micro = int(os.environ.get("STEPS", "15")), 4
    start = time.perf_counter()
    for _ in range(steps):
        for index in range(micro):
            x = torch.randn(1024, 4096, device="cuda")
            with contextlib.nullcontext() if index == micro - 1 else model.no_sync():
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(x).float().pow(2).mean() / micro
                loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps}"


def threads() -> str:
    import threading

    import timm

    torch.manual_seed(0)
    done: dict[str, int] = {}

    def serve(name: str) -> None:
        model = timm.create_model(name).cuda().to(torch.bfloat16).eval()
        stream = torch.cuda.Stream()
        with torch.inference_mode(), torch.cuda.stream(stream):
            for _ in range(100):
                images = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
                model(images).argmax(-1)
        stream.synchronize()
        done[name] = 100

    start = time.perf_counter()
    workers = [threading.Thread(target=serve, args=(name,))
               for name in ("vit_base_patch16_224", "resnet50")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return f"work_s={time.perf_counter() - start:.2f} batches={sum(done.values())}"


def prefetch() -> str:
    import queue
    import threading

    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "60"))
    batches: queue.Queue = queue.Queue(maxsize=2)

    def make() -> None:
        rng = np.random.default_rng(0)
        for _ in range(steps):
            x = rng.standard_normal((1024, 4096), dtype=np.float32)
            x = np.sort(x, axis=1)  # host work: ~15 ms a batch
            batches.put(torch.from_numpy(x))

    threading.Thread(target=make, daemon=True).start()
    start = time.perf_counter()
    for _ in range(steps):
        x = batches.get().cuda(non_blocking=True)
        squares_step(model, opt, x)
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def nocache() -> str:
    steps = int(os.environ.get("STEPS", "40"))
    model = mlp(6).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    return f"work_s={squares_loop(model, opt, steps):.2f} steps={steps}"


class Experts(torch.nn.Module):
    """One mixture-of-experts layer: a router picks one of `count` expert MLPs a token;
    each expert runs on its tokens, found by a mask (a device-to-host sync each)."""

    def __init__(self, width: int = 2048, hidden: int = 8192, count: int = 8) -> None:
        super().__init__()
        self.router = torch.nn.Linear(width, count)
        self.experts = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.GELU(),
                                torch.nn.Linear(hidden, width)) for _ in range(count))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, choice = self.router(x).softmax(-1).max(-1)
        out = torch.zeros_like(x)
        for index, expert in enumerate(self.experts):
            rows = (choice == index).nonzero().squeeze(1)  # the host waits for the count
            out[rows] = expert(x[rows]) * weight[rows, None].to(x.dtype)
        return x + out


def moe() -> str:
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Experts() for _ in range(4)]).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            x = torch.randn(8192, 2048, device="cuda")
            squares_step(model, opt, x)
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def graphed() -> str:
    torch.manual_seed(0)
    parts: list[torch.nn.Module] = []
    for _ in range(6):
        parts += [torch.nn.Linear(1024, 1024), torch.nn.GELU()]
    model = torch.nn.Sequential(*parts).cuda().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, 1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    model = torch.cuda.make_graphed_callables(model, (x,))
    steps = int(os.environ.get("STEPS", "300"))
    start = time.perf_counter()
    for _ in range(steps):
        x.data.normal_()
        loss = model(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def ep() -> str:
    import torch.distributed as dist
    from torch.distributed.nn.functional import all_to_all_single

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    torch.manual_seed(rank)
    width, local = 2048, 4
    experts = Experts(width, 8192, local).experts.cuda()  # this rank's share of them
    torch.manual_seed(0)
    router = torch.nn.Linear(width, local * world).cuda()  # the same on every rank
    opt = torch.optim.AdamW([*experts.parameters(), *router.parameters()], lr=1e-4,
                            fused=True)
    if os.environ.get("KINETO_DIR"):
        os.environ["KINETO"] = os.path.join(os.environ["KINETO_DIR"],
                                            f"ep_rank{rank}.pt.trace.json")
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            x = torch.randn(8192, width, device="cuda")
            weight, choice = router(x).softmax(-1).max(-1)
            order = choice.argsort()
            counts = torch.bincount(choice[order] // local, minlength=world)
            received = torch.empty_like(counts)
            dist.all_to_all_single(received, counts)
            send, recv = counts.tolist(), received.tolist()  # the host waits for them
            ids = torch.empty(sum(recv), dtype=choice.dtype, device="cuda")
            dist.all_to_all_single(ids, choice[order].contiguous(), recv, send)
            tokens = all_to_all_single(torch.empty(sum(recv), width, device="cuda"),
                                       x[order], recv, send)
            out = torch.zeros_like(tokens)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                for index, expert in enumerate(experts):
                    rows = (ids % local == index).nonzero().squeeze(1)
                    out = out.index_add(0, rows, expert(tokens[rows]).float())
            back = all_to_all_single(torch.empty(len(order), width, device="cuda"),
                                     out, send, recv)
            y = torch.empty_like(back).index_copy(0, order, back) * weight[:, None]
            loss = y.pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps}"


def pinned() -> str:
    model = mlp(2).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    batches = [torch.randn(16384, 4096).pin_memory() for _ in range(2)]
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    for i in range(steps):
        x = batches[i % 2].cuda(non_blocking=True)
        squares_step(model, opt, x[:4096])
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def square_weights(width: int, placed: list, scale: float) -> tuple[list, object]:
    """jax_tp's, jax_fsdp's and jax_mp's weights: a width x width matrix of bf16 normals
    over `scale` for each sharding of `placed`, put there, drawn from PRNGKey(0) one split
    at a time; and the key left after them. A NumPy `scale` (np.sqrt) promotes the weights
    to float32, a Python float keeps them bf16."""
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    params = []
    for sharding in placed:
        key, k = jax.random.split(key)
        params.append(jax.device_put(
            jax.random.normal(k, (width, width), jnp.bfloat16) / scale, sharding))
    return params, key


def square_mlp_loss(params: list, x):
    """The mean square of the MLP of `params` (GELU after each) on `x`, in float32."""
    import jax
    import jax.numpy as jnp

    for w in params:
        x = jax.nn.gelu(x @ w)
    return jnp.mean(x.astype(jnp.float32) ** 2)


def jax_tp() -> str:
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:2]), ("model",))
    columns = NamedSharding(mesh, PartitionSpec(None, "model"))
    rows = NamedSharding(mesh, PartitionSpec("model", None))
    params, key = square_weights(8192, [columns, rows, columns, rows], np.sqrt(8192))

    @jax.jit
    def step(params, key):
        x = jax.random.normal(key, (2048, 8192), jnp.bfloat16)
        grads = jax.grad(square_mlp_loss)(params, x)
        return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)

    steps = int(os.environ.get("STEPS", "100"))
    start = time.perf_counter()
    jax_steps(step, params, key, steps)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def ranged() -> str:
    model = mlp(6).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for i in range(steps):
        if i == 20:
            torch.cuda.profiler.start()
        squares_step(model, opt, torch.randn(4096, 4096, device="cuda"))
        if i == 29:
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


class Block(torch.nn.Module):
    """A pre-norm decoder block: causal self-attention, then a GELU MLP of 4x the width."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.qkv, self.proj = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).unbind(2)
        y = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


def ckpt() -> str:
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    blocks = torch.nn.ModuleList(Block(2048, 16) for _ in range(12)).cuda()
    opt = torch.optim.AdamW(blocks.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "20"))
    start = time.perf_counter()
    peak = None
    with steps_profiler() as prof:
        for i in range(steps):
            if prof is not None and i == 10:  # the profiled steps' own peak, as torch sees it
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            x = torch.randn(4, 4096, 2048, device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                for block in blocks:
                    x = checkpoint(block, x, use_reentrant=False)
                loss = x.float().pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if prof is not None and i == 14:
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated()
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    return (f"work_s={time.perf_counter() - start:.2f} steps={steps}"
            + (f" max_memory_allocated_steps_10_14={peak}" if peak is not None else ""))


def recompile() -> str:
    model = torch.compile(mlp(4).cuda(), dynamic=False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for i in range(steps):
        squares_step(model, opt, torch.randn(1024 * (1 + i % 6), 4096, device="cuda"))
    torch.cuda.synchronize()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


class Attention(torch.nn.Module):
    """Causal self-attention with its q, k, v and output Linears named apart, as a
    tensor-parallel plan names them; as many heads as its q Linear's output gives."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.head_dim = width // heads
        self.q, self.k, self.v, self.o = (torch.nn.Linear(width, width, bias=False)
                                          for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t = x.shape[0], x.shape[1]
        q, k, v = (f(x).view(b, t, -1, self.head_dim).transpose(1, 2)
                   for f in (self.q, self.k, self.v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(b, t, -1))


class FeedForward(torch.nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.nn.functional.gelu(self.up(x)))


class SequenceBlock(torch.nn.Module):
    """A pre-norm decoder block of Attention and FeedForward."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.attn, self.mlp = Attention(width, heads), FeedForward(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def tp_sp() -> str:
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        PrepareModuleInput,
        RowwiseParallel,
        SequenceParallel,
        parallelize_module,
    )

    cpu = os.environ.get("DEVICE") == "cpu"
    dist.init_process_group("gloo" if cpu else "nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = "cpu" if cpu else "cuda"
    if not cpu:
        torch.cuda.set_device(rank)
    width, tokens = (256, 64) if cpu else (2048, 4096)
    mesh = init_device_mesh(device, (world,))
    torch.manual_seed(0)
    blocks = torch.nn.ModuleList(SequenceBlock(width, 16) for _ in range(4)).to(device)
    # PyTorch's tensor-parallel tutorial's plan (its Llama's): the sequence gathered once
    # before the attention and the MLP, their outputs reduce-scattered back to shards
    gathered = PrepareModuleInput(input_layouts=(Shard(1),),
                                  desired_input_layouts=(Replicate(),))
    for block in blocks:
        parallelize_module(block, mesh, {
            "norm1": SequenceParallel(), "norm2": SequenceParallel(),
            "attn": gathered, "attn.q": ColwiseParallel(), "attn.k": ColwiseParallel(),
            "attn.v": ColwiseParallel(), "attn.o": RowwiseParallel(output_layouts=Shard(1)),
            "mlp": gathered, "mlp.up": ColwiseParallel(),
            "mlp.down": RowwiseParallel(output_layouts=Shard(1)),
        })
    opt = torch.optim.AdamW(blocks.parameters(), lr=1e-4)
    if os.environ.get("KINETO_DIR"):
        os.environ["KINETO"] = os.path.join(os.environ["KINETO_DIR"],
                                            f"tp_sp_rank{rank}.pt.trace.json")
    steps = int(os.environ.get("STEPS", "30"))
    torch.manual_seed(rank)
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            x = torch.randn(4, tokens // world, width, device=device)  # this rank's share
            with torch.autocast(device, dtype=torch.bfloat16, enabled=not cpu):
                for block in blocks:
                    x = block(x)
                loss = x.float().pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if prof is not None:
                prof.step()
    if not cpu:
        torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps} loss={loss.item():.4f}"


def jax_steps(step, state, key, steps: int) -> None:
    """`steps` of `state = step(state, k)`, the 20th to the 24th under jax.profiler
    (`StepTraceAnnotation("train")`) where env JAX_TRACE_DIR names a folder."""
    import jax

    for i in range(steps):
        with jax_traced_step(i, state):
            key, k = jax.random.split(key)
            state = step(state, k)
        jax_trace_ends(i, state)
    jax.block_until_ready(state)


def jax_traced_step(i: int, state) -> contextlib.AbstractContextManager:
    """Step `i` inside `StepTraceAnnotation("train")`, jax.profiler started before the
    20th (once `state` is ready) where env JAX_TRACE_DIR names a folder; jax_trace_ends
    stops it after the 24th."""
    import jax

    traced = os.environ.get("JAX_TRACE_DIR")
    if traced and i == 20:
        jax.block_until_ready(state)
        jax.profiler.start_trace(traced, create_perfetto_trace=True)
    return jax.profiler.StepTraceAnnotation("train", step_num=i)


def jax_trace_ends(i: int, state) -> None:
    """After step `i`: jax.profiler stopped after the 24th, once `state` is ready."""
    import jax

    if os.environ.get("JAX_TRACE_DIR") and i == 24:
        jax.block_until_ready(state)
        jax.profiler.stop_trace()


def jax_fsdp() -> str:
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    cpu = os.environ.get("DEVICE") == "cpu"
    width, rows = (512, 256) if cpu else (8192, 4096)
    mesh = Mesh(np.array(jax.devices()[:2]), ("fsdp",))
    sharded = NamedSharding(mesh, PartitionSpec("fsdp", None))
    params, key = square_weights(width, [sharded] * 4, np.sqrt(width))

    @jax.jit
    def step(params, key):
        x = jax.lax.with_sharding_constraint(
            jax.random.normal(key, (rows, width), jnp.bfloat16), sharded)
        grads = jax.grad(square_mlp_loss)(params, x)
        return [jax.lax.with_sharding_constraint(p - 1e-3 * g, sharded)
                for p, g in zip(params, grads, strict=True)]

    steps = int(os.environ.get("STEPS", "100"))
    start = time.perf_counter()
    jax_steps(step, params, key, steps)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def jax_ring() -> str:
    from functools import partial

    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    try:
        from jax import shard_map
    except ImportError:  # JAX before 0.7
        from jax.experimental.shard_map import shard_map

    cpu = os.environ.get("DEVICE") == "cpu"
    size = 512 if cpu else 8192
    count = 2
    mesh = Mesh(np.array(jax.devices()[:count]), ("ring",))
    rows = NamedSharding(mesh, PartitionSpec("ring", None))
    a = jax.device_put(jax.random.normal(jax.random.PRNGKey(0), (size, size), jnp.bfloat16),
                       rows)
    b = jax.device_put(jax.random.normal(jax.random.PRNGKey(1), (size, size), jnp.bfloat16),
                       rows)

    @partial(shard_map, mesh=mesh, in_specs=(PartitionSpec("ring", None),) * 2,
             out_specs=PartitionSpec("ring", None))
    def ring_matmul(a, b):
        # a: this device's rows of A; b: a block of B's rows, passed round the ring
        index = jax.lax.axis_index("ring")
        block = a.shape[1] // count
        out = jnp.zeros((a.shape[0], b.shape[1]), jnp.float32)
        for turn in range(count):
            source = (index + turn) % count  # which block of B's rows this device holds
            part = jax.lax.dynamic_slice_in_dim(a, source * block, block, axis=1)
            out = out + jnp.dot(part, b, preferred_element_type=jnp.float32)
            b = jax.lax.ppermute(b, "ring", [(i, (i - 1) % count) for i in range(count)])
        return out.astype(a.dtype)

    @jax.jit
    def step(state, key):
        a, b = state
        c = ring_matmul(a, b)
        return a, jax.lax.with_sharding_constraint(c / jnp.sqrt(float(size)), rows)

    steps = int(os.environ.get("STEPS", "100"))
    start = time.perf_counter()
    jax_steps(step, (a, b), jax.random.PRNGKey(2), steps)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def ddp_log() -> str:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.GELU(),
                            torch.nn.Linear(1024, 1024)).cuda(), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    if os.environ.get("KINETO_DIR"):
        os.environ["KINETO"] = os.path.join(os.environ["KINETO_DIR"],
                                            f"ddp_log_rank{rank}.pt.trace.json")
    steps = int(os.environ.get("STEPS", "30"))
    logged = []
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            loss = squares_step(model, opt, torch.randn(4096, 1024, device="cuda"))
            total = loss.detach().clone()
            dist.all_reduce(total)  # the global loss, for the log
            logged.append(total.item() / world)
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps} loss={logged[-1]:.4f}"


def jax_mp() -> str:
    import jax

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD"])
    jax.distributed.initialize(coordinator_address="localhost:12355", num_processes=world,
                               process_id=rank)
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()), ("data",))
    batch = NamedSharding(mesh, PartitionSpec("data", None))
    replicated = NamedSharding(mesh, PartitionSpec())
    params, _key = square_weights(4096, [replicated] * 4, 64.0)

    @jax.jit
    def step(params, x):
        grads = jax.grad(square_mlp_loss)(params, x)
        return [p - 1e-3 * g for p, g in zip(params, grads, strict=True)]

    local = jax.local_devices()[0]
    rows = 4096 // world

    def batch_of(i: int):
        part = jax.device_put(jax.random.normal(jax.random.PRNGKey(i * world + rank),
                                                (rows, 4096), jnp.bfloat16), local)
        return jax.make_array_from_single_device_arrays((4096, 4096), batch, [part])

    steps = int(os.environ.get("STEPS", "100"))
    traced = os.environ.get("JAX_TRACE_DIR")
    start = time.perf_counter()
    for i in range(steps):
        if traced and i == 20:
            jax.block_until_ready(params)
            jax.profiler.start_trace(os.path.join(traced, f"rank{rank}"))
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            params = step(params, batch_of(i))
        if traced and i == 24:
            jax.block_until_ready(params)
            jax.profiler.stop_trace()
    jax.block_until_ready(params)
    return f"rank={rank} work_s={time.perf_counter() - start:.2f} steps={steps}"


def rank_squares(name: str, rank: int, model: torch.nn.Module, opt: torch.optim.Optimizer,
                 rows: int) -> str:
    """A rank's `STEPS` (30) of squares_step on batches of `rows` x 4096 made on the GPU,
    its steps 10-14 traced into KINETO_DIR/<name>_rank<R>.pt.trace.json where env
    KINETO_DIR names a folder; the process group destroyed after."""
    import torch.distributed as dist

    if os.environ.get("KINETO_DIR"):
        os.environ["KINETO"] = os.path.join(os.environ["KINETO_DIR"],
                                            f"{name}_rank{rank}.pt.trace.json")
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for _ in range(steps):
            squares_step(model, opt, torch.randn(rows, 4096, device="cuda"))
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps}"


def ddp_compile() -> str:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = torch.compile(DistributedDataParallel(mlp(8).cuda(), device_ids=[rank]))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    return rank_squares("ddp_compile", rank, model, opt, 1024)


def fsdp_root() -> str:
    import torch.distributed as dist
    from torch.distributed.fsdp import fully_shard

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = mlp(4).cuda()
    fully_shard(model)  # the root alone: one unit
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return rank_squares("fsdp_root", rank, model, opt, 2048)


def cp() -> str:
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import _attention, context_parallel
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("cp",))
    _attention.set_rotate_method(os.environ.get("CP_ROTATE", "allgather"))
    torch.manual_seed(0)
    model = DistributedDataParallel(
        torch.nn.Sequential(*(SequenceBlock(2048, 16) for _ in range(4))).cuda(),
        device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    if os.environ.get("KINETO_DIR"):
        os.environ["KINETO"] = os.path.join(os.environ["KINETO_DIR"],
                                            f"cp_rank{rank}.pt.trace.json")
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    with steps_profiler() as prof:
        for i in range(steps):
            torch.manual_seed(i)  # every rank the same sequences, before each takes its share
            x = torch.randn(2, 16384, 2048, device="cuda")
            with context_parallel(mesh, buffers=[x], buffer_seq_dims=[1]):
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(x).float().pow(2).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
            opt.step()
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps} loss={loss.item():.4f}"


def jax_mlp(width: int):
    """jax_train's MLP: 4 layers of `width` (bf16 weights of scale 1/sqrt(width), zero
    biases), and its loss, the mean square error against `y` in float32: (params,
    loss(params, x, y))."""
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    params = []
    for _ in range(4):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (width, width), jnp.bfloat16) / np.sqrt(width),
                       jnp.zeros((width,), jnp.bfloat16)))

    def loss(params, x, y):
        for w, b in params[:-1]:
            x = jax.nn.gelu(x @ w + b)
        w, b = params[-1]
        return jnp.mean(((x @ w + b) - y).astype(jnp.float32) ** 2)

    return params, loss


def jax_mlp_step(width: int):
    """jax_mlp's MLP and its jitted SGD step, which also returns the loss: (params,
    step(params, x, y) -> (params, loss))."""
    import jax

    params, loss = jax_mlp(width)

    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads), value

    return params, step


def jax_log() -> str:
    import jax
    import jax.numpy as jnp

    params, step = jax_mlp_step(2048)
    x = jax.random.normal(jax.random.PRNGKey(1), (256, 2048), jnp.bfloat16)
    y = jax.random.normal(jax.random.PRNGKey(2), (256, 2048), jnp.bfloat16)
    steps = int(os.environ.get("STEPS", "300"))
    losses = []
    start = time.perf_counter()
    for i in range(steps):
        with jax_traced_step(i, params):
            params, loss = step(params, x, y)
            losses.append(float(loss))  # logged each step: the host waits for the step's end
        jax_trace_ends(i, params)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={losses[-1]:.4f}"


def jax_shapes() -> str:
    import jax
    import jax.numpy as jnp

    params, step = jax_mlp_step(2048)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    for i in range(steps):
        rows = 256 + 64 * i  # a batch of a new size each step: XLA compiles the step again
        with jax_traced_step(i, params):
            x = jax.random.normal(jax.random.PRNGKey(i), (rows, 2048), jnp.bfloat16)
            params, loss = step(params, x, x[:, ::-1])
        jax_trace_ends(i, params)
    jax.block_until_ready(params)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} loss={float(loss):.4f}"


def jax_callback() -> str:
    import jax
    import jax.numpy as jnp

    def clip_scale(norm: np.ndarray) -> np.ndarray:
        # ~3 ms of NumPy on the host, as a metric or a data-dependent rule computed there
        rng = np.random.default_rng(int(norm * 1000) % 1000)
        noise = np.sort(rng.standard_normal(400_000))
        return np.float32(1.0 / max(1.0, float(norm) + 1e-9 * noise[0]))

    params, loss = jax_mlp(2048)

    @jax.jit
    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32)))
                            for g in jax.tree_util.tree_leaves(grads)))
        # the scale computed on the host, mid-step: the GPU waits for the callback
        scale = jax.pure_callback(clip_scale, jax.ShapeDtypeStruct((), jnp.float32), norm)
        return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * scale.astype(p.dtype) * g,
                                      params, grads)

    x = jax.random.normal(jax.random.PRNGKey(1), (1024, 2048), jnp.bfloat16)
    steps = int(os.environ.get("STEPS", "200"))
    start = time.perf_counter()
    for i in range(steps):
        with jax_traced_step(i, params):
            params = step(params, x, x[:, ::-1])
        jax_trace_ends(i, params)
    jax.block_until_ready(params)
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}"


def tokenize() -> str:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    # a WordPiece tokenizer of Hugging Face's `tokenizers` (Rust, threads of its own), its
    # vocabulary the words of `Sentences` (nothing to download)
    letters = "abcdefghij"
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for a in letters:
        vocab.setdefault(a, len(vocab))
        for b in letters:
            vocab.setdefault(a + b, len(vocab))
            vocab.setdefault("##" + a + b, len(vocab))
        vocab.setdefault("##" + a, len(vocab))
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]")
    torch.manual_seed(0)
    model = BertForSequenceClassification(
        BertConfig(num_labels=4, num_hidden_layers=4)).cuda().eval()
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list(letters), rng.integers(2, 9))) for _ in range(10_000)]
    steps = int(os.environ.get("STEPS", "100"))
    labels = []
    start = time.perf_counter()
    with torch.inference_mode():
        for _ in range(steps):
            # 64 requests of 200 words each, tokenized in the serving loop itself
            picks = rng.integers(0, len(words), (64, 200))
            batch = fast([" ".join(words[i] for i in row) for row in picks],
                         padding="max_length", max_length=512, truncation=True,
                         return_tensors="pt")
            ids, mask = batch["input_ids"].cuda(), batch["attention_mask"].cuda()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(input_ids=ids, attention_mask=mask).logits
            labels += logits.argmax(-1).tolist()
    return f"work_s={time.perf_counter() - start:.2f} steps={steps} labels={len(labels)}"


def descend(opt: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    """One optimizer step on `loss`: gradients cleared, the backward, the step."""
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def finished(start: float, steps: int, **figures: float) -> str:
    """Once the GPU's work is done: the seconds since `start`, `steps` and `figures`."""
    torch.cuda.synchronize()
    said = "".join(f" {name}={value:.3g}" for name, value in figures.items())
    return f"work_s={time.perf_counter() - start:.2f} steps={steps}{said}"

def multiscale() -> str:
    import timm

    # multi-scale training with cuDNN's benchmark mode on, as detection and segmentation
    # recipes set it: each new input size is benchmarked (cudnnFind) on first use
    torch.backends.cudnn.benchmark = True
    model = timm.create_model("resnet18", num_classes=1000).cuda().to(
        memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sizes = [160, 192, 224, 256, 288, 320]
    steps = int(os.environ.get("STEPS", "48"))
    start = time.perf_counter()
    for i in range(steps):
        size = sizes[i % len(sizes)]
        x = torch.randn(64, 3, size, size, device="cuda").to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (64,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        descend(opt, loss)
    return finished(start, steps, loss=loss.item())


def ddp_eval() -> str:
    import tempfile

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = DistributedDataParallel(mlp(4).cuda(), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "40"))
    held_out = torch.randn(64, 1024, 4096, device="cuda")
    start = time.perf_counter()
    for i in range(steps):
        squares_step(model, opt, torch.randn(4096, 4096, device="cuda"))
        if rank == 0 and i % 10 == 9:
            # rank 0 alone evaluates and writes a checkpoint, as a training script's
            # `if rank == 0:` block does; the other ranks go on to the next all-reduce
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
                score = sum(model.module(x).float().square().mean().item() for x in held_out)
            with tempfile.TemporaryFile() as f:
                torch.save({"model": model.module.state_dict(), "score": score}, f)
    torch.cuda.synchronize()
    took = time.perf_counter() - start
    dist.destroy_process_group()
    return f"rank={rank} work_s={took:.2f} steps={steps}"


def diskread() -> str:
    import tempfile

    # batches stored as .npy files (4096x4096 float32, 64 MB each), read with np.load in
    # the training loop itself, as a script over a folder of preprocessed arrays does; each
    # file dropped from the page cache before it is read, so that the disk is read
    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    folder = tempfile.mkdtemp(dir=os.environ.get("DATA_DIR"))
    rng = np.random.default_rng(0)
    files = []
    for k in range(8):
        path = os.path.join(folder, f"batch{k}.npy")
        np.save(path, rng.standard_normal((4096, 4096), dtype=np.float32))
        files.append(path)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    for i in range(steps):
        path = files[i % len(files)]
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        x = torch.from_numpy(np.load(path)).cuda()
        loss = squares_step(model, opt, x)
    return finished(start, steps, loss=loss.item())


def bandwidth() -> str:
    # LayerNorm and element-wise ops in fp32 on activations of 8192x8192 (256 MB), eager:
    # every kernel reads and writes its tensors in DRAM and does little math
    torch.manual_seed(0)
    norms = torch.nn.ModuleList(torch.nn.LayerNorm(8192) for _ in range(6)).cuda()
    opt = torch.optim.SGD(norms.parameters(), lr=1e-3)
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    for _ in range(steps):
        x = torch.randn(8192, 8192, device="cuda", requires_grad=True)
        h = x
        for norm in norms:
            h = torch.nn.functional.gelu(norm(h)) * 0.5 + h
        loss = h.square().mean()
        descend(opt, loss)
    return finished(start, steps, loss=loss.item())


def fp32() -> str:
    # squares_loop's MLP trained in fp32 without autocast, TF32 off (PyTorch's default for
    # matmuls): the GEMMs run on the CUDA cores, not the tensor cores
    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "30"))
    start = time.perf_counter()
    for _ in range(steps):
        x = torch.randn(4096, 4096, device="cuda")
        loss = model(x).pow(2).mean()
        descend(opt, loss)
    return finished(start, steps, loss=loss.item())


def features() -> str:
    # a recommendation-style model whose batch is a dict of 64 small feature tensors (a
    # sparse feature's ids or a dense one's values, 2,048 rows each), each moved to the GPU
    # with its own `.to("cuda")` from pageable memory, as a loop over the batch's keys does
    torch.manual_seed(0)
    tables = torch.nn.ModuleList(torch.nn.EmbeddingBag(10_000, 64, mode="sum")
                                 for _ in range(32)).cuda()
    top = torch.nn.Sequential(torch.nn.Linear(64 * 32 + 32, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 1)).cuda()
    params = [*tables.parameters(), *top.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-3, fused=True)
    rng = np.random.default_rng(0)
    steps = int(os.environ.get("STEPS", "100"))
    start = time.perf_counter()
    for _ in range(steps):
        batch = {f"sparse{k}": torch.from_numpy(rng.integers(0, 10_000, (2048, 4)))
                 for k in range(32)}
        batch |= {f"dense{k}": torch.from_numpy(rng.standard_normal((2048, 1),
                                                                    dtype=np.float32))
                  for k in range(32)}
        on_gpu = {key: value.to("cuda") for key, value in batch.items()}
        pooled = [table(on_gpu[f"sparse{k}"]) for k, table in enumerate(tables)]
        dense = torch.cat([on_gpu[f"dense{k}"] for k in range(32)], dim=1)
        loss = top(torch.cat([*pooled, dense], dim=1)).square().mean()
        descend(opt, loss)
    return finished(start, steps, loss=loss.item())


def sidestream() -> str:
    # the input pipeline done as NVIDIA's and PyTorch's guides advise: batches in pinned
    # memory copied to the GPU on a side stream one step ahead (non_blocking), the step
    # waiting on an event for its batch: copies overlap compute
    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    host = [torch.randn(8192, 4096).pin_memory() for _ in range(2)]
    copier = torch.cuda.Stream()
    steps = int(os.environ.get("STEPS", "60"))

    def ahead(i: int) -> tuple[torch.Tensor, torch.cuda.Event]:
        with torch.cuda.stream(copier):
            x = host[i % 2].to("cuda", non_blocking=True)
            ready = torch.cuda.Event()
            ready.record(copier)
        return x, ready

    start = time.perf_counter()
    nxt = ahead(0)
    for i in range(steps):
        x, ready = nxt
        torch.cuda.current_stream().wait_event(ready)
        x.record_stream(torch.cuda.current_stream())
        nxt = ahead(i + 1)
        squares_step(model, opt, x)
    return finished(start, steps)


def cpu_eval() -> str:
    # training that stops every 20 steps to evaluate on the CPU (the model copied to the
    # host and run there in fp32 on 32 batches, ~2 s), as a script whose evaluation forgot
    # the device does: the GPU idles through each evaluation
    model = mlp(4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    held_out = torch.randn(32, 256, 4096)
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for i in range(steps):
        squares_step(model, opt, torch.randn(4096, 4096, device="cuda"))
        if i % 20 == 19:
            on_cpu = mlp(4)
            on_cpu.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
            with torch.no_grad():
                score = sum(on_cpu(x).square().mean().item() for x in held_out)
    return finished(start, steps, score=score)


def fsdp_offload() -> str:
    import torch.distributed as dist
    from torch.distributed.fsdp import CPUOffloadPolicy, fully_shard

    # FSDP2 with its parameters, gradients and optimizer state offloaded to the CPU, as a
    # model too big for the GPUs is trained: each unit's shard copied in before its
    # all-gather, the gradients copied out after the reduce-scatter, AdamW on the CPU
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = mlp(8)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer, offload_policy=CPUOffloadPolicy())
    fully_shard(model, offload_policy=CPUOffloadPolicy())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return rank_squares("fsdp_offload", rank, model, opt, 4096)


def ddp_loop(after: Callable[[int, torch.Tensor], None],
             before: Callable[[int], None] | None = None) -> str:
    """`ddp_eval`'s MLP (4 layers of 4096, bf16 autocast, fused AdamW) trained STEPS (40)
    steps with DDP on batches made on the GPU: before(rank) ahead of each step,
    after(rank, loss) after it; the rank's closing line."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = DistributedDataParallel(mlp(4).cuda(), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "40"))
    start = time.perf_counter()
    for _ in range(steps):
        if before is not None:
            before(rank)
        after(rank, squares_step(model, opt, torch.randn(4096, 4096, device="cuda")))
    said = finished(start, steps)
    dist.destroy_process_group()
    return f"rank={rank} {said}"


def ddp_gather() -> str:
    import torch.distributed as dist

    # DDP whose loop gathers each rank's metrics to every rank after each step with
    # `all_gather_object` (pickled, its sizes exchanged, copied back to the host), as a
    # logging callback does
    def gather(rank: int, loss: torch.Tensor) -> None:
        gathered: list = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, {"rank": rank, "loss": loss.detach()})

    return ddp_loop(gather)


def graphbreak() -> str:
    # an MLP under torch.compile whose forward reads a value back to decide a branch
    # (`if h.abs().mean() > ...`), as a model with a data-dependent check does: Dynamo
    # breaks the graph there and the host waits for the GPU every step
    torch.manual_seed(0)
    layers = mlp(4).cuda()

    def forward(x: torch.Tensor) -> torch.Tensor:
        h = layers[:4](x)
        if h.abs().mean() > 1e-3:  # a graph break: the value is read back to the host
            h = h * 0.5
        return layers[4:](h)

    compiled = torch.compile(forward)
    opt = torch.optim.AdamW(layers.parameters(), lr=1e-4, fused=True)
    steps = int(os.environ.get("STEPS", "60"))
    start = time.perf_counter()
    for _ in range(steps):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(torch.randn(4096, 4096, device="cuda")).float().pow(2).mean()
        descend(opt, loss)
    return finished(start, steps, loss=loss.item())


def ddp_barrier() -> str:
    import torch.distributed as dist

    # DDP whose loop calls `dist.barrier()` after each step, as scripts do to keep their
    # ranks in step for logging; the last rank's batches take 10 ms more on the host
    def slower(rank: int) -> None:
        if rank == dist.get_world_size() - 1:
            time.sleep(0.01)

    return ddp_loop(lambda _rank, _loss: dist.barrier(), slower)

if __name__ == "__main__":
    workload = sys.argv[1]
    run = {"generate": generate, "decode": decode, "vision": vision, "triton": triton_kernels,
           "jax": jax_train, "ddp": ddp, "churn": churn, "bert": bert, "split": split,
           "dataparallel": dataparallel, "trainer": trainer, "cycles": cycles,
           "amp": amp, "autotune": autotune, "infer": infer, "serve": serve,
           "accum": accum, "offload": offload, "loader0": vision, "shared": shared,
           "shared_worker": shared_worker, "compiled": compiled,
           "ddp_accum": ddp_accum, "threads": threads, "prefetch": prefetch,
           "nocache": nocache, "moe": moe, "graphed": graphed, "jax_tp": jax_tp,
           "ep": ep, "pinned": pinned, "ranged": ranged, "ckpt": ckpt,
           "recompile": recompile, "amp_libs": amp, "bert_pt": bert,
           "tp_sp": tp_sp, "jax_fsdp": jax_fsdp, "jax_ring": jax_ring,
           "ddp_log": ddp_log, "jax_mp": jax_mp, "ddp_compile": ddp_compile,
           "fsdp_root": fsdp_root, "cp": cp, "sweep": sweep, "collbench": collbench,
           "sweep_worker": sweep_worker, "jax_log": jax_log, "jax_shapes": jax_shapes,
           "jax_callback": jax_callback, "tokenize": tokenize,
           "multiscale": multiscale, "ddp_eval": ddp_eval,
           "diskread": diskread, "bandwidth": bandwidth, "fp32": fp32,
           "features": features, "sidestream": sidestream, "cpu_eval": cpu_eval,
           "fsdp_offload": fsdp_offload, "ddp_gather": ddp_gather,
           "graphbreak": graphbreak, "ddp_barrier": ddp_barrier}[workload]
    print(workload, "ok", run(), flush=True)

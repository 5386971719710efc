"""What to do about what bounds the work, in one place: a remedy for each bound, and for a
GPU waiting on its host, the table of what the host was busy in (the ranges, op or Python
frame holding the most host-caused idle time in the window, `host_busy_in`) and the remedy
that fits it. The first row whose pattern matches the name decides; a name no row matches,
or none, gets the general advice.

Each row of the table is checked on a real trace in tests/analysis/test_remedies.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tui.analysis.module_names import COMPILERS

# What to do about each bound, by the framework that made the trace (default: PyTorch).
REMEDY = {
    "compute": "speed up the kernels themselves: lower precision (bf16, TF32), fused or "
               "better-tuned kernels; Nsight Compute shows what limits the top ones",
    "memory": "cut memory traffic: fuse element-wise ops into their neighbours, use lower "
              "precision, and make accesses contiguous",
    "launch": "replay the step as a CUDA graph or compile it (torch.compile) so that fewer, "
              "larger launches do the work",
    "sync": "read results back (.item(), .cpu(), printing a tensor) every few steps, not "
            "every step, and order streams with events rather than synchronising",
    "copy": "pin the host buffers (pin_memory=True) and copy with non_blocking=True, so "
            "that copies overlap compute",
    "communication": "overlap communication with compute (gradient bucketing, async "
                     "collectives) and even out the ranks' work",
    "other": "record the CUDA runtime calls (nsys -t cuda, ProfilerActivity.CUDA) so "
             "that each gap's launch is known",
}
# A copy-bound GPU's where most of the bytes it copied were from or to pinned memory: the
# pinning is done, what is left is how much is copied and whether it overlaps compute
REMEDY_COPY_PINNED = (
    "its copies are from and to pinned memory already: move less between host and GPU "
    "(keep tensors on the GPU, copy once and reuse), and copy with non_blocking=True on a "
    "side stream so that copies overlap compute")
# An other-bound GPU's remedy where its queued work is known to have waited on another
# GPU's or another stream's (tui/analysis/queued_waits.py: GPUS, STREAMS)
REMEDY_WAITED = {
    "gpus": "keep every GPU busy while another works: split each batch into micro-batches "
            "that follow each other through the GPUs (pipeline parallelism: "
            "torch.distributed.pipelining's schedules), or give each GPU the whole model "
            "and a share of the batch (data parallelism)",
    "streams": "find the event or stream the queued work waits on (cudaStreamWaitEvent, "
               "another stream's kernels before it in the timeline) and move or overlap "
               "that work so the wait shortens",
}
# Where torch.nn.DataParallel drives the GPUs (tui/analysis/dataparallel.py), what it costs:
# its threads' Python and launches, the weights' broadcast and the gradients' reduce each
# step, the replicas waiting on each other; one remedy for each
DATAPARALLEL_BOUNDS = ("host", "launch", "communication", "other")
REMEDY_DATAPARALLEL = (
    "torch.nn.DataParallel drives these GPUs from one process (a Python thread per replica "
    "under one interpreter lock, the weights broadcast from the first GPU every step and "
    "the gradients reduced back onto it): use DistributedDataParallel, a process per GPU "
    "(torchrun), which PyTorch documents as significantly faster even on one machine")
REMEDY_XLA = {
    "launch": "jit more of the loop (jax.jit) so that XLA fuses the ops, or let XLA "
              "replay them as CUDA graphs",
    "sync": "read values back (float(), np.asarray, block_until_ready) every few steps, "
            "not every step",
    "copy": "put batches on the device ahead of the step that uses them, so that copies "
            "overlap compute",
}

# How launch-bound work was made and launched, where it does one of REMEDY["launch"]'s two
# already (tui/analysis/launch_means.py): torch.compile's kernels, CUDA graphs' replays
INDUCTOR, GRAPHS = "inductor", "graphs"
# ... and what to do then: the other
LAUNCH_REMEDY = {
    INDUCTOR: "torch.compile is in use already (Inductor's Triton kernels), yet each "
                "kernel is launched on its own: replay the step as CUDA graphs, with "
                "torch.compile(mode=\"reduce-overhead\") (which logs \"skipping cudagraphs "
                "due to …\" where it cannot: remove that cause, e.g. an input the step "
                "mutates in place) or torch.cuda.graph, so that one launch runs its kernels",
    GRAPHS: "most of its GPU time is CUDA graphs' replays already, and the idle is "
              "between kernels launched one by one: bring those into the graphs (capture "
              "more of the step, e.g. the loop's own tensor ops around the model, or "
              "compile them) so that fewer launches do the work",
}


@dataclass(frozen=True)
class HostWork:
    key: str
    what: str  # said after the name: "busy most in aten::normal_: data preparation"
    pattern: re.Pattern[str]
    remedy: str
    remedy_xla: str | None = None


# OS runtime calls (nsys -t osrt) that read or write files (or pipes): one that holds the
# launching thread through most of a host-wait gap names the host's work there, as a sleep
# does (tui.analysis.gaps: `np.load` of each batch in the loop, `unannotated/diskread.sqlite`,
# in fread 1.93 s of the window's 2.28 s of host waits)
FILE_READS = r"f?read(_unlocked)?|p?readv|preadv2|pread(64)?|fgets|getline|getdelim"
FILE_WRITES = (r"f?write(_unlocked)?|p?writev|pwritev2|pwrite(64)?|fsync|fdatasync|fflush"
               r"|sync_file_range|msync")
FILE_CALLS = re.compile(f"^({FILE_READS}|{FILE_WRITES})$")
# What the host was busy in where a gap's launching thread computed in CPU math kernels
# (tui.analysis.gaps.CPU_MATH_FUNCTIONS)
CPU_MATH = "CPU math kernels"

# Where the loss is paid once: initialisation, or the first steps (warm-up, compiling)
WARM_UP = ("it is paid once, not every step: start the profile after warm-up (a profiler "
           "schedule with warmup, or NVTX step ranges) and judge the steps alone")

# Where a few steps far slower than the rest hold the loss, and nothing names what they did
SLOW_STEPS = ("find what {does} that the other steps do not (e.g. a checkpoint, an "
              "evaluation, a recompilation, a stalled batch) and do it less often or off the "
              "thread that issues GPU work")

HOST_WORK = (
    HostWork(
        "jit", "compiling GPU kernels while the program runs",
        re.compile("^(" + "|".join(re.escape(label) for label in sorted(COMPILERS)) + ")$"),
        "the thread that issues GPU work compiles kernels while the GPU waits: where it "
        "recurs, new input shapes are the usual reason (a sequence that grows each step, "
        "batches of varying size): keep shapes fixed (pad to a few lengths, a static KV "
        "cache) or use kernels not compiled per shape (for attention, another SDPA "
        "backend); where it is once, warm up before the work and keep the compiler's "
        "cache between runs (TRITON_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR)",
        "XLA compiles while the GPU waits: keep shapes static (pad, bucket) so that each "
        "jitted function compiles once, and keep its persistent compilation cache "
        "(jax_compilation_cache_dir)"),
    HostWork(
        "allocator", "allocating and freeing device memory",
        re.compile(r"^(cuda(Malloc|Free)(Async)?|cuMem(Alloc|Free)(Async)?)(_v\d+)?$"),
        "the thread that issues GPU work allocates and frees device memory itself "
        "(cudaMalloc, cudaFree, which waits for the device): let PyTorch's caching "
        "allocator keep its blocks for reuse, which frees without a device "
        "synchronisation (no PYTORCH_NO_CUDA_MEMORY_CACHING, no torch.cuda.empty_cache() "
        "in the loop), and keep tensor shapes steady so that cached blocks fit "
        "(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True where they vary)",
        "XLA allocates and frees device memory while the GPU waits: keep its preallocated "
        "pool (XLA_PYTHON_CLIENT_ALLOCATOR=platform allocates and frees on demand, which "
        "JAX documents as very slow)"),
    HostWork(
        "init", "one-time initialisation",
        re.compile(r"(?i)^nccl(Comm)?Init|CommInit|^cu(da)?(Init|SetDevice|DeviceReset)\b"
                   r"|^cu(Module|Library)Load|^(cudnn|cublas|cublasLt)Create|initiali[sz]"
                   r"|warm.?up|compil|autotun"),
        WARM_UP),
    HostWork(
        "checkpoint", "writing a checkpoint",
        re.compile(r"(?i)serializ|write_record|torch\.save|save_?(checkpoint|pretrained)"
                   r"|distributed[/.]checkpoint|safetensors|orbax"),
        "the thread that issues GPU work copies the state to the host and writes it while "
        "the GPU waits: save less often, or in the background "
        "(torch.distributed.checkpoint.async_save, or a copy to pinned host memory "
        "written from another thread)",
        "save less often, or in the background (orbax's asynchronous checkpointing)"),
    HostWork(
        "sleep", "a sleep",
        re.compile(r"(?i)sleep"),
        "the thread that issues GPU work sleeps while the GPU waits: remove the sleep or "
        "move it (throttling, polling) to another thread"),
    HostWork(  # tui.analysis.gaps.CPU_MATH: the launching thread's CPU samples
        "cpu_math", "computing on the host",
        re.compile(f"^{CPU_MATH}$"),
        "the thread that issues GPU work computes on the CPU while the GPU waits (PyTorch's "
        "CPU kernels, BLAS): keep that math on the GPU (a model or metric evaluated on CPU "
        "tensors, tensors left on the host); where it is an optimizer stepping parameters "
        "offloaded to the host (FSDP's CPUOffloadPolicy, ZeRO-Offload), offload less "
        "(shard over more GPUs, or offload the optimizer's state alone) or use a "
        "vectorised CPU optimizer (DeepSpeed's DeepSpeedCPUAdam)",
        "the host computes in NumPy or on CPU arrays while the GPU waits: keep that math "
        "in the jitted step (jnp) on the device"),
    HostWork(
        "file_read", "reading input from files",
        re.compile(f"^({FILE_READS})$"),
        "the thread that issues GPU work reads its input while the GPU waits: read ahead on "
        "other threads or processes (DataLoader workers, num_workers > 0, with "
        "prefetch_factor), and keep the data in memory or on fast local storage, stored "
        "nearer its final form",
        "the thread that issues work reads its input while the GPU waits: read ahead in the "
        "input pipeline (tf.data's prefetch and num_parallel_calls, Grain's worker_count), "
        "and keep the data in memory or on fast local storage"),
    HostWork(
        "file_write", "writing files",
        re.compile(f"^({FILE_WRITES})$"),
        "the thread that issues GPU work writes files while the GPU waits (checkpoints, "
        "logs, dumps): write less often, or from another thread "
        "(torch.distributed.checkpoint.async_save for checkpoints)",
        "write less often, or from another thread (orbax's asynchronous checkpointing)"),
    HostWork(  # host_samples.HostActivity.busy_elsewhere: 'NumPy on other threads'
        "elsewhere", "what the launching thread waited for",
        re.compile(r" on other threads$"),
        "the thread that issues GPU work waits for work done on other threads or processes "
        "(a DataLoader's workers): give that work more workers (num_workers) and "
        "prefetching (prefetch_factor), and make it cheaper (decode and augment on the GPU, "
        "e.g. torchvision.transforms.v2 on CUDA tensors or NVIDIA DALI; store the data "
        "nearer its final form)",
        "the thread that issues work waits for work done on other threads (the input "
        "pipeline): give it more parallelism (tf.data's num_parallel_calls, Grain's "
        "worker_count) and prefetching, and make it cheaper"),
    HostWork(  # torch.profiler's names: Optimizer.step#AdamW.step, Optimizer.zero_grad#…
        "optimizer", "the optimizer's step",
        re.compile(r"^Optimizer\.(step|zero_grad)#"),
        "the optimizer's step issues its updates from the host, tensor by tensor or list by "
        "list: its fused implementation (fused=True: Adam, AdamW, SGD) issues fewer "
        "launches, and torch.compile of the step fuses it further"),
    HostWork(  # XLA's host callbacks, each its own op: pure_callback.1, io_callback.3
        "callback", "a call back into Python from inside the compiled step",
        re.compile(r"(?i)\b(pure|io|debug)_callback\b|host_callback|python_(gpu|cpu)_callback"),
        "the compiled step stops for Python on the host and the GPU waits for each call: "
        "compute that on the device, or move it out of the step (before it, or on values "
        "read back every few steps)",
        "the jitted step calls back into Python on the host (jax.pure_callback, "
        "io_callback, jax.debug.callback) and the GPU waits for each call: compute that "
        "with jnp inside the step, or move it out of the step"),
    HostWork(
        "data", "data preparation",
        # not DataParallel's and DistributedDataParallel's forward: the model's own
        re.compile(r"(?i)data(?!parallel)|loader|batch|collate|prefetch|prepar|preprocess"
                   r"|augment|tokeni[sz]|decode|^aten::(normal_|uniform_|randn?|randint|random_"
                   r"|randperm|bernoulli_|from_numpy)$|numpy"),
        "prepare batches ahead of the step: DataLoader workers (num_workers > 0) with "
        "pinned memory and prefetching, random or synthetic inputs made on the GPU "
        "(device='cuda'), and no other host work on the step",
        "prepare the next batch while the step runs (device_put ahead of time, a "
        "prefetching input pipeline) and keep other host work off the step"),
    HostWork(
        "python", "Python between the GPU's ops",
        re.compile(r"(?i)\.py\b|<built-in|^python"),
        "move that Python off the step, vectorise it, or compile the step "
        "(torch.compile) so that less Python runs per launch",
        "move that Python off the step or into the jitted function (jax.jit)"),
    HostWork(
        "host_op", "a framework op's host side",
        re.compile(r"^(aten|at|c10|torch|cudnn|cublas)[:_.]"),
        "its host side takes longer than its kernels: replay the loop as a CUDA graph "
        "(torch.compile(mode='reduce-overhead'), torch.cuda.graphs) or give each call more "
        "work (a larger batch) so that the GPU runs longer per host call"),
)
# Where the host's work is unknown or of no row's kind
GENERAL = ("overlap the host's work with the GPU's: prepare batches in DataLoader workers "
           "with pinned memory and prefetching, and keep other host work off the step")
GENERAL_XLA = ("prepare the next batch while the step runs (device_put ahead of time, a "
               "prefetching input pipeline) and keep other host work off the step")


def host_work(busy_in: str | None) -> HostWork | None:
    """The row of the table that `busy_in` (a range or op name) matches; None: no row."""
    if not busy_in:
        return None
    return next((row for row in HOST_WORK if row.pattern.search(busy_in)), None)


def host_remedy(busy_in: str | None, source_format: str | None = None) -> str:
    """What to do when the GPU waits for a host busy in `busy_in`."""
    row = host_work(busy_in)
    xla = source_format == "xla"
    if row is None:
        return GENERAL_XLA if xla else GENERAL
    return (row.remedy_xla or row.remedy) if xla else row.remedy


def remedy(bound: str, busy_in: str | None = None, source_format: str | None = None,
           launched_as: str | None = None, waited_on: str | None = None,
           dataparallel: bool = False, pinned: bool = False) -> str:
    """What to do about `bound`; a host-bound GPU's by what its host was busy in, a
    launch-bound one's by how its kernels were made and launched (launch_means), an
    other-bound one's by what its queued work waited for (queued_waits), a copy-bound
    one's by whether its copies were `pinned` (most bytes); any of DATAPARALLEL_BOUNDS
    where DataParallel drove the GPUs, by that."""
    if dataparallel and bound in DATAPARALLEL_BOUNDS:
        return REMEDY_DATAPARALLEL
    if bound == "copy" and pinned and source_format != "xla":
        return REMEDY_COPY_PINNED
    if bound == "host":
        return host_remedy(busy_in, source_format)
    if bound == "other" and waited_on in REMEDY_WAITED:
        return REMEDY_WAITED[waited_on]
    if bound == "launch" and launched_as in LAUNCH_REMEDY and source_format != "xla":
        return LAUNCH_REMEDY[launched_as]
    return (REMEDY_XLA if source_format == "xla" else {}).get(bound, REMEDY[bound])

#!/bin/bash
# Record gen_unannotated.py's workloads as users first record a program: the whole of it
# under `nsys profile -t cuda,nvtx,osrt --sample=process-tree --cpuctxsw=process-tree`, no
# capture range, no annotations; each exported to SQLite with NVIDIA's answers beside it
# (`nsys stats` and every `nsys analyze` rule's rows, gpu_gaps also at gap=0). Where this
# nsys has `--python-sampling`, `vision` is recorded a second time with Python's stacks
# (vision_py: sampled, and at the CUDA calls of 80 µs or more), and so may be `churn`
# (churn_py: at every CUDA call), each exported with `--include-json=true`, which keeps them.
# Run from the repository root:   OUT=/some/dir bash recordings/record_unannotated.sh
# Env: OUT (a folder), GPUS (the first is used), NPROC (torchrun's processes, default 2: as many as
# DDP_GPUS holds), TRACE (nsys -t, default cuda,nvtx,osrt), ONLY (generate,vision,triton,vision_py,jax,churn,
# decode (generate's model with a static cache, compiled by generate()), decode_node (decode
# with nsys --cuda-graph-trace=node: the replayed graphs' kernels traced),
# churn_py (churn with Python's stacks, as vision_py), bert (env STEPS: the repository's
# has 12), fsdp (dist_train.py's FSDP2 ViT under torchrun over the two GPUs of DDP_GPUS,
# its NVTX step ranges on, with the GPUs' counters too: --gpu-metrics-devices=all), split
# (one process over the two GPUs of DDP_GPUS), jax_dp (jax_dp.py bare, 50 steps, over the
# two GPUs of DDP_GPUS), dataparallel (one process over the two GPUs of DDP_GPUS),
# infer (ViT-B/16 inference in bf16, batches of 256), amp (ResNet-50 in fp16 with GradScaler), autotune (an MLP under torch.compile's
# max-autotune, its GEMMs benchmarked in the first step), bert_mid (bert's 300 steps, nsys --delay=15
# --duration=3: a capture of the loop alone, cut mid-step, as users skip the start-up),
# bert_nvtx (bert's 12 steps inside torch.autograd.profiler.emit_nvtx()), cycles_ddp
# (no nsys: ddp's two ranks, 20 steps, under cycles' profiler: $OUT/cycles_ddp.tgz),
# serve, accum, offload, shared, compiled, threads, prefetch (see gen_unannotated.py), loader0 (vision with
# WORKERS=0: its images made in the training loop's process, 20 steps), accum_small (accum
# with STEPS=5), ddp_accum (under torchrun over the two GPUs of DDP_GPUS), ddp_json (ddp's
# 10 steps, exported with --include-json=true: NCCL's NVTX payloads, its calls' sizes),
# fsdp_json (fsdp without the GPU metrics, exported so too), fsdp_kineto (no nsys: fsdp's
# program under torch.profiler over the same two GPUs: $OUT/fsdp_kineto.tgz), tp_json
# (parallel_train.py tp over those two GPUs with no NVTX range, exported so too), pp_json
# (the same with pp-1f1b: two stages, 8 micro-batches),
# trainer (Hugging Face's Trainer, one GPU), trainer_dp (the same with the two GPUs of
# DDP_GPUS visible: the Trainer wraps the model in torch.nn.DataParallel itself),
# trainer_ddp (the same under torchrun over those two GPUs: DDP), cycles (no nsys:
# torch.profiler's schedule with repeat=2 writing a trace a cycle into one folder:
# $OUT/cycles.tgz),
# nocache (the caching allocator off), moe, graphed, pinned, jax_tp (over the two GPUs of DDP_GPUS),
# each with the GPUs' counters too (--gpu-metrics-devices=all), moe also under torch.profiler,
# nocache_small (nocache's 10 steps) and moe_small without the counters, ep_json (ep under
# torchrun over the two GPUs of DDP_GPUS, exported with --include-json=true), ep_kineto (no
# nsys: ep under torch.profiler over them: $OUT/ep_kineto.tgz), jax_tp_trace (no nsys:
# jax_tp's steps 20-24 under jax.profiler over them: $OUT/jax_tp_trace.tgz),
# ranged (nsys --capture-range=cudaProfilerApi: the steps the program marks with
# cudaProfilerStart/Stop), ckpt (with the GPUs' counters), recompile, amp_libs (amp with
# -t cudnn,cublas added: their API calls traced too), bert_pt (bert's 12 steps under nsys
# --pytorch=autograd-nvtx, where this nsys has it: NVTX ranges of PyTorch's ops by nsys),
# tp_sp_json (tp_sp under torchrun over the two GPUs of DDP_GPUS, exported with
# --include-json=true), tp_sp_kineto (no nsys: tp_sp under torch.profiler over them:
# $OUT/tp_sp_kineto.tgz),
# moe_cuda_kineto (no nsys: moe's steps 10-14 under torch.profiler with the CUDA activity
# alone: $OUT/moe_cuda.pt.trace.json.gz),
# ckpt_kineto (no nsys: ckpt's steps 10-14 under torch.profiler with profile_memory, the
# program printing torch's own peak over them: $OUT/ckpt.pt.trace.json.gz),
# jax_mp_trace (no nsys: jax_mp's two processes, a GPU each, steps 20-24 under
# jax.profiler: $OUT/jax_mp_trace.tgz),
# ddp_compile_kineto and ddp_compile_json (as ddp_log's, of ddp_compile), fsdp_root_kineto
# and fsdp_root_json (so, of fsdp_root), cp_kineto and cp_json (so, of cp: context
# parallelism, its keys and values all-gathered), cp_a2a_kineto (cp_kineto with
# CP_ROTATE=alltoall), sweep (two independent trainings, a process on each of the two
# GPUs of DDP_GPUS), collbench_kineto and collbench_json (as cp's, of collbench: the
# program's own nccl-tests figures in their logs), ddp_bound_json (ddp's 20 steps, its two
# ranks started by bound_ranks.sh, each seeing one GPU of DDP_GPUS alone, as SLURM binds
# them; exported so too), cp_pt_json (cp's 12 steps under nsys --pytorch=autograd-nvtx,
# exported so too), ddp_whole_kineto (no nsys: ddp's 20 steps over the two GPUs of
# DDP_GPUS, the whole loop under torch.profiler with no step marked: $OUT/ddp_whole_kineto.tgz),
# compiled_ro (compiled in torch.compile's reduce-overhead mode: Inductor's CUDA graphs) and
# compiled_ro_kineto (no nsys: its steps 10-14 under torch.profiler: $OUT/compiled_ro.pt.trace.json.gz),
# ddp_bound_ranks (ddp_bound_json's ranks, each under an nsys of its own: a report a rank),
# jax_mp_json (jax_mp's two processes started by bound_ranks.sh under one nsys, XLA's
# command buffers off, --cuda-graph-trace=node; exported with --include-json=true),
# ddp_log_kineto and ddp_log_json (ddp_log over the two GPUs of DDP_GPUS under
# torch.profiler, and under nsys exported with --include-json=true),
# ddp_ranks (ddp's 20 steps under torchrun with nsys inside it, a report a rank:
# ddp_ranks_0 and ddp_ranks_1, exported with --include-json=true),
# jax_fsdp_trace and jax_ring_trace (no nsys: as jax_tp_trace, of jax_fsdp and jax_ring),
# jax_log, jax_shapes, jax_callback, tokenize, multiscale (see gen_unannotated.py),
# ddp_eval_json (ddp_eval under torchrun over the two GPUs of DDP_GPUS, exported so too), and
# jax_log_trace, jax_callback_trace, jax_shapes_trace (as jax_tp_trace; DDP_GPUS=0: one GPU),
# diskread, bandwidth and fp32 (see gen_unannotated.py; bandwidth and fp32 with the GPUs'
# counters; bandwidth_small: its 10 steps, the counters sampled at 2 kHz), ppi_json (as
# pp_json, of pp-interleaved: two stages a rank, looped), features, sidestream, cpu_eval,
# fsdp_offload_json, ddp_gather_json and ddp_barrier_json (as ddp_eval_json's, of
# fsdp_offload, ddp_gather and ddp_barrier), graphbreak,
# jax_no_cb: jax with XLA's command buffers off and nsys --cuda-graph-trace=node (so log_no_cb,
# shapes_no_cb and callback_no_cb: jax_log, jax_shapes and jax_callback; env STEPS); ddp:
# torchrun over the two GPUs of DDP_GPUS, default 0,1).
# Outputs: $OUT/<name>.sqlite.xz, $OUT/unannotated_refs.tgz (CSVs, logs), $OUT/run.log.
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (default .realtraces/.nsysdeps; see README.md).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
START=$SECONDS
GPUS=${GPUS:-0}
ONLY=${ONLY:-generate,vision,triton,vision_py,jax}
export CUDA_VISIBLE_DEVICES=${GPUS%%,*} PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
W=/tmp/unannotated; rm -rf $W; mkdir -p $W $OUT
. $HERE/nsys_env.sh
{
  nvidia-smi; nproc
  python3 -c "import torch, transformers, timm, triton, sys, accelerate; print(sys.version); print(torch.__version__, torch.version.cuda, transformers.__version__, timm.__version__, triton.__version__)"
  python3 -c "import jax; print('jax', jax.__version__)"
  $NSYS --version
} > $W/probe.txt 2>&1
say "$(grep -m1 -o 'NVIDIA [A-Z0-9 ]*[0-9]' $W/probe.txt); $(tail -2 $W/probe.txt | tr '\n' ' ')"
$NSYS profile --help > $W/nsys_profile_help.txt 2>&1
RULES="cuda_memcpy_async cuda_memcpy_sync cuda_memset_sync cuda_api_sync gpu_gaps gpu_time_util"
for name in ${ONLY//,/ }; do
  export CUDA_VISIBLE_DEVICES=${GPUS%%,*}  # one GPU unless the workload asks for two
  if [ $name = cycles ]; then  # torch.profiler alone: its traces, then the next workload
    mkdir -p $W/cycles
    KINETO_DIR=$W/cycles timeout 300 python3 $HERE/gen_unannotated.py cycles > $W/cycles.log 2>&1
    say "cycles: rc=$? $(tail -1 $W/cycles.log)"
    (cd $W && tar czf $OUT/cycles.tgz cycles); continue
  fi
  if [ $name = cycles_ddp ]; then  # ddp's two ranks under torch.profiler, a file a cycle
    mkdir -p $W/cycles_ddp
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
      KINETO_DIR=$W/cycles_ddp STEPS=20 timeout 300 torchrun --nproc_per_node=${NPROC:-2} \
      $HERE/gen_unannotated.py ddp > $W/cycles_ddp.log 2>&1
    say "cycles_ddp: rc=$? $(ls $W/cycles_ddp | wc -l) files"
    (cd $W && tar czf $OUT/cycles_ddp.tgz cycles_ddp); continue
  fi
  if [ $name = fsdp_kineto ]; then  # fsdp's program under torch.profiler (no nsys): a file a rank
    mkdir -p $W/fsdp_kineto
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
      timeout 300 torchrun --nproc_per_node=${NPROC:-2} $HERE/dist_train.py fsdp $W/fsdp_kineto \
      > $W/fsdp_kineto.log 2>&1
    say "fsdp_kineto: rc=$? $(ls $W/fsdp_kineto | wc -l) files"
    (cd $W && tar czf $OUT/fsdp_kineto.tgz fsdp_kineto); continue
  fi
  if [ $name = jax_tp_trace ] || [ $name = jax_fsdp_trace ] || [ $name = jax_ring_trace ] \
      || [ $name = jax_log_trace ] || [ $name = jax_callback_trace ] || [ $name = jax_shapes_trace ]; then
    # the JAX program's steps 20-24 under jax.profiler over two GPUs (no nsys)
    mkdir -p $W/$name
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} JAX_TRACE_DIR=$W/$name STEPS=30 timeout 300 \
      python3 $HERE/gen_unannotated.py ${name%_trace} > $W/$name.log 2>&1
    say "$name: rc=$? $(find $W/$name -type f | wc -l) files $(tail -1 $W/$name.log)"
    (cd $W && tar czf $OUT/$name.tgz $name); continue
  fi
  if [ $name = jax_mp_trace ]; then  # jax_mp: a process a GPU, each traced by jax.profiler (no nsys)
    mkdir -p $W/jax_mp_trace
    for r in 0 1; do
      CUDA_VISIBLE_DEVICES=$(echo ${DDP_GPUS:-0,1} | cut -d, -f$((r + 1))) RANK=$r WORLD=2 \
        JAX_TRACE_DIR=$W/jax_mp_trace STEPS=30 timeout 300 \
        python3 $HERE/gen_unannotated.py jax_mp > $W/jax_mp_$r.log 2>&1 &
    done
    wait
    say "jax_mp_trace: $(find $W/jax_mp_trace -type f | wc -l) files $(tail -qn1 $W/jax_mp_*.log | tr '\n' ' ')"
    (cd $W && tar czf $OUT/jax_mp_trace.tgz jax_mp_trace jax_mp_*.log); continue
  fi
  if [ $name = ddp_whole_kineto ]; then  # ddp's 20 steps, the whole loop under torch.profiler, no step marked
    mkdir -p $W/ddp_whole_kineto
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
      KINETO_WHOLE_DIR=$W/ddp_whole_kineto STEPS=20 timeout 300 torchrun --nproc_per_node=${NPROC:-2} \
      $HERE/gen_unannotated.py ddp > $W/ddp_whole_kineto.log 2>&1
    say "ddp_whole_kineto: rc=$? $(ls $W/ddp_whole_kineto | wc -l) files"
    gzip -9 $W/ddp_whole_kineto/*.json; (cd $W && tar czf $OUT/ddp_whole_kineto.tgz ddp_whole_kineto); continue
  fi
  if [ $name = compiled_ro_kineto ]; then  # compiled in reduce-overhead mode, steps 10-14 under torch.profiler
    KINETO=$W/compiled_ro.pt.trace.json COMPILE_MODE=reduce-overhead STEPS=15 timeout 400 \
      python3 $HERE/gen_unannotated.py compiled > $W/compiled_ro_kineto.log 2>&1
    say "compiled_ro_kineto: rc=$? $(tail -1 $W/compiled_ro_kineto.log)"
    gzip -9 -c $W/compiled_ro.pt.trace.json > $OUT/compiled_ro.pt.trace.json.gz; continue
  fi
  if [ $name = moe_cuda_kineto ]; then  # moe's steps 10-14 under torch.profiler, activities=[CUDA] alone
    KINETO=$W/moe_cuda.pt.trace.json KINETO_CUDA_ONLY=1 STEPS=15 timeout 300 \
      python3 $HERE/gen_unannotated.py moe > $W/moe_cuda_kineto.log 2>&1
    say "moe_cuda_kineto: rc=$? $(tail -1 $W/moe_cuda_kineto.log)"
    gzip -9 -c $W/moe_cuda.pt.trace.json > $OUT/moe_cuda.pt.trace.json.gz; continue
  fi
  if [ $name = ckpt_kineto ]; then  # ckpt's steps 10-14 under torch.profiler with profile_memory (no nsys)
    KINETO=$W/ckpt.pt.trace.json KINETO_MEMORY=1 STEPS=15 timeout 300 \
      python3 $HERE/gen_unannotated.py ckpt > $W/ckpt_kineto.log 2>&1
    say "ckpt_kineto: rc=$? $(tail -1 $W/ckpt_kineto.log)"
    gzip -9 -c $W/ckpt.pt.trace.json > $OUT/ckpt.pt.trace.json.gz; continue
  fi
  if [ $name = ep_kineto ] || [ $name = tp_sp_kineto ] || [ $name = ddp_log_kineto ] \
      || [ $name = ddp_compile_kineto ] || [ $name = fsdp_root_kineto ] \
      || [ $name = cp_kineto ] || [ $name = cp_a2a_kineto ] || [ $name = collbench_kineto ]; then  # the two ranks under torch.profiler (no nsys): a file a rank
    mkdir -p $W/$name
    rotate=allgather; [ $name = cp_a2a_kineto ] && rotate=alltoall
    CP_ROTATE=$rotate CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
      KINETO_DIR=$W/$name timeout 300 torchrun --nproc_per_node=${NPROC:-2} $HERE/gen_unannotated.py $(echo ${name%_kineto} | sed 's/_a2a$//') \
      > $W/$name.log 2>&1
    say "$name: rc=$? $(ls $W/$name | wc -l) files $(grep -h ' ok ' $W/$name.log | tail -1)"
    gzip -9 $W/$name/*.json; (cd $W && tar czf $OUT/$name.tgz $name); continue
  fi
  workload=$name; extra=""; trace=${TRACE:-cuda,nvtx,osrt}
  [ $name = amp_libs ] && trace=$trace,cudnn,cublas
  FLAGS="-t $trace --sample=process-tree --cpuctxsw=process-tree"
  [ $name = ranged ] && extra="--capture-range=cudaProfilerApi --capture-range-end=stop"
  if [ $name = ddp_ranks ]; then  # nsys under torchrun: a report a rank, as multi-GPU jobs are often recorded
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 STEPS=20 \
      timeout -k 5 300 torchrun --nproc_per_node=${NPROC:-2} --no-python $NSYS profile $FLAGS -f true \
      -o $W/ddp_ranks_%q{RANK} python3 $HERE/gen_unannotated.py ddp > $W/ddp_ranks.log 2>&1
    say "nsys ddp_ranks: rc=$? $(grep -h ' ok ' $W/ddp_ranks.log | tr '\n' ' ')"
    for r in 0 1; do
      P=$W/ddp_ranks_$r
      timeout 200 $NSYS export --type sqlite --include-json=true -f true -o $P.sqlite $P.nsys-rep >> $P.log 2>&1
      timeout 90 $NSYS analyze -r gpu_gaps:gap=1:rows=-1 --format csv --force-overwrite true -o $P $P.sqlite >> $P.log 2>&1
      xz -T0 -6 -c $P.sqlite > $OUT/ddp_ranks_$r.sqlite.xz
      say "xz ddp_ranks_$r: $(stat -c %s $OUT/ddp_ranks_$r.sqlite.xz) B"
    done
    continue
  fi
  if [ $name = ddp_bound_ranks ]; then  # ranks bound to a GPU each, nsys inside each: a report a rank (srun-style)
    CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 STEPS=20 \
      RANK_PREFIX="$NSYS profile $FLAGS -f true -o $W/ddp_bound_ranks_%r" \
      timeout -k 5 300 bash $HERE/bound_ranks.sh $HERE/gen_unannotated.py ddp > $W/ddp_bound_ranks.log 2>&1
    say "nsys ddp_bound_ranks: rc=$? $(grep -h ' ok ' $W/ddp_bound_ranks.log | tr '\n' ' ')"
    for r in 0 1; do
      P=$W/ddp_bound_ranks_$r
      timeout 200 $NSYS export --type sqlite --include-json=true -f true -o $P.sqlite $P.nsys-rep >> $P.log 2>&1
      xz -T0 -6 -c $P.sqlite > $OUT/ddp_bound_ranks_$r.sqlite.xz
      say "xz ddp_bound_ranks_$r: $(stat -c %s $OUT/ddp_bound_ranks_$r.sqlite.xz) B"
    done
    continue
  fi
  if [ $name = bert_pt ]; then
    grep -q -- '--pytorch' $W/nsys_profile_help.txt || { say "no --pytorch"; continue; }
    workload=bert; extra="--pytorch=autograd-nvtx"
  fi
  if [ "${name%_no_cb}" != $name ]; then  # XLA's command buffers off: each step's kernels traced
    workload=${name%_no_cb}; [ $workload = jax ] || workload=jax_$workload
    extra="--cuda-graph-trace=node"
  fi
  if [ $name = decode_node ]; then  # decode with each replayed graph's kernels traced
    workload=decode; extra="--cuda-graph-trace=node"
  fi
  if [ "${name%_py}" != $name ]; then  # vision_py, churn_py: the workload with Python's stacks
    grep -q -- '--python-sampling' $W/nsys_profile_help.txt || { say "no --python-sampling"; continue; }
    # Python's own stacks: sampled (--python-sampling) and taken at each CUDA call
    # (--python-backtrace=cuda, which needs the calls' backtraces: --cudabacktrace; `all`
    # backtraces the calls of 80 µs or more, churn_py's `all:0` every call)
    bt=all; [ $name = churn_py ] && bt=all:0
    workload=${name%_py}; extra="--python-sampling=true --python-backtrace=cuda --cudabacktrace=$bt"
  fi
  LAUNCH=python3; program=$HERE/gen_unannotated.py
  [ "${name%_no_cb}" != $name ] && LAUNCH="env XLA_FLAGS=--xla_gpu_enable_command_buffer= python3"
  case $name in fsdp|nocache|moe|graphed|jax_tp|pinned|ckpt|bandwidth|fp32) extra="$extra --gpu-metrics-devices=all" ;; esac
  if [ $name = nocache ]; then LAUNCH="env PYTORCH_NO_CUDA_MEMORY_CACHING=1 python3"; fi
  if [ $name = nocache_small ]; then  # nocache's 10 steps, no counters: a sample's size
    workload=nocache; LAUNCH="env PYTORCH_NO_CUDA_MEMORY_CACHING=1 STEPS=10 python3"
  fi
  [ $name = moe_small ] && workload=moe  # moe without the counters: a sample's size
  if [ $name = bandwidth_small ]; then  # bandwidth's 10 steps, its counters at 2 kHz: a sample's size
    workload=bandwidth; LAUNCH="env STEPS=10 python3"
    extra="--gpu-metrics-devices=all --gpu-metrics-frequency=2000"
  fi
  if [ $name = jax_tp ]; then export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}; fi  # two GPUs
  if [ $name = ddp ]; then  # one process per GPU of DDP_GPUS, under one nsys
    LAUNCH="torchrun --nproc_per_node=${NPROC:-2}"; export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  [ $name = trainer_dp ] && workload=trainer
  if [ $name = trainer_ddp ]; then  # the Trainer under torchrun: DDP, a process per GPU
    workload=trainer; LAUNCH="torchrun --nproc_per_node=${NPROC:-2}"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = loader0 ]; then LAUNCH="env WORKERS=0 STEPS=20 python3"; fi
  if [ $name = accum_small ]; then workload=accum; LAUNCH="env STEPS=5 python3"; fi
  if [ $name = ddp_json ]; then  # ddp's 10 steps, exported with NCCL's NVTX payloads
    workload=ddp; LAUNCH="env STEPS=10 torchrun --nproc_per_node=${NPROC:-2}"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = ep_json ] || [ $name = tp_sp_json ] || [ $name = ddp_log_json ] \
      || [ $name = ddp_compile_json ] || [ $name = fsdp_root_json ] || [ $name = cp_json ] \
      || [ $name = collbench_json ] || [ $name = ddp_eval_json ] || [ $name = fsdp_offload_json ] \
      || [ $name = ddp_gather_json ] || [ $name = ddp_barrier_json ]; then  # under torchrun over two GPUs, NCCL's NVTX payloads kept
    workload=${name%_json}; LAUNCH="torchrun --nproc_per_node=${NPROC:-2}"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = ddp_bound_json ]; then  # ddp's ranks each given its own GPU alone, under one nsys
    workload=ddp; LAUNCH="env STEPS=20 bash $HERE/bound_ranks.sh"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = jax_mp_json ]; then  # jax_mp's two processes, a GPU each, under one nsys (XLA's command buffers off)
    workload=jax_mp; extra="--cuda-graph-trace=node"
    LAUNCH="env WORLD=2 STEPS=30 XLA_FLAGS=--xla_gpu_enable_command_buffer= bash $HERE/bound_ranks.sh"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}
  fi
  if [ $name = cp_pt_json ]; then  # cp under torchrun with nsys's NVTX ranges of PyTorch's ops
    grep -q -- '--pytorch' $W/nsys_profile_help.txt || { say "no --pytorch"; continue; }
    workload=cp; extra="--pytorch=autograd-nvtx"; LAUNCH="env STEPS=12 torchrun --nproc_per_node=${NPROC:-2}"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = ddp_accum ]; then  # ddp's MLP with no_sync() micro-batches, under torchrun
    LAUNCH="torchrun --nproc_per_node=${NPROC:-2}"; export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  fi
  if [ $name = bert_pt ]; then LAUNCH="env STEPS=12 python3"; fi
  [ $name = compiled_ro ] && { workload=compiled; LAUNCH="env COMPILE_MODE=reduce-overhead python3"; }
  if [ $name = bert_nvtx ]; then workload=bert; LAUNCH="env EMIT_NVTX=1 STEPS=12 python3"; fi
  if [ $name = bert_mid ]; then
    workload=bert; extra="--delay=15 --duration=3"; LAUNCH="env STEPS=300 python3"
  fi
  if [ $name = split ] || [ $name = dataparallel ] || [ $name = trainer_dp ] || [ $name = sweep ]; then export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}; fi  # two GPUs
  if [ $name = jax_dp ]; then  # jax_dp.py bare: one process over the two GPUs of DDP_GPUS
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} PLAIN=1
    program=$HERE/jax_dp.py; workload=$W
  fi
  if [ $name = tp_json ] || [ $name = pp_json ] || [ $name = ppi_json ]; then  # parallel_train.py, nothing marked
    LAUNCH="env PLAIN=1 MARKS=0 torchrun --nproc_per_node=${NPROC:-2}"
    export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
    program=$HERE/parallel_train.py; workload="tp $W"
    [ $name = pp_json ] && workload="pp-1f1b $W"
    [ $name = ppi_json ] && workload="pp-interleaved $W"
  fi
  if [ $name = fsdp ] || [ $name = fsdp_json ]; then  # dist_train.py's FSDP2 ViT, bare with NVTX step ranges
    LAUNCH="torchrun --nproc_per_node=${NPROC:-2}"; export CUDA_VISIBLE_DEVICES=${DDP_GPUS:-0,1}
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 PLAIN=1
    program=$HERE/dist_train.py; workload="fsdp $W"
  fi
  P=$W/$name
  timeout -k 5 300 $NSYS profile $FLAGS $extra -f true -o $P \
    $LAUNCH $program $workload > $P.log 2>&1
  say "nsys $name: rc=$? $(grep -h ' ok ' $P.log | tail -1)"
  [ -f $P.nsys-rep ] || [ ! -f $P.qdstrm ] || timeout 150 $D/QdstrmImporter -i $P.qdstrm >> $P.log 2>&1
  rm -f $P.qdstrm
  # --include-json: the Python samples' and backtraces' frames are kept only as JSON text
  json=""; [ "${name%_py}" != $name ] || [ "${name%_json}" != $name ] && json="--include-json=true"
  timeout 200 $NSYS export --type sqlite $json -f true -o $P.sqlite $P.nsys-rep >> $P.log 2>&1
  say "export $name: rc=$? $(stat -c %s $P.sqlite 2>/dev/null) B"
  for r in $RULES gpu_gaps:gap=0; do
    arg=$r:rows=-1; [ $r = gpu_gaps ] && arg=gpu_gaps:gap=1:rows=-1
    timeout 90 $NSYS analyze -r $arg --format csv --force-overwrite true -o $P $P.sqlite >> $P.log 2>&1
  done
  timeout 150 $NSYS stats --format csv --force-overwrite true -o $P -r \
    cuda_gpu_kern_sum,cuda_gpu_sum,cuda_api_sum,osrt_sum,cuda_gpu_mem_time_sum $P.sqlite >> $P.log 2>&1
  xz -T0 -6 -c $P.sqlite > $OUT/$name.sqlite.xz
  say "xz $name: $(stat -c %s $OUT/$name.sqlite.xz) B"
  if [ $name = split ] || [ $name = dataparallel ] || [ $name = moe ]; then  # its steps 10-14 by torch.profiler
    KINETO=$P.pt.trace.json timeout 300 python3 $program $workload >> $P.log 2>&1
    gzip -9 -c $P.pt.trace.json > $OUT/$name.pt.trace.json.gz
    say "kineto $name: $(stat -c %s $OUT/$name.pt.trace.json.gz) B"
  fi
done
cp $T/rules/cuda_api_sync.py $W/ 2>/dev/null
(cd $W && tar czf $OUT/unannotated_refs.tgz *.csv *.log *.txt *.py)
ls -la $OUT | tee -a $LOG

#!/bin/bash
# Record gen_compiled_lm.py as users record whole programs: `nsys profile -t cuda,nvtx,osrt
# --sample=process-tree --cpuctxsw=process-tree --gpu-metrics-devices=all
# --cuda-memory-usage=true` (imports, the model's build and torch.compile inside the
# capture; no capture range), exported to SQLite with NVIDIA's answers beside it (`nsys
# stats` and `nsys analyze` CSVs, every row); then the same program under torch.profiler.
# Run from the repository root:   OUT=/some/dir bash recordings/record_compiled_lm.sh
# A second `nsys profile` of it records CUDA and NVTX alone (`compiled_lm_lean`).
# Env: OUT (a folder), GPUS (the first is used), SAMPLING_HZ (500), GPU_METRICS_HZ (2000),
# ONLY (full,lean,torch,ddp: which recordings to make; ddp: torchrun over the two GPUs of
# DDP_GPUS (0,1), lean under nsys and under torch.profiler, a trace per rank).
# Outputs: $OUT/compiled_lm.sqlite.xz and $OUT/compiled_lm_lean.sqlite.xz, $OUT/compiled_lm_refs.tgz
# (NVIDIA's CSVs, logs), $OUT/compiled_lm.pt.trace.json.gz, $OUT/run.log.
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (default .realtraces/.nsysdeps; see README.md).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
START=$SECONDS
SAMPLING_HZ=${SAMPLING_HZ:-500}
GPU_METRICS_HZ=${GPU_METRICS_HZ:-2000}
GPUS=${GPUS:-0}
ONLY=${ONLY:-full,lean,torch}
DDP_GPUS=${DDP_GPUS:-0,1}
LAUNCH=python3
export CUDA_VISIBLE_DEVICES=${GPUS%%,*} PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/compiled-lm; rm -rf $W; mkdir -p $W/nsys $W/torch $W/logs $OUT
. $HERE/nsys_env.sh
{
  nvidia-smi; nproc
  python3 -c "import torch, transformers, sys; print(sys.version); print(torch.__version__, torch.version.cuda, transformers.__version__)"
  $NSYS --version
} > $W/logs/probe.txt 2>&1
say "$(grep -m1 -o 'NVIDIA [A-Z0-9 ]*[0-9]' $W/logs/probe.txt); $(tail -2 $W/logs/probe.txt | tr '\n' ' ')"

HELP=$W/logs/nsys_profile_help.txt; $NSYS profile --help > $HELP 2>&1
if grep -q -- '--sampling-frequency' $HELP; then SAMPLING="--sampling-frequency=$SAMPLING_HZ"
else SAMPLING="--sampling-period=$(( 1000000000 / SAMPLING_HZ ))"; fi
GM="--gpu-metrics-devices=all"
grep -q -- '--gpu-metrics-frequency' $HELP && GM="$GM --gpu-metrics-frequency=$GPU_METRICS_HZ"
FLAGS="--sample=process-tree --cpuctxsw=process-tree $SAMPLING $GM --cuda-memory-usage=true"

record() {  # record NAME FLAGS...: the whole program under nsys, exported to SQLite
  local name=$1 P=$W/nsys/$1; shift
  (export PLAIN=1; timeout -k 5 300 $NSYS profile "$@" -f true -o $P \
     $LAUNCH $HERE/gen_compiled_lm.py $W/nsys) > $P.log 2>&1
  say "nsys $name: rc=$? $(grep -h ' ok ' $P.log | tail -1)"
  [ -f $P.nsys-rep ] || [ ! -f $P.qdstrm ] || timeout 150 $D/QdstrmImporter -i $P.qdstrm >> $P.log 2>&1
  rm -f $P.qdstrm
  timeout 200 $NSYS export --type sqlite -f true -o $P.sqlite $P.nsys-rep >> $P.log 2>&1
  say "export $name: rc=$? $(stat -c %s $P.sqlite 2>/dev/null) B"
}
RULES="cuda_memcpy_async cuda_memcpy_sync cuda_memset_sync cuda_api_sync gpu_gaps gpu_time_util"
analyze() {  # analyze NAME: every rule's rows, gaps at gap=1 ms and 0, the stats reports
  local P=$W/nsys/$1 r arg
  for r in $RULES; do
    arg=$r:rows=-1; [ $r = gpu_gaps ] && arg=gpu_gaps:gap=1:rows=-1
    timeout 90 $NSYS analyze -r $arg --format csv --force-overwrite true -o $P $P.sqlite
  done
  timeout 90 $NSYS analyze -r gpu_gaps:gap=0:rows=-1 --format csv --force-overwrite true \
    -o $P.gap0 $P.sqlite
  timeout 90 $NSYS analyze -r $(echo $RULES | tr ' ' ',') $P.sqlite > $P.analyze.txt 2>&1
  timeout 120 $NSYS stats --format csv --force-overwrite true -o $P \
    -r cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum,osrt_sum,nvtx_gpu_proj_sum,cuda_gpu_sum \
    $P.sqlite
}

# 1. the whole program under nsys: with CPU samples, GPU metrics and memory usage, and
# lean (CUDA and NVTX alone: small enough for sample_traces/); NVIDIA's answers beside
# each, while the next records
PIDS=()
if [[ $ONLY == *full* ]]; then
  record compiled_lm -t cuda,nvtx,osrt $FLAGS
  analyze compiled_lm > $W/nsys/compiled_lm.analyze.log 2>&1 & PIDS+=($!)
fi
if [[ $ONLY == *lean* ]]; then
  record compiled_lm_lean -t cuda,nvtx --sample=none --cpuctxsw=none
  analyze compiled_lm_lean > $W/nsys/compiled_lm_lean.analyze.log 2>&1 & PIDS+=($!)
fi

# data-parallel over two GPUs (torchrun, NCCL; rank 0 writes the checkpoint), lean
if [[ $ONLY == *ddp* ]]; then
  (export CUDA_VISIBLE_DEVICES=$DDP_GPUS
   LAUNCH="python3 -m torch.distributed.run --standalone --nproc_per_node=2"
   record compiled_lm_ddp -t cuda,nvtx --sample=none --cpuctxsw=none)
  analyze compiled_lm_ddp > $W/nsys/compiled_lm_ddp.analyze.log 2>&1 & PIDS+=($!)
fi

# 2. the same program under torch.profiler (beside the analyses: another process)
if [[ $ONLY == *torch* ]]; then
  timeout -k 5 200 python3 $HERE/gen_compiled_lm.py $W/torch > $W/logs/torch.log 2>&1
  say "torch.profiler: rc=$? $(grep -h ' ok ' $W/logs/torch.log | tail -1)"
fi
if [[ $ONLY == *ddp* ]]; then
  CUDA_VISIBLE_DEVICES=$DDP_GPUS timeout -k 5 240 python3 -m torch.distributed.run --standalone \
    --nproc_per_node=2 $HERE/gen_compiled_lm.py $W/torch > $W/logs/torch_ddp.log 2>&1
  say "torch.profiler, DDP: rc=$? $(grep -h ' ok ' $W/logs/torch_ddp.log | tr '\n' ';')"
fi
for p in "${PIDS[@]}"; do wait $p; done
say "analyses done: $(ls $W/nsys/*.csv 2>/dev/null | wc -l) CSVs"

# 3. pack
cp $W/torch/compiled_lm*.pt.trace.json.gz $OUT/ 2>/dev/null
for f in $W/nsys/*.sqlite; do xz -T0 -6 -c $f > $OUT/$(basename $f).xz; done
cp $LOG $W/logs/run.log
(cd $W && tar czf $OUT/compiled_lm_refs.tgz nsys/*.csv nsys/*.log nsys/*.txt logs)
ls -la $OUT | tee -a $LOG
say "done"

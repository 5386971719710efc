#!/bin/bash
# Record loops of known bound (gen_bounds.py, gen_bounds_jax.py) on one GPU: PyTorch under
# torch.profiler, the same loops under nsys (one report per loop, only the loop: the
# capture range is cudaProfilerStart/Stop) with NVIDIA's `nsys analyze` and `nsys stats`
# CSVs beside each, an ncu report of the GEMM and element-wise kernels, and JAX under
# jax.profiler. Everything lands in $OUT/bounds.tgz (or $TGZ), with each step's log.
# Env: OUT (a folder), GPUS (GPU indices; the first is used), BUDGET (seconds, 265).
# Needs the libdw1 and libelf1 .deb files in $NSYS_DEPS for the nsys bundled with ncu.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
START=$SECONDS
BUDGET=${BUDGET:-265}
TGZ=${TGZ:-$OUT/bounds.tgz}
case $TGZ in /*) ;; *) TGZ=$(pwd)/$TGZ ;; esac  # packed from inside the work folder
DEPS=${NSYS_DEPS:-$(pwd)/.realtraces/.nsysdeps}
export CUDA_VISIBLE_DEVICES=${GPUS%%,*}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export XLA_PYTHON_CLIENT_PREALLOCATE=false
W=/tmp/bounds-rec; rm -rf $W; mkdir -p $W/torch $W/nsys $W/ncu $W/jax $W/logs
LOG=$W/logs/run.log
left() { echo $(( BUDGET - (SECONDS - START) )); }
# cap T: at most T seconds, and never past the budget less RESERVE seconds
cap() { local t=$1 reserve=$2 l; l=$(( $(left) - reserve )); [ $l -lt $t ] && t=$l; [ $t -lt 1 ] && t=1; echo $t; }
say() { echo "[$(( SECONDS - START ))s] $*" | tee -a $LOG; }

H=$(ls -d /opt/nvidia/nsight-compute/*/host 2>/dev/null | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* 2>/dev/null | head -1)
NSYS=$(command -v nsys || echo $T/nsys)
NCU_BIN=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
NSYS_LD=/tmp/deps/usr/lib/x86_64-linux-gnu:$D
{
  nvidia-smi; python3 -c "import torch, sys; print(sys.version); print(torch.__version__, torch.version.cuda)"
  echo "nsys=$NSYS ncu=$NCU_BIN"; LD_LIBRARY_PATH=$NSYS_LD $NSYS --version; $NCU_BIN --version
} > $W/logs/probe.txt 2>&1
say "probe done, GPU $CUDA_VISIBLE_DEVICES"

RULES="cuda_memcpy_async cuda_memcpy_sync cuda_memset_sync cuda_api_sync gpu_gaps gpu_time_util"
analyze() {  # analyze SQLITE PREFIX: every rule's rows (rows=-1), every gap (gap=0) and stats
  local r arg
  export LD_LIBRARY_PATH=$NSYS_LD
  for r in $RULES; do
    arg=$r:rows=-1; [ $r = gpu_gaps ] && arg=gpu_gaps:gap=1:rows=-1
    timeout 30 $NSYS analyze -r $arg --format csv --force-overwrite true -o $2 $1 >> $2.analyze.log 2>&1
  done
  # every idle interval, however short, as NVIDIA counts them (the idle total's reference)
  timeout 30 $NSYS analyze -r gpu_gaps:gap=0:rows=-1 --format csv --force-overwrite true \
    -o $2.gap0 $1 >> $2.analyze.log 2>&1
  timeout 30 $NSYS analyze -r $(echo $RULES | tr ' ' ',') $1 > $2.analyze.txt 2>&1
  timeout 40 $NSYS stats --format csv --force-overwrite true -o $2 \
    -r cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum $1 \
    >> $2.analyze.log 2>&1
}

export -f analyze; export NSYS NSYS_LD RULES

# 1. PyTorch under torch.profiler: six loops
timeout $(cap 75 185) python3 $HERE/gen_bounds.py $W/torch > $W/logs/torch.log 2>&1
say "torch.profiler: rc=$? $(grep -c ' ok ' $W/logs/torch.log) ok"

# 2. the same loops under nsys, one report each; exports and NVIDIA's analyses run meanwhile
PIDS=()
for name in bound_loader bound_sync bound_copy bound_compute bound_launch bound_memory; do
  t=$(cap 25 120)
  [ $t -lt 10 ] && { say "nsys $name skipped: no time left"; continue; }
  (export LD_LIBRARY_PATH=$NSYS_LD PLAIN=1
   timeout $t $NSYS profile -t cuda,nvtx --sample=none --cpuctxsw=none \
     --capture-range=cudaProfilerApi --capture-range-end=stop -f true -o $W/nsys/$name \
     python3 $HERE/gen_bounds.py $W/nsys $name) > $W/nsys/$name.log 2>&1
  rc=$?
  [ -f $W/nsys/$name.nsys-rep ] || [ ! -f $W/nsys/$name.qdstrm ] || \
    LD_LIBRARY_PATH=$NSYS_LD timeout 30 $D/QdstrmImporter -i $W/nsys/$name.qdstrm >> $W/nsys/$name.log 2>&1
  rm -f $W/nsys/$name.qdstrm
  say "nsys $name: rc=$rc $(ls $W/nsys/$name.nsys-rep 2>/dev/null)"
  if [ -f $W/nsys/$name.nsys-rep ]; then
    # timeout kills the whole group (nsys included) should the budget run out
    timeout $(cap 120 10) bash -c "LD_LIBRARY_PATH=$NSYS_LD timeout 40 $NSYS export --type sqlite \
      -f true -o $W/nsys/$name.sqlite $W/nsys/$name.nsys-rep >> $W/nsys/$name.log 2>&1 \
      && analyze $W/nsys/$name.sqlite $W/nsys/$name" &
    PIDS+=($!)
  fi
done

# 3. ncu of three GEMMs and three element-wise multiplies (kernels of bound_compute, bound_memory)
t=$(cap 40 75)
if [ $t -ge 15 ] && [ -n "$NCU_BIN" ]; then
  NCU=1 timeout $t $NCU_BIN --nvtx --nvtx-include "ncu/" --set full -f -o $W/ncu/bounds \
    python3 $HERE/gen_bounds.py $W/ncu > $W/ncu/ncu.log 2>&1
  say "ncu: rc=$? $(ls $W/ncu/*.ncu-rep 2>/dev/null)"
  if [ -f $W/ncu/bounds.ncu-rep ]; then
    timeout 20 $NCU_BIN --import $W/ncu/bounds.ncu-rep --csv --page details > $W/ncu/bounds.details.csv 2>&1
    timeout 20 $NCU_BIN --import $W/ncu/bounds.ncu-rep --csv --page raw > $W/ncu/bounds.raw.csv 2>&1
  fi
else
  say "ncu skipped (t=$t, ncu=$NCU_BIN)"
fi

# 4. JAX under jax.profiler: five loops
t=$(cap 75 15)
timeout $t python3 $HERE/gen_bounds_jax.py $W/jax > $W/logs/jax.log 2>&1
say "jax: rc=$? $(grep -c ' ok' $W/logs/jax.log) ok"

# 5. wait for the analyses (each is bounded by its own timeouts), then pack
for p in "${PIDS[@]}"; do wait $p; done
say "analyses done"
rm -f $W/nsys/*.nsys-rep
du -a $W | sort -n | tail -40 > $W/logs/sizes.txt
(cd $W && tar czf $TGZ torch nsys ncu jax logs)
if [ $(stat -c %s $TGZ) -gt 15000000 ]; then  # over the limit: the ncu report goes first
  say "archive too big ($(stat -c %s $TGZ)); dropping ncu-rep and jax perfetto copies"
  rm -f $W/ncu/*.ncu-rep; find $W/jax -name 'perfetto_trace.json.gz' -delete
  (cd $W && tar czf $TGZ torch nsys ncu jax logs)
fi
say "packed $(stat -c %s $TGZ) bytes"
(cd $W && tar czf $TGZ torch nsys ncu jax logs)  # again, with the last log line

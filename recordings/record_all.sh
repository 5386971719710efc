#!/bin/bash
# Record the real profiles tui's tests use, on a machine with an NVIDIA GPU, JAX, PyTorch,
# nvcc and Nsight Compute (which bundles nsys), and NVIDIA's own answers to check them by:
# `nsys stats` and `nsys analyze` CSVs. Outputs are packed into $OUT.
# Needs the libdw1 and libelf1 .deb files in $NSYS_DEPS (see ../README.md, "Recording").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DEPS=${NSYS_DEPS:-$HERE/../.realtraces/.nsysdeps}
H=$(ls -d /opt/nvidia/nsight-compute/*/host | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D
W=/tmp/rec; rm -rf $W; mkdir -p $W/jax $W/nsys $W/torch $W/rules; cd "$HERE"
RULES="cuda_memcpy_async cuda_memcpy_sync cuda_memset_sync cuda_api_sync gpu_gaps gpu_time_util"
STEP=${1:-all}  # all | rules | jax | stacks | backtraces

nsys_run() {  # nsys_run NAME EXTRA_FLAGS -- COMMAND...: profile, import, export, stats, analyze
  local name=$1; shift; local flags=(); while [ "$1" != "--" ]; do flags+=("$1"); shift; done; shift
  timeout 240 $T/nsys profile -t cuda,nvtx ${NSYS_SAMPLE:---sample=none} --cpuctxsw=none "${flags[@]}" -f true \
    -o $W/nsys/$name "$@" > $W/nsys/$name.log 2>&1
  [ -f $W/nsys/$name.nsys-rep ] || $D/QdstrmImporter -i $W/nsys/$name.qdstrm >> $W/nsys/$name.log 2>&1
  rm -f $W/nsys/$name.qdstrm
  $T/nsys export --type sqlite -f true -o $W/nsys/$name.sqlite $W/nsys/$name.nsys-rep >> $W/nsys/$name.log 2>&1
  analyze $W/nsys/$name.sqlite $W/nsys/$name
}

analyze() {  # analyze SQLITE PREFIX: every rule's rows (rows=-1: no 50-row cap) and kernel stats
  local r
  for r in $RULES; do
    arg=$r:rows=-1; [ $r = gpu_gaps ] && arg=gpu_gaps:gap=1:rows=-1
    $T/nsys analyze -r $arg --format csv --force-overwrite true -o $2 $1 >> $2.analyze.log 2>&1 \
      || $T/nsys analyze -r $r --format csv --force-overwrite true -o $2 $1 >> $2.analyze.log 2>&1
  done
  $T/nsys analyze -r $(echo $RULES | tr ' ' ',') $1 > $2.analyze.txt 2>&1
  $T/nsys stats --format csv --force-overwrite true -o $2 \
    -r cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum $1 >> $2.analyze.log 2>&1
}

if [ $STEP = all ] || [ $STEP = rules ]; then
  mkdir -p $W/rules/defs; cp -r $T/rules/. $W/rules/defs/ 2>/dev/null || find / -xdev -path '*rules*' -name 'cuda_api_sync*' 2>/dev/null > $W/rules/where.txt
  $T/nsys analyze --help-rules ALL > $W/rules/help.txt 2>&1
  $T/nsys --version >> $W/rules/help.txt
  nvcc -O2 -arch=sm_90 -o $W/rules_bin rules.cu && nsys_run rules -- $W/rules_bin
  nsys_run sync_habits -- env PLAIN=1 python3 gen_sync.py $W/torch
  timeout 120 python3 gen_sync.py $W/torch > $W/torch/sync.log 2>&1
  for s in ../sample_traces/*.sqlite; do analyze $s $W/rules/$(basename $s .sqlite); done
  (cd $W && tar czf $OUT/rules.tgz nsys rules torch)
fi
if [ $STEP = all ] || [ $STEP = jax ]; then
  timeout 200 python3 gen_jax.py $W/jax > $W/jax/log.txt 2>&1; tail -5 $W/jax/log.txt
  (cd $W && tar czf $OUT/jax.tgz jax)
fi
if [ $STEP = all ] || [ $STEP = stacks ]; then
  mkdir -p $W/stacks
  timeout 200 python3 gen_stacks.py $W/stacks > $W/stacks/log.txt 2>&1; tail -3 $W/stacks/log.txt
  W2=$W; W=$W/stacks
  mkdir -p $W/nsys; NSYS_SAMPLE=--sample=process-tree nsys_run stacks_training --cuda-memory-usage=true --cudabacktrace=all \
    -- env PLAIN=1 python3 gen_stacks.py $W stacks_training
  W=$W2; rm -f $W/stacks/nsys/*.nsys-rep
  (cd $W && tar czf $OUT/stacks.tgz stacks)
fi
if [ $STEP = all ] || [ $STEP = backtraces ]; then
  # CUDA API backtraces need CPU sampling on: the longest period keeps the report small
  NSYS_SAMPLE="--sample=process-tree --sampling-period=16000000" nsys_run backtraces_training \
    --cudabacktrace=all --cuda-memory-usage=true -- env STEPS=2 python3 gen_backtraces.py
  (cd $W && tar czf $OUT/backtraces.tgz nsys/backtraces_training*)
fi
ls -laR $W | head -80; ls -la $OUT

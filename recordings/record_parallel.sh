#!/bin/bash
# Pipeline- and tensor-parallel recordings on several GPUs (parallel_train.py): torch.profiler
# per rank for pp-gpipe, pp-1f1b and tp (Kineto with distributedInfo and record_param_comms),
# and one nsys report over every rank of the pp-1f1b and of the tp job, with `nsys stats`
# and `nsys analyze gpu_gaps`. Packs each part into $OUT/parallel_<part>.tgz (each under
# 16 MB). Run from the repository root:
#   OUT=/some/dir GPUS=0,1,2,3 bash recordings/record_parallel.sh
# Env MODES: the torch.profiler modes (default pp-gpipe pp-1f1b tp; pp-interleaved too),
# NSYS_MODES: those also under nsys (default pp-1f1b tp; empty: none).
# Each step gets what is left of BUDGET seconds (a failing step does not stop the others).
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (see README.md, "Recording").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
GPUS=${GPUS:-0,1,2,3}
BUDGET=${BUDGET:-280}
START=$SECONDS
export CUDA_VISIBLE_DEVICES=$GPUS NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
NGPU=$(echo "$GPUS" | tr ',' '\n' | grep -c .)
W=/tmp/parallelrec; rm -rf $W; mkdir -p $W/torch $W/nsys $W/logs

step() {  # step NAME SECONDS COMMAND...: run with what is left of the budget, log it
  local name=$1 want=$2; shift 2
  local left=$(( BUDGET - (SECONDS - START) - 3 ))
  [ "$left" -lt "$want" ] && want=$left
  if [ "$want" -lt 8 ]; then echo "$name: skipped, ${left}s left" >> $W/logs/steps.txt; return; fi
  local t0=$SECONDS
  timeout -k 5 "$want" "$@" > $W/logs/$name.log 2>&1
  echo "$name: rc=$? ${want}s limit, took $(( SECONDS - t0 ))s" >> $W/logs/steps.txt
}

{ hostname; nvidia-smi -L; nvidia-smi topo -m; python3 -c 'import torch; print(torch.__version__)'; } \
  > $W/logs/machine.txt 2>&1
TORCHRUN=(python3 -m torch.distributed.run --standalone --nproc_per_node=$NGPU)

for mode in ${MODES:-pp-gpipe pp-1f1b tp}; do
  step $mode 45 "${TORCHRUN[@]}" $HERE/parallel_train.py $mode $W/torch
done

DEPS=${NSYS_DEPS:-.realtraces/.nsysdeps}; [ -d "$DEPS" ] || DEPS=$HERE/../.nsysdeps
H=$(ls -d /opt/nvidia/nsight-compute/*/host 2>/dev/null | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* 2>/dev/null | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done 2> $W/logs/deps.log
NSYS_ENV=(env LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D)
for mode in ${NSYS_MODES-pp-1f1b tp}; do
  R=$W/nsys/${mode}_nsys
  step nsys_$mode 60 "${NSYS_ENV[@]}" $T/nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none \
    -f true -o $R env PLAIN=1 "${TORCHRUN[@]}" $HERE/parallel_train.py $mode $W/nsys
  [ -f $R.nsys-rep ] || step nsys_import_$mode 30 "${NSYS_ENV[@]}" $D/QdstrmImporter -i $R.qdstrm
  rm -f $R.qdstrm
  step nsys_export_$mode 30 "${NSYS_ENV[@]}" $T/nsys export --type sqlite -f true -o $R.sqlite $R.nsys-rep
  step nsys_stats_$mode 25 "${NSYS_ENV[@]}" $T/nsys stats --format csv --force-overwrite true -o $R \
    -r cuda_gpu_kern_sum,cuda_kern_exec_sum,cuda_api_sum,nvtx_sum $R.sqlite
  step nsys_gaps_$mode 15 "${NSYS_ENV[@]}" $T/nsys analyze -r gpu_gaps:gap=1:rows=-1 --format csv \
    --force-overwrite true -o $R $R.sqlite
  rm -f $R.nsys-rep
done

gzip -9 $W/torch/*.json 2>/dev/null
cp $HERE/parallel_train.py $0 $W/logs/ 2>/dev/null
ls -laR $W > $W/logs/files.txt 2>&1
echo "total ${SECONDS}s" >> $W/logs/steps.txt
(cd $W && tar czf $OUT/parallel_torch.tgz torch logs)
for mode in ${NSYS_MODES-pp-1f1b tp}; do
  (cd $W && tar czf $OUT/parallel_nsys_$mode.tgz nsys/${mode}_nsys*)
done
ls -la $OUT

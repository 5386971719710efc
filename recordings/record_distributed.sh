#!/bin/bash
# Distributed recordings: DDP and FSDP training on several GPUs with torch.profiler per rank
# (Kineto, distributedInfo), one nsys report over every rank of the DDP job (several
# processes and GPUs), and a JAX data-parallel run over the GPUs of one process. Packs
# everything, with each step's log, into $OUT/i34.tgz. Run from the repository root:
#   OUT=/some/dir GPUS=0,1,2,3 bash recordings/record_distributed.sh
# Each step gets what is left of BUDGET seconds (a failing step does not stop the others).
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (see README.md, "Recording").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
GPUS=${GPUS:-0,1,2,3}
BUDGET=${BUDGET:-255}
START=$SECONDS
export CUDA_VISIBLE_DEVICES=$GPUS NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1 XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
NGPU=$(echo "$GPUS" | tr ',' '\n' | grep -c .)
W=/tmp/i34rec; rm -rf $W; mkdir -p $W/torch $W/nsys $W/jax $W/logs

step() {  # step NAME SECONDS COMMAND...: run with what is left of the budget, log it
  local name=$1 want=$2; shift 2
  local left=$(( BUDGET - (SECONDS - START) - 3 ))
  [ "$left" -lt "$want" ] && want=$left
  if [ "$want" -lt 8 ]; then echo "$name: skipped, ${left}s left" >> $W/logs/steps.txt; return; fi
  local t0=$SECONDS
  timeout -k 5 "$want" "$@" > $W/logs/$name.log 2>&1
  echo "$name: rc=$? ${want}s limit, took $(( SECONDS - t0 ))s" >> $W/logs/steps.txt
}

{ hostname; nvidia-smi -L; nvidia-smi topo -m; python3 -c 'import torch, jax; print(torch.__version__, jax.__version__)'; } \
  > $W/logs/machine.txt 2>&1
TORCHRUN=(python3 -m torch.distributed.run --standalone --nproc_per_node=$NGPU)

step ddp 50 "${TORCHRUN[@]}" $HERE/dist_train.py ddp $W/torch
step fsdp 50 "${TORCHRUN[@]}" $HERE/dist_train.py fsdp $W/torch
step jax 50 python3 $HERE/jax_dp.py $W/jax

# nsys over the whole DDP job: one report, every rank's process and GPU
DEPS=${NSYS_DEPS:-.realtraces/.nsysdeps}; [ -d "$DEPS" ] || DEPS=$HERE/../.nsysdeps
H=$(ls -d /opt/nvidia/nsight-compute/*/host 2>/dev/null | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* 2>/dev/null | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done 2> $W/logs/deps.log
NSYS_ENV=(env LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D)
R=$W/nsys/ddp_nsys
step nsys_profile 80 "${NSYS_ENV[@]}" $T/nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none \
  -f true -o $R env PLAIN=1 "${TORCHRUN[@]}" $HERE/dist_train.py ddp $W/nsys
[ -f $R.nsys-rep ] || step nsys_import 30 "${NSYS_ENV[@]}" $D/QdstrmImporter -i $R.qdstrm
rm -f $R.qdstrm
step nsys_export 30 "${NSYS_ENV[@]}" $T/nsys export --type sqlite -f true -o $R.sqlite $R.nsys-rep
step nsys_stats 25 "${NSYS_ENV[@]}" $T/nsys stats --format csv --force-overwrite true -o $R \
  -r cuda_gpu_kern_sum,cuda_kern_exec_sum,cuda_api_sum,nvtx_sum $R.sqlite
step nsys_gaps 15 "${NSYS_ENV[@]}" $T/nsys analyze -r gpu_gaps:gap=1:rows=-1 --format csv \
  --force-overwrite true -o $R $R.sqlite

gzip -9 $W/torch/*.json 2>/dev/null
cp $HERE/dist_train.py $HERE/jax_dp.py $0 $W/logs/ 2>/dev/null
ls -laR $W > $W/logs/files.txt 2>&1
echo "total ${SECONDS}s" >> $W/logs/steps.txt
(cd $W && tar czf $OUT/i34.tgz torch nsys jax logs)
if [ "$(stat -c %s $OUT/i34.tgz)" -gt 15000000 ]; then  # too big: the .nsys-rep goes first
  rm -f $W/nsys/*.nsys-rep; echo "dropped the .nsys-rep: archive over 15 MB" >> $W/logs/steps.txt
  (cd $W && tar czf $OUT/i34.tgz torch nsys jax logs)
fi
if [ "$(stat -c %s $OUT/i34.tgz)" -gt 15000000 ]; then  # then JAX's Perfetto copy of the xplane
  find $W/jax -name 'perfetto_trace.json.gz' -delete; echo "dropped perfetto_trace.json.gz" >> $W/logs/steps.txt
  (cd $W && tar czf $OUT/i34.tgz torch nsys jax logs)
fi
ls -la $OUT

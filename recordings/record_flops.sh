#!/bin/bash
# FLOP counts and tensor-core use on one GPU: gen_flops.py in bf16, tf32 and fp32 under
# torch.profiler (with_flops, record_shapes) and under nsys (NVTX ranges, `nsys stats -r
# cuda_gpu_kern_sum` as NVIDIA's kernel sums); gen_flops_jax.py (XSpace + XLA's cost
# analysis); and gen_loops.py compute + memory under nsys with the GPU's counters sampled at
# 10 kHz (a report of some 2-3 million GPU_METRICS rows). Run from the repository root:
#   OUT=/some/dir bash recordings/record_flops.sh
# nsys: the one bundled with Nsight Compute (libdw1/libelf1 .deb files in NSYS_DEPS, as
# record_parallel.sh). Packs $OUT/flops.tgz and $OUT/metrics10k.sqlite.xz.
set -u
: "${OUT:?set OUT to a folder}"
HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1
DEPS=${NSYS_DEPS:-.realtraces/.nsysdeps}
H=$(ls -d /opt/nvidia/nsight-compute/*/host | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
NSYS_ENV=(env LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D)
W=/tmp/flopsrec; rm -rf $W; mkdir -p $W/torch $W/nsys $W/jax $W/logs
{ nvidia-smi -L; python3 -c 'import torch, jax; print(torch.__version__, jax.__version__)'; } > $W/logs/machine.txt 2>&1

timeout -k 5 120 python3 $HERE/gen_flops.py $W/torch bf16 tf32 fp32 > $W/logs/torch.log 2>&1
echo "torch rc=$?" >> $W/logs/steps.txt

R=$W/nsys/flops_nsys
timeout -k 5 120 "${NSYS_ENV[@]}" $T/nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none -f true -o $R \
  env PLAIN=1 python3 $HERE/gen_flops.py $W/nsys bf16 tf32 fp32 > $W/logs/nsys.log 2>&1
echo "nsys rc=$?" >> $W/logs/steps.txt
[ -f $R.nsys-rep ] || "${NSYS_ENV[@]}" $D/QdstrmImporter -i $R.qdstrm >> $W/logs/nsys.log 2>&1
"${NSYS_ENV[@]}" $T/nsys export --type sqlite -f true -o $R.sqlite $R.nsys-rep >> $W/logs/nsys.log 2>&1
"${NSYS_ENV[@]}" $T/nsys stats --format csv --force-overwrite true -o $R \
  -r cuda_gpu_kern_sum,nvtx_sum $R.sqlite >> $W/logs/nsys.log 2>&1
rm -f $R.nsys-rep $R.qdstrm

XLA_PYTHON_CLIENT_PREALLOCATE=false timeout -k 5 90 python3 $HERE/gen_flops_jax.py $W/jax > $W/logs/jax.log 2>&1
echo "jax rc=$?" >> $W/logs/steps.txt

M=$W/metrics10k
timeout -k 5 150 "${NSYS_ENV[@]}" $T/nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none \
  --gpu-metrics-devices=all --gpu-metrics-frequency=10000 -f true -o $M \
  env PLAIN=1 python3 $HERE/gen_loops.py $W/loops compute memory > $W/logs/metrics.log 2>&1
echo "metrics rc=$?" >> $W/logs/steps.txt
[ -f $M.nsys-rep ] || "${NSYS_ENV[@]}" $D/QdstrmImporter -i $M.qdstrm >> $W/logs/metrics.log 2>&1
"${NSYS_ENV[@]}" $T/nsys export --type sqlite -f true -o $M.sqlite $M.nsys-rep >> $W/logs/metrics.log 2>&1
python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from GPU_METRICS').fetchone())" $M.sqlite >> $W/logs/steps.txt 2>&1
ls -la $W/*/ $W >> $W/logs/steps.txt
xz -T0 -6 -c $M.sqlite > $OUT/metrics10k.sqlite.xz
cp $HERE/gen_flops.py $HERE/gen_flops_jax.py $0 $W/logs/
tar -C $W -czf $OUT/flops.tgz torch nsys jax logs
cat $W/logs/steps.txt $W/logs/*.log | tail -40

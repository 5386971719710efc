#!/bin/bash
# One short 2-GPU tensor-parallel job (parallel_train.py tp) under nsys with the GPUs'
# hardware counters (--gpu-metrics-devices=all), exported to SQLite, to see how GPU_METRICS'
# typeId names a device when there are several. Run from the repository root:
#   OUT=/some/dir bash recordings/record_gpu_metrics.sh
# nsys: the one bundled with Nsight Compute (libdw1/libelf1 .deb files in NSYS_DEPS, as
# record_parallel.sh).
set -u
: "${OUT:?set OUT to a folder}"
HERE=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
  PYTHONUNBUFFERED=1 PLAIN=1
DEPS=${NSYS_DEPS:-.realtraces/.nsysdeps}
H=$(ls -d /opt/nvidia/nsight-compute/*/host | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* | head -1)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D
W=/tmp/gpumetrics; rm -rf $W; mkdir -p $W
R=$W/tp_metrics
timeout -k 5 100 $T/nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none \
  --gpu-metrics-devices=all -f true -o $R \
  python3 -m torch.distributed.run --standalone --nproc_per_node=2 $HERE/parallel_train.py tp $W \
  > $OUT/profile.log 2>&1
[ -f $R.nsys-rep ] || $D/QdstrmImporter -i $R.qdstrm >> $OUT/profile.log 2>&1
timeout -k 5 40 $T/nsys export --type sqlite -f true -o $OUT/tp_metrics.sqlite $R.nsys-rep \
  >> $OUT/profile.log 2>&1
python3 - "$OUT/tp_metrics.sqlite" <<'PY' > $OUT/mapping.txt 2>&1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for q in ("SELECT DISTINCT typeId, sourceId, typeName FROM TARGET_INFO_GPU_METRICS",
          "SELECT typeId, count(DISTINCT metricId), min(metricName) FROM TARGET_INFO_GPU_METRICS GROUP BY 1",
          "SELECT * FROM GENERIC_EVENT_SOURCES", "SELECT * FROM GENERIC_EVENT_TYPES",
          "SELECT vmId, id, name, busLocation, uuid, pwGpuId, cuDevice, luid FROM TARGET_INFO_GPU",
          "SELECT * FROM TARGET_INFO_CUDA_DEVICE",
          "SELECT typeId, count(*), min(timestamp), max(timestamp) FROM GPU_METRICS GROUP BY 1",
          "SELECT DISTINCT metricName FROM TARGET_INFO_GPU_METRICS",
          "SELECT deviceId, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1"):
    print("--", q)
    try:
        for row in db.execute(q):
            print(row)
    except Exception as exc:
        print("error:", exc)
PY
ls -la $OUT; cat $OUT/mapping.txt

#!/bin/bash
# Nsight Compute reports with source counters for tui's Source view, and NVIDIA's own
# source-page answers (`ncu -i R --page source --csv --print-source ...`) beside them.
# Run from the repository root: bash .realtraces/rec/i36/run.sh  (env OUT, GPUS)
# Writes exactly one file: $OUT/i36.tgz. Whole run stays under ~250 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/i36rec; rm -rf $W; mkdir -p $W/src $W/bin $W/rep $W/csv $W/logs
export CUDA_VISIBLE_DEVICES=${GPUS%%,*}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCU=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
START=$(date +%s)
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a $W/logs/steps.txt; }

{
  nvidia-smi -L; nvcc --version; echo "ncu: $NCU"; $NCU --version
} > $W/logs/versions.txt 2>&1
$NCU --help > $W/logs/ncu_help.txt 2>&1
log "versions done"

# Sources are compiled from $W/src so that the paths recorded in the reports are known.
cp $HERE/hot.cu $HERE/sass_only.cu $W/src/
(
  cd $W/src &&
  timeout 60 nvcc -O3 -lineinfo -arch=sm_90 -c hot.cu -o $W/bin/hot.o &&
  timeout 60 nvcc -O3 -arch=sm_90 -c sass_only.cu -o $W/bin/sass_only.o &&
  timeout 30 nvcc -arch=sm_90 -o $W/bin/hot $W/bin/hot.o $W/bin/sass_only.o
) > $W/logs/build.txt 2>&1
log "build rc=$? $(ls $W/bin)"
timeout 20 $W/bin/hot > $W/logs/plain_run.txt 2>&1; log "plain run rc=$?"

# 1. Every section (SourceCounters among them), the CUDA sources imported into the report.
timeout 110 $NCU --set full --import-source yes --target-processes all -c 6 -f \
  -o $W/rep/hot $W/bin/hot > $W/logs/ncu_hot.txt 2>&1
log "ncu full rc=$?"
# 2. Source counters, the sources NOT imported (only their paths): a SASS-only view elsewhere.
timeout 40 $NCU --section SourceCounters --import-source no --target-processes all \
  -k regex:strided_load -c 1 -f -o $W/rep/hot_noimport $W/bin/hot > $W/logs/ncu_noimport.txt 2>&1
log "ncu noimport rc=$?"
# 3. No source counters at all: one section.
timeout 30 $NCU --section SpeedOfLight --target-processes all -c 2 -f \
  -o $W/rep/hot_sol $W/bin/hot > $W/logs/ncu_sol.txt 2>&1
log "ncu sol rc=$?"

# NVIDIA's answers, each export in parallel (16 cores), each under its own timeout.
export_one() {  # export_one OUTNAME ARGS...
  local name=$1; shift
  timeout 60 $NCU "$@" > $W/csv/$name 2> $W/csv/$name.err
  echo "rc=$? $name" >> $W/logs/exports.txt
}
R=$W/rep/hot.ncu-rep
KERNELS="strided_load gather shared_walk fma_chain divergent sass_only"
if [ -f $R ]; then
  export_one hot.details.csv -i $R --page details --csv &
  export_one hot.details_rules.csv -i $R --page details --csv --print-rule-details &
  export_one hot.raw.csv -i $R --page raw --csv &
  export_one hot.session.txt -i $R --page session &
  for k in $KERNELS; do
    export_one hot.$k.source.sass_cuda.csv -i $R --page source --csv --print-source sass,cuda --kernel-name $k &
    export_one hot.$k.source.cuda_sass.csv -i $R --page source --csv --print-source cuda,sass --kernel-name $k &
    export_one hot.$k.source.sass.csv -i $R --page source --csv --print-source sass --kernel-name $k &
    export_one hot.$k.source.cuda.csv -i $R --page source --csv --print-source cuda --kernel-name $k &
    export_one hot.$k.source.default.csv -i $R --page source --csv --kernel-name $k &
  done
  export_one hot.strided_load.source.sass_cuda.txt -i $R --page source --print-source sass,cuda --kernel-name strided_load &
  wait
fi
R=$W/rep/hot_noimport.ncu-rep
if [ -f $R ]; then
  export_one hot_noimport.source.sass.csv -i $R --page source --csv --print-source sass &
  export_one hot_noimport.source.sass_cuda.csv -i $R --page source --csv --print-source sass,cuda &
  export_one hot_noimport.details.csv -i $R --page details --csv &
  wait
fi
R=$W/rep/hot_sol.ncu-rep
if [ -f $R ]; then
  export_one hot_sol.source.sass.csv -i $R --page source --csv --print-source sass &
  export_one hot_sol.details.csv -i $R --page details --csv &
  wait
fi
log "exports done"

ls -laR $W > $W/logs/listing.txt 2>&1
mkdir -p "$OUT"
(cd $W && tar czf "$OUT/i36.tgz" src rep csv logs)
log "packed $(du -h "$OUT/i36.tgz" | cut -f1)"
if [ "$(du -k "$OUT/i36.tgz" | cut -f1)" -gt 15000 ]; then  # keep under 15 MiB: drop the raw page
  rm -f $W/csv/hot.raw.csv; (cd $W && tar czf "$OUT/i36.tgz" src rep csv logs)
fi
ls -la "$OUT"

#!/bin/bash
# Nsight Compute reports of kernels.cu's ten kernels, each showing one condition the advice
# must recognise, before (as written) and after (-DAFTER: some kernels optimised under the
# same name), with NVIDIA's own answers: the details page with its rule results and each
# kernel's Source page.
# Run from the repository root: bash recordings/ncu_advice/run.sh  (env OUT)
# Writes one file: $OUT/ncu_advice.tgz. The whole run stays under ~200 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/advrec; rm -rf $W; mkdir -p $W/src $W/bin $W/rep $W/csv $W/logs
NCU=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
START=$(date +%s)
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a $W/logs/steps.txt; }

{ nvidia-smi -L; nvcc --version; echo "ncu: $NCU"; $NCU --version; } > $W/logs/versions.txt 2>&1
$NCU --help > $W/logs/ncu_help.txt 2>&1

# Compiled in $W/src so that the paths the reports record are known.
cp $HERE/kernels.cu $W/src/
(
  cd $W/src &&
  timeout 90 nvcc -O3 -lineinfo -arch=sm_90 -Xptxas -v -o $W/bin/before kernels.cu &&
  timeout 90 nvcc -O3 -lineinfo -arch=sm_90 -Xptxas -v -DAFTER -o $W/bin/after kernels.cu
) > $W/logs/build.txt 2>&1
log "build rc=$? $(ls $W/bin)"
timeout 20 $W/bin/before > $W/logs/plain_before.txt 2>&1; log "plain before rc=$?"

for v in before after; do
  timeout 100 $NCU --set full --import-source yes --target-processes all -f \
    -o $W/rep/advice_$v $W/bin/$v > $W/logs/ncu_$v.txt 2>&1
  log "ncu $v rc=$?"
done

export_one() {  # export_one OUTNAME ARGS...
  local name=$1; shift
  timeout 60 $NCU "$@" > $W/csv/$name 2> $W/csv/$name.err
  echo "rc=$? $name" >> $W/logs/exports.txt
}
KERNELS="tiled_gemm register_tiled_gemm local_array spill barrier_heavy atomic_hist divergent_loop texture_read register_heavy"
for v in before after; do
  R=$W/rep/advice_$v.ncu-rep
  [ -f $R ] || continue
  export_one advice_$v.details.csv -i $R --page details --csv &
  export_one advice_$v.details_rules.csv -i $R --page details --csv --print-rule-details &
  export_one advice_$v.raw.csv -i $R --page raw --csv &
  for k in $KERNELS; do
    export_one advice_$v.$k.sass_cuda.csv -i $R --page source --csv --print-source sass,cuda --kernel-name $k &
    export_one advice_$v.$k.sass.csv -i $R --page source --csv --print-source sass --kernel-name $k &
  done
  wait
done
R=$W/rep/advice_before.ncu-rep
[ -f $R ] && export_one advice_before.atomic_hist.sass_cuda.txt -i $R --page source --print-source sass,cuda --kernel-name atomic_hist
log "exports done"

ls -laR $W > $W/logs/listing.txt 2>&1
mkdir -p "$OUT"
(cd $W && tar czf "$OUT/ncu_advice.tgz" src rep csv logs)
log "packed $(du -h "$OUT/ncu_advice.tgz" | cut -f1)"
ls -la "$OUT"

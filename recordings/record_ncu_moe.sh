#!/bin/bash
# Nsight Compute on a whole PyTorch program as users first point it at one: gen_unannotated.py's
# `moe` (2 steps), its first 12 kernels of the kinds that dominate it (GEMMs, the experts'
# gathers and index kernels, the mask's nonzero, AdamW's for-each) under `--set full`, with
# NVIDIA's details page (its rules' findings) and raw page as CSV beside the report.
# Run from the repository root: OUT=/some/dir bash recordings/record_ncu_moe.sh
# Writes $OUT/ncu_moe.tgz. Env WORKLOAD (default moe), STEPS (2), KERNELS (ncu -k, the
# kinds above) and COUNT (12) point it at another workload: ckpt's attention, GEMMs and
# norms (`WORKLOAD=ckpt STEPS=1 KERNELS='regex:sdpa|nvjet|layer_norm|elementwise'`) make
# $OUT/ncu_ckpt.tgz. Env SET (default full): ncu's section set, `default` for none named
# (ncu's own default, what `ncu -o REPORT python3 train.py` collects), and NAME the report's
# name (default the workload's).
set -u
: "${OUT:?set OUT to a folder}"
HERE=$(cd "$(dirname "$0")" && pwd)
WORKLOAD=${WORKLOAD:-moe}
NAME=${NAME:-$WORKLOAD}
SETS="--set ${SET:-full}"; [ "${SET:-full}" = default ] && SETS=""
W=/tmp/ncu_$NAME; rm -rf $W; mkdir -p $W $OUT
NCU=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ nvidia-smi -L; $NCU --version; } > $W/versions.txt 2>&1
STEPS=${STEPS:-2} timeout 400 $NCU $SETS --import-source yes -f -c ${COUNT:-12} \
  -k "${KERNELS:-regex:nvjet|index|gather|nonzero|multi_tensor}" -o $W/$NAME \
  python3 $HERE/gen_unannotated.py $WORKLOAD > $W/ncu.log 2>&1
echo "ncu rc=$? $(tail -1 $W/ncu.log)"
$NCU -i $W/$NAME.ncu-rep --page details --csv > $W/${NAME}_details.csv 2> $W/details.err
$NCU -i $W/$NAME.ncu-rep --page raw --csv > $W/${NAME}_raw.csv 2> $W/raw.err
(cd $W && tar czf $OUT/ncu_$NAME.tgz .)
ls -la $OUT

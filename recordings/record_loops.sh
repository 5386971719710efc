#!/bin/bash
# Record the six loops of gen_loops.py as users record whole programs: one `nsys profile`
# per loop of the whole program (imports, CUDA set-up, host tensors inside the capture; no
# capture range), with OS runtime calls, CPU samples with call chains, context switches and
# the GPU's hardware counters (`-t cuda,nvtx,osrt --sample=process-tree
# --cpuctxsw=process-tree --gpu-metrics-devices=all`), each exported to SQLite with NVIDIA's
# answers beside it (`nsys stats` and `nsys analyze` CSVs); then the same loops under
# torch.profiler (Kineto, profiler steps, Python stacks). NVIDIA's rule and stats-report
# scripts are copied as the reference definitions.
# A quick probe first records a one-second program with every option: should the GPU
# metrics (or CPU sampling) fail there, the loops are recorded without them (logged).
# Run from the repository root:   OUT=/some/dir bash recordings/record_loops.sh
# Env: OUT (a folder), GPUS (the first is used), BUDGET (seconds, 470), SAMPLING_HZ (500:
# --sampling-frequency where nsys offers it, else --sampling-period=1e9/HZ, CPU-clock ns;
# 2025.3.1 has only the period), GPU_METRICS_HZ (2000). Outputs, each under 16 MB: $OUT/loops.tgz (Kineto traces, the
# reference scripts, logs, a summary of every export), $OUT/loops_nsys_<loop>.tgz (the
# SQLite export, the .nsys-rep when it fits, NVIDIA's CSVs, logs), $OUT/run.log.
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (default .realtraces/.nsysdeps; see README.md).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
START=$SECONDS
BUDGET=${BUDGET:-470}
SAMPLING_HZ=${SAMPLING_HZ:-500}
GPU_METRICS_HZ=${GPU_METRICS_HZ:-2000}
DEPS=${NSYS_DEPS:-$(pwd)/.realtraces/.nsysdeps}
GPUS=${GPUS:-0}
export CUDA_VISIBLE_DEVICES=${GPUS%%,*} PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
LOOPS="compute sync copy launch host memory"
W=/tmp/loops-rec; rm -rf $W; mkdir -p $W/nsys $W/torch $W/refs $W/logs $W/probe $OUT
LOG=$OUT/run.log; : > $LOG
left() { echo $(( BUDGET - (SECONDS - START) )); }
# cap T RESERVE: at most T seconds, and never past the budget less RESERVE seconds
cap() { local t=$1 l; l=$(( $(left) - $2 )); [ $l -lt $t ] && t=$l; [ $t -lt 1 ] && t=1; echo $t; }
say() { echo "[$(( SECONDS - START ))s] $*" | tee -a $LOG; }

H=$(ls -d /opt/nvidia/nsight-compute/*/host 2>/dev/null | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* 2>/dev/null | head -1)
NSYS=$(command -v nsys || echo $T/nsys)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
NSYS_LD=/tmp/deps/usr/lib/x86_64-linux-gnu:$D
{
  nvidia-smi; uname -a; nproc; cat /proc/sys/kernel/perf_event_paranoid
  python3 -c "import torch, numpy, sys; print(sys.version); print(torch.__version__, torch.version.cuda, numpy.__version__); numpy.show_config()"
  echo "nsys=$NSYS"; LD_LIBRARY_PATH=$NSYS_LD $NSYS --version
} > $W/logs/probe.txt 2>&1
LD_LIBRARY_PATH=$NSYS_LD $NSYS profile --help > $W/logs/nsys_profile_help.txt 2>&1
LD_LIBRARY_PATH=$NSYS_LD $NSYS stats --help-reports > $W/logs/nsys_stats_help_reports.txt 2>&1
LD_LIBRARY_PATH=$NSYS_LD $NSYS analyze --help-rules > $W/logs/nsys_analyze_help_rules.txt 2>&1
say "probe done: $(grep -m1 -o 'NVIDIA [A-Z0-9 ]*[0-9]' $W/logs/probe.txt) $(tail -1 $W/logs/probe.txt)"

# NVIDIA's definitions: the rules of `nsys analyze` and the reports of `nsys stats`
for d in rules reports; do [ -d $T/$d ] && cp -r $T/$d $W/refs/$d; done
(cd $H && find . -name '*.py' -path '*rules*' -o -name '*.py' -path '*reports*') > $W/refs/found.txt 2>&1
say "refs: $(find $W/refs -type f | wc -l) files, $(du -sh $W/refs | cut -f1)"

HELP=$W/logs/nsys_profile_help.txt
if grep -q -- '--sampling-frequency' $HELP; then SAMPLING="--sampling-frequency=$SAMPLING_HZ"
else SAMPLING="--sampling-period=$(( 1000000000 / SAMPLING_HZ ))"; fi
if grep -q -- '--gpu-metrics-devices' $HELP; then GM="--gpu-metrics-devices=all"
else GM="--gpu-metrics-device=all"; fi
grep -q -- '--gpu-metrics-frequency' $HELP && GM="$GM --gpu-metrics-frequency=$GPU_METRICS_HZ"
CPU="--sample=process-tree --cpuctxsw=process-tree $SAMPLING"

record() {  # record NAME SECONDS FLAGS -- COMMAND...: nsys profile, import, rm the .qdstrm
  local name=$1 t=$2 flags=() rc; shift 2
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done; shift
  (export LD_LIBRARY_PATH=$NSYS_LD PLAIN=1
   timeout -k 5 $t $NSYS profile -t cuda,nvtx,osrt ${flags[@]} -f true -o $name "$@") \
    > $name.log 2>&1
  rc=$?
  [ -f $name.qdstrm ] && ls -la $name.qdstrm >> $name.log
  [ -f $name.nsys-rep ] || [ ! -f $name.qdstrm ] || \
    LD_LIBRARY_PATH=$NSYS_LD timeout 120 $D/QdstrmImporter -i $name.qdstrm >> $name.log 2>&1
  rm -f $name.qdstrm
  return $rc
}
export_sqlite() {  # export_sqlite NAME: NAME.nsys-rep -> NAME.sqlite
  LD_LIBRARY_PATH=$NSYS_LD timeout 150 $NSYS export --type sqlite -f true -o $1.sqlite \
    $1.nsys-rep >> $1.log 2>&1
}
RULES="cuda_memcpy_async cuda_memcpy_sync cuda_memset_sync cuda_api_sync gpu_gaps gpu_time_util"
analyze() {  # analyze SQLITE PREFIX: every rule's rows (rows=-1), gaps at gap=1 and 0, stats
  local r arg
  export LD_LIBRARY_PATH=$NSYS_LD
  for r in $RULES; do
    arg=$r:rows=-1; [ $r = gpu_gaps ] && arg=gpu_gaps:gap=1:rows=-1
    timeout 60 $NSYS analyze -r $arg --format csv --force-overwrite true -o $2 $1 >> $2.analyze.log 2>&1
  done
  timeout 60 $NSYS analyze -r gpu_gaps:gap=0:rows=-1 --format csv --force-overwrite true \
    -o $2.gap0 $1 >> $2.analyze.log 2>&1
  timeout 60 $NSYS analyze -r $(echo $RULES | tr ' ' ',') $1 > $2.analyze.txt 2>&1
  timeout 90 $NSYS stats --format csv --force-overwrite true -o $2 \
    -r cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum,osrt_sum \
    $1 >> $2.analyze.log 2>&1
  # the GPU time under each NVTX range, as NVIDIA projects it (not asked of every version)
  timeout 60 $NSYS stats --format csv --force-overwrite true -o $2 -r nvtx_gpu_proj_sum \
    $1 >> $2.analyze.log 2>&1
}
export -f analyze export_sqlite; export NSYS NSYS_LD RULES

cat > $W/summary.py <<'EOF'
"""Per export: every table's rows; GPU busy share (union of kernels, copies, memsets)
inside each loop's NVTX range and over the whole capture; the first kernel's offset."""
import sqlite3, sys
LOOPS = {"compute", "sync", "copy", "launch", "host", "memory", "probe"}
def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out
def busy(u, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in u)
for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    tabs = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
    print(f"== {path}")
    print("tables:", ", ".join(f"{t}={db.execute(f'select count(*) from [{t}]').fetchone()[0]}"
                               for t in tabs if not t.startswith("ENUM_")))
    t0, t1 = db.execute("select startTime, stopTime from ANALYSIS_DETAILS").fetchone()
    iv = []
    for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if t in tabs:
            iv += db.execute(f"select start, end from {t}").fetchall()
    u = union(iv)
    k0 = db.execute("select min(start) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] \
        if "CUPTI_ACTIVITY_KIND_KERNEL" in tabs else None
    g0 = min(s for s, _ in u) if u else None
    print(f"capture {(t1 - t0) / 1e9:.3f} s; busy {busy(u, t0, t1) / (t1 - t0):.4f} of the capture;"
          f" first kernel at {(k0 - t0) / 1e9 if k0 else float('nan'):.3f} s,"
          f" first GPU activity at {(g0 - t0) / 1e9 if g0 else float('nan'):.3f} s")
    if "NVTX_EVENTS" in tabs:
        rows = db.execute("select start, end, coalesce(text, (select value from StringIds where id = textId))"
                          " from NVTX_EVENTS where end is not null").fetchall()
        for s, e, name in rows:
            if name in LOOPS:
                steps = sum(1 for _, _, n in rows if n and n.startswith("step "))
                print(f"range {name}: {(s - t0) / 1e9:.3f}..{(e - t0) / 1e9:.3f} s ({(e - s) / 1e9:.3f} s),"
                      f" busy {busy(u, s, e) / (e - s):.4f} inside; {steps} step ranges")
EOF

# 1. the probe: a one-second program with every option; drop what fails
cat > $W/probe/probe.py <<'EOF'
import time, torch
a = torch.randn(2048, 2048, device="cuda")
torch.cuda.nvtx.range_push("probe")
t = time.perf_counter()
while time.perf_counter() - t < 1.0:
    for _ in range(20):
        a = torch.tanh(a @ a)
    torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
EOF
FLAGS=""
for cfg in "$CPU $GM" "$CPU" "--sample=none --cpuctxsw=none $GM" "--sample=none --cpuctxsw=none"; do
  P=$W/probe/probe; rm -f $P.*rep $P.sqlite
  t0=$SECONDS; record $P $(cap 60 300) $cfg -- python3 $W/probe/probe.py; rc=$?
  [ -f $P.nsys-rep ] && export_sqlite $P
  python3 $W/summary.py $P.sqlite > $P.summary.txt 2>&1
  ok=1; [ -f $P.sqlite ] || ok=0
  case "$cfg" in *gpu-metrics*) grep -Eq '[ ,]GPU_METRICS=[1-9]' $P.summary.txt || ok=0 ;; esac
  case "$cfg" in *process-tree*) grep -Eq '[ ,]COMPOSITE_EVENTS=[1-9]' $P.summary.txt || ok=0 ;; esac
  cp $P.log $W/logs/probe_nsys_$(echo $cfg | tr -c 'a-z0-9\n' '_' | cut -c1-60).log
  say "probe nsys [$cfg]: rc=$rc ok=$ok $(( SECONDS - t0 ))s, rep $(stat -c %s $P.nsys-rep 2>/dev/null) B, sqlite $(stat -c %s $P.sqlite 2>/dev/null) B"
  cat $P.summary.txt >> $LOG
  if [ $ok = 1 ]; then FLAGS=$cfg; break; fi
done
[ -z "$FLAGS" ] && { FLAGS="--sample=none --cpuctxsw=none"; say "every probe failed; trying the loops bare"; }
say "loops recorded with: -t cuda,nvtx,osrt $FLAGS"

# 2. the loops under nsys, one whole program each; exports and NVIDIA's analyses meanwhile
PIDS=()
for name in $LOOPS; do
  t=$(cap 75 130)
  [ $t -lt 20 ] && { say "nsys $name skipped: no time left"; continue; }
  P=$W/nsys/loop_$name; t0=$SECONDS
  record $P $t $FLAGS -- python3 $HERE/gen_loops.py $W/nsys $name; rc=$?
  say "nsys $name: rc=$rc $(( SECONDS - t0 ))s, rep $(stat -c %s $P.nsys-rep 2>/dev/null) B: $(grep -h ' ok \| failed' $P.log | tail -1)"
  if [ -f $P.nsys-rep ]; then
    timeout $(cap 300 25) bash -c "export_sqlite $P && analyze $P.sqlite $P" &
    PIDS+=($!)
  fi
done

# 3. torch.profiler: the six loops in one process, Kineto with profiler steps and stacks
t=$(cap 120 40)
timeout -k 5 $t python3 $HERE/gen_loops.py $W/torch > $W/logs/torch.log 2>&1
say "torch.profiler: rc=$? $(grep -c ' ok ' $W/logs/torch.log) ok; $(grep -h ' ok \| failed' $W/logs/torch.log | tr '\n' ';')"

# 4. wait for the analyses, summarise, pack: one archive per report, each under 16 MB
for p in "${PIDS[@]}"; do wait $p; done
say "analyses done"
python3 $W/summary.py $W/nsys/*.sqlite > $W/logs/summary.txt 2>&1; cat $W/logs/summary.txt >> $LOG
du -a $W | sort -n | tail -60 > $W/logs/sizes.txt
LIMIT=15500000
for name in $LOOPS; do
  A=$OUT/loops_nsys_$name.tgz
  ls $W/nsys/loop_${name}[._]* > /dev/null 2>&1 || continue
  (cd $W && tar czf $A nsys/loop_${name}[._]*)  # the CSVs are named loop_<name>_<report>.csv
  if [ $(stat -c %s $A) -gt $LIMIT ]; then
    rm -f $W/nsys/loop_$name.nsys-rep; (cd $W && tar czf $A nsys/loop_${name}[._]*)
  fi
  if [ $(stat -c %s $A) -gt $LIMIT ]; then
    rm -f $A; A=$OUT/loops_nsys_$name.txz; (cd $W && tar cJf $A nsys/loop_${name}[._]*)
  fi
  say "packed $A: $(stat -c %s $A) B"
done
cp $LOG $W/logs/run.log
(cd $W && tar czf $OUT/loops.tgz torch refs logs probe/probe.py probe/probe.summary.txt summary.py)
say "packed loops.tgz: $(stat -c %s $OUT/loops.tgz) B; $(( SECONDS - START ))s in all"

#!/bin/bash
# Record gen_cuda_graph.py whole under nsys twice: with nsys' default CUDA graph tracing
# (`--cuda-graph-trace=graph`: a replay is one activity) and with `node` (its kernels), each
# exported to SQLite with NVIDIA's `nsys stats` and `nsys analyze` CSVs beside it.
# Run from the repository root:   OUT=/some/dir bash recordings/record_cuda_graph.sh
# Outputs: $OUT/cuda_graph_{graph,node}.sqlite.xz, $OUT/cuda_graph_refs.tgz, $OUT/run.log.
# nsys: the one bundled with Nsight Compute, which needs the libdw1/libelf1 .deb files in
# $NSYS_DEPS (default .realtraces/.nsysdeps; see README.md).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to a folder}"
START=$SECONDS
export CUDA_VISIBLE_DEVICES=${GPUS:-0} PYTHONUNBUFFERED=1
W=/tmp/cuda-graph; rm -rf $W; mkdir -p $W $OUT
. $HERE/nsys_env.sh
$NSYS profile --help 2>&1 | grep -A 8 -- '--cuda-graph-trace' > $W/graph_trace_help.txt
for mode in graph node; do
  P=$W/cuda_graph_$mode
  timeout -k 5 120 $NSYS profile -t cuda,nvtx --sample=none --cpuctxsw=none \
    --cuda-graph-trace=$mode -f true -o $P python3 $HERE/gen_cuda_graph.py > $P.log 2>&1
  say "nsys $mode: rc=$? $(grep -h ' ok ' $P.log | tail -1)"
  [ -f $P.nsys-rep ] || [ ! -f $P.qdstrm ] || timeout 120 $D/QdstrmImporter -i $P.qdstrm >> $P.log 2>&1
  rm -f $P.qdstrm
  timeout 120 $NSYS export --type sqlite -f true -o $P.sqlite $P.nsys-rep >> $P.log 2>&1
  for r in gpu_gaps:gap=1:rows=-1 gpu_gaps:gap=0:rows=-1 gpu_time_util:rows=-1 cuda_api_sync:rows=-1; do
    timeout 60 $NSYS analyze -r $r --format csv --force-overwrite true -o $P $P.sqlite >> $P.log 2>&1
  done
  timeout 90 $NSYS stats --format csv --force-overwrite true -o $P \
    -r cuda_gpu_sum,cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum,nvtx_gpu_proj_sum $P.sqlite >> $P.log 2>&1
  python3 - $P.sqlite > $P.tables.txt 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (t,) in db.execute("select name from sqlite_master where type='table' order by name"):
    n = db.execute(f"select count(*) from [{t}]").fetchone()[0]
    if n and not t.startswith("ENUM_"):
        print(t, n)
for t in ("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GRAPH_NODE_EVENTS", "CUDA_GRAPH_EVENTS"):
    try:
        print("--", t, [c[1] for c in db.execute(f"pragma table_info([{t}])")])
        for row in db.execute(f"select * from [{t}] limit 3"):
            print(row)
    except Exception as exc:
        print(t, exc)
PY
  xz -T0 -6 -c $P.sqlite > $OUT/cuda_graph_$mode.sqlite.xz
done
cp -r $T/rules $W/rules 2>/dev/null
(cd $W && tar czf $OUT/cuda_graph_refs.tgz *.csv *.log *.txt rules)
ls -la $OUT | tee -a $LOG
cat $W/*.tables.txt $W/graph_trace_help.txt

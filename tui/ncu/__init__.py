"""Nsight Compute results: load, explain, summarise, and match to a trace.

Data flows one way, one module a step:
  read_rep.py / read_csv.py  a .ncu-rep, or an `ncu --csv --page details|raw` export
  load.py                    -> DuckDB tables ncu_meta, ncu_kernels, ncu_metrics, ncu_rules
  figures.py                 one launch's metrics -> key figures (whichever page they came from)
  verdict.py                 figures -> compute / memory / balanced / latency / small-grid
  summary.py                 all launches -> JSON-ready dict, and Rich tables
  match.py                   profiled launches <-> the trace's gpu_activities kernels
names.py (kernel-name spellings), units.py (ncu's units) and nvidia.py (NVIDIA's own
SpeedOfLight text) are helpers.
"""

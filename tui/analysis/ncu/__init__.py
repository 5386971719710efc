"""Nsight Compute results explained: key figures, a verdict, NVIDIA's own findings, the
Source view, the summary, and the match to a trace's kernels.

Data flows one way, one module a step (the readers are in tui/sources/ncu/):
  figures.py                 one launch's metrics -> key figures (whichever page they came from)
  verdict.py                 figures -> compute / memory / balanced / latency / small-grid
  summary.py                 all launches -> JSON-ready dict, and Rich tables
  match.py                   profiled launches <-> the trace's gpu_activities kernels
nvidia.py (NVIDIA's own SpeedOfLight text) is a helper.
"""

"""Distributed-training figures per trace (a rank), as Holistic Trace Analysis defines them.

Each figure follows HTA 0.5.0's definition (hta/analyzers/breakdown_analysis.py,
communication_analysis.py, cuda_kernel_analysis.py, trace_counters.py) and is computed in
SQL over one trace's schema tables (a single trace, or one rank's store). docs/distributed.md
says what each means and where ours differs from HTA's.

The importable API (each takes a DuckDB connection whose unqualified schema tables are one
trace's):

- ``trace_figures(con) -> dict``: everything below for the trace, as the JSON of a rank in
  ``tui --summary --json``: ``breakdown {idle_ns, compute_ns, non_compute_ns, kernel_ns}``,
  ``overlap_pct``, ``communication``, ``launch_stats``, ``idle_breakdown``,
  ``queue_length``, ``critical_path``, ``window``, and ``per_device`` where the trace has
  several GPUs.
- ``prepare(con) -> Window``: fills the temp table ``dist_work``
  (queries/analysis/dist_work.sql), the GPU work in HTA's window with its class and launch
  call, which the figures read; every function below calls it once per connection.
- ``idle_categories(con) -> list[IdleCategories]``: idle time per (device, stream) in HTA's
  categories: host wait, kernel wait, other (tui/analysis/distributed/idle.py).
- ``queue_series(con)``: the temp table ``dist_queue_series`` (queue length per stream over
  time), and ``queue_summary(con)`` (tui/analysis/distributed/queues.py).
- ``critical_paths(con) -> list[StepPath]``: each step's critical path, its segments (kind,
  start, end, where) tiling the step and ``by_kind()`` lengths
  (tui/analysis/distributed/critical_path.py); ``step_path(con, name, start, end, tid)``
  for one step.
- tui/analysis/distributed/stragglers.py: the group of ranks that arrive last.
"""

from tui.analysis.distributed.critical_path import StepPath, critical_paths, step_path
from tui.analysis.distributed.figures import trace_figures
from tui.analysis.distributed.idle import IdleCategories, idle_categories
from tui.analysis.distributed.queues import queue_series, queue_summary
from tui.analysis.distributed.window import Window, prepare

__all__ = ["IdleCategories", "StepPath", "Window", "critical_paths", "idle_categories",
           "prepare", "queue_series", "queue_summary", "step_path", "trace_figures"]

"""Load many traces as tasks of a Dask cluster (`tui convert --scheduler`), one a trace.

Dask (`pip install 'gpu-trace-tui[cluster]'`) already runs on Slurm, Kubernetes and plain
SSH hosts and schedules, retries and reports tasks there; a task here is `load_store(job)`,
the same function the local process pool runs, so a store is the same whichever ran it.
Workers on other machines must see the trace files and the `--out` folder at the same
paths (a shared file system), as `tui convert`'s stores are read from there afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator

from tui.core.budget import available_cores, set_memory_budget
from tui.core.errors import TraceError
from tui.loading.store import TraceStore
from tui.runs.load import LoadJob, load_store

LOCAL = "local"  # --scheduler local: a cluster of worker processes on this machine
CONNECT_TIMEOUT_S = 20


def load_stores_on_cluster(jobs: list[LoadJob], scheduler: str, workers: int | None = None,
                           memory: str | None = None,
                           on_done: Callable[[TraceStore], None] | None = None
                           ) -> list[TraceStore]:
    """Every job's store, in the order given, each loaded by a task on the cluster at
    `scheduler` (an address such as tcp://node1:8786, a scheduler file, or "local":
    `workers` processes here). `memory`: the DuckDB budget of each task. Raises the
    first failing job's TraceError, after cancelling the tasks not yet done."""
    try:
        from dask.distributed import KilledWorker, as_completed
    except ImportError:
        raise TraceError("--scheduler needs Dask: pip install 'gpu-trace-tui[cluster]' (or "
                         "'dask[distributed]')") from None
    with _client(scheduler, workers) as client:
        futures = [client.submit(_load_task, job, memory, pure=False,
                                 key=f"tui-load-{i}-{job.path.name}")
                   for i, job in enumerate(jobs)]
        where = {future.key: i for i, future in enumerate(futures)}
        results: dict[int, TraceStore] = {}
        try:
            for future in as_completed(futures):
                i = where[future.key]
                try:
                    results[i] = future.result()  # a task's TraceError is raised here
                except KilledWorker:
                    raise TraceError(
                        f"{jobs[i].path}: every worker that loaded it died (out of memory?); "
                        "give --memory a smaller budget, or the workers more memory"
                    ) from None
                if on_done is not None:
                    on_done(results[i])
        except BaseException:
            client.cancel(futures)  # one bad trace (or Ctrl-C): stop loading the rest
            raise
    return [results[i] for i in range(len(jobs))]


def _load_task(job: LoadJob, memory: str | None) -> TraceStore:
    """What a worker runs: one trace's store, under the budget given on the command line."""
    if memory is not None:
        set_memory_budget(memory)
    return load_store(job)


@contextlib.contextmanager
def _client(scheduler: str, workers: int | None) -> Iterator:
    """A Dask client of the scheduler given, or of a local cluster started (and stopped)
    for this run."""
    from dask.distributed import Client, LocalCluster

    if scheduler == LOCAL:
        # One thread a worker: a task is one trace, and DuckDB inside it already uses the
        # worker's cores. No dashboard (it needs bokeh); quiet logs.
        with LocalCluster(n_workers=workers or available_cores(), threads_per_worker=1,
                          processes=True, dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        # A file: the scheduler file `dask scheduler --scheduler-file` (or dask-mpi,
        # dask-jobqueue) writes on a shared folder, naming the address.
        client = (Client(scheduler_file=scheduler, timeout=CONNECT_TIMEOUT_S)
                  if os.path.isfile(scheduler) else Client(scheduler, timeout=CONNECT_TIMEOUT_S))
    except (OSError, ValueError, TypeError) as exc:
        raise TraceError(f"cannot reach a Dask scheduler at {scheduler!r} ({exc}); start one "
                         "(`dask scheduler`, then `dask worker ADDRESS` on each node) or give "
                         "--scheduler local") from None
    with client:
        yield client

"""`tui convert TRACE... --out DIR`: each trace's tables as a Parquet store in DIR.

The unit of work for runs of hundreds of ranks: each machine (or job) converts its own
ranks' traces into the same shared folder, one `<trace>.tui-store/` folder per rank; then
`tui --summary DIR` reads them all at once (nothing is parsed again).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.core.errors import TraceError
from tui.loading.locations import is_remote, location

EXAMPLES = """\
examples:
  tui convert rank3.pt.trace.json.gz --out /shared/run42/     on each machine, its ranks
  tui convert traces/ --out /shared/run42/ --workers 16        a folder, 16 processes
  tui convert traces/ --out /shared/run42/ --scheduler tcp://head:8786
                                              each rank a task of a running Dask cluster
  tui convert traces/ --out run42/ --scheduler local --workers 8   a local Dask cluster
  tui --summary /shared/run42/                                 then every rank at once
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui convert", description="Write each trace's tables as a Parquet store.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("traces", nargs="+", type=Path, help="trace files or folders")
    parser.add_argument("--out", type=location, required=True, metavar="DIR",
                        help="a folder, or an object-store prefix (s3://bucket/run42/: "
                             "needs gpu-trace-tui[objectstore] and the store's fsspec package)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="processes to load with (default: one per core it may run on)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="load each trace as a task of the Dask cluster at ADDRESS "
                        "(e.g. tcp://head:8786, or a Dask scheduler file; 'local': a local "
                        "cluster of --workers processes); needs gpu-trace-tui[cluster]; the "
                        "traces and --out must be at the same paths on every worker")
    parser.add_argument("--memory", metavar="SIZE",
                        help="memory budget of each load, e.g. 2GB "
                        "(default: TUI_MEMORY, else 1GB; DuckDB takes 70%% of it)")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    from tui.loading.parquet_store import is_parquet_store
    from tui.loading.paths import expand_paths
    from tui.loading.store import STORE_SUFFIX
    from tui.runs.load import LoadJob

    if args.memory is not None:
        from tui.core.budget import set_memory_budget

        set_memory_budget(args.memory)
    files = expand_paths(args.traces)
    if args.scheduler is not None:  # a worker elsewhere has its own working directory
        files = [f.resolve() for f in files]
        args.out = args.out if is_remote(args.out) else args.out.resolve()
    converted = [f for f in files if is_parquet_store(f)]
    if converted:
        raise TraceError(f"{converted[0]}: is already a store")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TraceError(f"{args.out}: cannot be created ({exc.strerror or exc})") from None
    jobs = [LoadJob(f, use_cache=not args.no_cache,
                    export_to=args.out / f"{_stem(f)}{STORE_SUFFIX}") for f in files]
    stores = _converted(jobs, args.workers, args.scheduler, args.memory)
    for store, job in zip(stores, jobs, strict=True):
        rank = store.meta.get("rank")
        print(f"{job.export_to}  ({store.format}" + (f", rank {rank}" if rank else "")
              + f", {store.load_s:.2f} s)")
        for warning in store.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
    return 0


def _converted(jobs: list, workers: int | None, scheduler: str | None,
               memory: str | None) -> list:
    """The jobs' stores, with a progress line on stderr when it is a terminal."""
    from tui.runs.load import load_stores
    from tui.views.progress_line import TracesProgress, progress_on_stderr

    progress = TracesProgress([job.path for job in jobs])
    try:
        if scheduler is not None:
            from tui.runs.cluster import load_stores_on_cluster

            return load_stores_on_cluster(jobs, scheduler, workers, memory,
                                          on_done=progress.one_done)
        if len(jobs) == 1:  # one trace: metered as it is read
            with progress_on_stderr(jobs[0].path):
                return load_stores(jobs, workers)
        return load_stores(jobs, workers, on_done=progress.one_done)
    finally:
        progress.close()


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".json", ".sqlite", ".nsys-rep"):
        name = name.removesuffix(suffix)
    return name or path.name

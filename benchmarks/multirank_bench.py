"""Per-rank load time and parallel speed-up of a multi-rank run, against the serial load
measured in the same run.

The ranks are copies of the two real DDP rank traces (sample_traces/ddp_rank*.pt.trace
.json.gz), optionally scaled up with scale_trace.py (--scale K: K copies of each trace's
events, one after another): the figures are for *copied/scaled* ranks of a real recording.
For each worker count it prints the cold load (empty cache: every rank parsed into its own
DuckDB store), the warm open (every store from the cache), and the cross-rank analysis
(straggler, waits) over the combined view.

With `--scheduler local` the cold load is `tui convert` on a local Dask cluster of that
many worker processes (started and stopped inside the figure), each rank a task writing
its Parquet store; the warm open then reads the folder of stores, as `tui DIR` does.

Usage: python benchmarks/multirank_bench.py [--ranks 2,16,64] [--scale 1] [--workers 1,N]
                                            [--scheduler local]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCES = [ROOT / "sample_traces" / f"ddp_rank{r}.pt.trace.json.gz" for r in (0, 1)]


def rank_files(count: int, scale: int, workdir: Path) -> list[Path]:
    sources = [scaled(src, scale, workdir) for src in SOURCES]
    folder = workdir / f"ranks_{count}_x{scale}"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(count):
        target = folder / f"rank{i:05d}{''.join(sources[i % 2].suffixes)}"
        if not target.exists():
            shutil.copyfile(sources[i % 2], target)
        files.append(target)
    return files


def scaled(source: Path, scale: int, workdir: Path) -> Path:
    if scale == 1:
        return source
    import gzip

    plain = workdir / source.name.replace(".gz", "")
    if not plain.exists():
        plain.write_bytes(gzip.decompress(source.read_bytes()))
    target = workdir / f"{plain.stem}_x{scale}.json"
    if not target.exists():
        subprocess.run([sys.executable, str(HERE / "scale_trace.py"), str(plain), str(target),
                        str(scale)], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", default="2,16,64")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--workers", default=f"1,{os.cpu_count()}")
    parser.add_argument("--scheduler", help="'local' or an address: convert on Dask")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "tui-rank-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from tui.analysis.ranks import rank_analysis
    from tui.runs.run import open_run

    print(f"ranks: copies of the real DDP rank traces, scale x{args.scale}; "
          f"machine: {os.cpu_count()} cores"
          + (f"; cold = tui convert on Dask ({args.scheduler})" if args.scheduler else ""))
    print("ranks | MB | workers | cold s | speed-up | per-rank load: wall s, CPU s (median) | "
          "warm s | analysis s")
    for count in (int(n) for n in args.ranks.split(",")):
        files = rank_files(count, args.scale, args.workdir)
        size = sum(f.stat().st_size for f in files) / 1e6
        serial = None
        for workers in (int(w) for w in args.workers.split(",")):
            cache = args.workdir / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            os.environ["TUI_CACHE_DIR"] = str(cache)
            started = time.perf_counter()
            if args.scheduler:
                stores = converted_on_cluster(files, args.workdir / "stores", args.scheduler,
                                              workers)
                cold = time.perf_counter() - started
            else:
                with open_run(files, workers=workers) as run:
                    cold = time.perf_counter() - started
                    stores = run.stores
            per_rank = statistics.median(s.load_s for s in stores)
            per_rank_cpu = statistics.median(s.load_cpu_s for s in stores)
            warm_paths = [args.workdir / "stores"] if args.scheduler else files
            started = time.perf_counter()
            with open_run(warm_paths, workers=workers) as run:
                warm = time.perf_counter() - started
                started = time.perf_counter()
                rank_analysis(run.con)
                analysis = time.perf_counter() - started
            serial = serial or cold
            print(f"{count} | {size:.1f} | {workers} | {cold:.2f} | {serial / cold:.2f}x | "
                  f"{per_rank:.3f}, {per_rank_cpu:.3f} | {warm:.2f} | {analysis:.3f}")


def converted_on_cluster(files: list[Path], out: Path, scheduler: str, workers: int) -> list:
    """`tui convert FILES --out OUT --scheduler S --workers W`, as a function: the stores."""
    from tui.loading.store import STORE_SUFFIX
    from tui.runs.cluster import load_stores_on_cluster
    from tui.runs.load import LoadJob

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    jobs = [LoadJob(f, export_to=out / f"{f.name.split('.')[0]}{STORE_SUFFIX}") for f in files]
    return load_stores_on_cluster(jobs, scheduler, workers)


if __name__ == "__main__":
    main()

"""Lengthen the GPU metric recording of a real Nsight Systems SQLite export.

A generator for benchmarks: the output is a *scaled* export, not a recording. It copies
IN and repeats its GPU_METRICS samples (every metric of every GPU) one copy after the
other, each shifted by the samples' span plus one sampling period, until the table holds
ROWS rows (the last copy cut short). The kernels, API calls and NVTX ranges are left as
recorded, so the metrics run on past the end of the work: the report stands for one whose
counters were sampled longer (or faster) than the loop_host recording's 2 kHz, 16.7 s.
With --without OUT2, also writes the copy without GPU_METRICS (the table dropped), the
same report for a load without hardware counters.

Usage: python scale_gpu_metrics.py IN.sqlite OUT.sqlite [--rows 2500000] [--without OUT2]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3

TABLE = "GPU_METRICS"


def scale(src: str, dst: str, rows: int) -> int:
    """Write dst with `rows` GPU_METRICS rows (at least one full copy); the rows written."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    try:
        have, first, last, stamps = db.execute(
            f"SELECT count(*), min(timestamp), max(timestamp), count(DISTINCT timestamp) "
            f"FROM {TABLE}").fetchone()
        if not have:
            raise SystemExit(f"{src}: no {TABLE} rows (record with --gpu-metrics-devices)")
        period = (last - first) // max(stamps - 1, 1)
        shift = last - first + period
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({TABLE})")]
        copies = 1
        while have * copies < rows:
            n = min(copies, -(-rows // have) - copies)  # copies to add in this pass
            shifted = [f'"{c}" + {shift * copies}' if c in ("timestamp", "rawTimestamp")
                       else f'"{c}"' for c in cols]
            db.execute(f"INSERT INTO {TABLE} ({', '.join(repr(c) for c in cols)}) "
                       f"SELECT {', '.join(shifted)} FROM {TABLE} "
                       f"WHERE rowid <= {have * n}")
            copies += n
            db.commit()
        db.execute(f"DELETE FROM {TABLE} WHERE rowid > {max(rows, have)}")
        db.commit()
        db.execute("VACUUM")
        (written,) = db.execute(f"SELECT count(*) FROM {TABLE}").fetchone()
    finally:
        db.close()
    return int(written)


def drop_metrics(src: str, dst: str) -> None:
    """dst: src without its GPU metric samples."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    try:
        db.execute(f"DROP TABLE {TABLE}")
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--without", help="also write this copy without GPU_METRICS")
    args = parser.parse_args()
    written = scale(args.src, args.dst, args.rows)
    print(f"{args.dst}: {written:,} GPU_METRICS rows (scaled from {args.src})")
    if args.without:
        drop_metrics(args.dst, args.without)
        print(f"{args.without}: the same without GPU_METRICS")


if __name__ == "__main__":
    main()

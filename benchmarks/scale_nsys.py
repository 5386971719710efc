"""Scale a real Nsight Systems SQLite export by repeating its activity rows shifted in time.

A generator for benchmarks: the output is a *scaled* export, not a recording. Each copy
of the CUDA kernel / memcpy / memset / runtime / NVTX rows follows the previous one after
the recording's span plus 1 ms, with correlation ids offset so launches still pair up;
so do the host's CPU samples (with their call chains, sample ids offset), OS runtime calls
and context switches, where the export has them. Rows are doubled in SQLite itself
(INSERT … SELECT), so 1 GB takes seconds.

Usage: python scale_nsys.py IN.sqlite OUT.sqlite COPIES   (COPIES rounded up to a power of 2)
"""

from __future__ import annotations

import shutil
import sqlite3
import sys

TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
          "COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS", "OSRT_API", "SCHED_EVENTS")
# A CPU sample's id (COMPOSITE_EVENTS.id, SAMPLING_CALLCHAINS.id) in copy k: id + k * this
SAMPLE_IDS = 1_000_000_000


def main(src: str, dst: str, copies: int) -> None:
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    present = [t for t in TABLES
               if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (t,)).fetchone()]
    timed = [t for t in present if t not in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS",
                                             "SCHED_EVENTS")]
    bounds = [db.execute(f'SELECT min(start), max("end") FROM {t}').fetchone() for t in timed]
    first = min(b[0] for b in bounds if b[0] is not None)
    last = max(b[1] for b in bounds if b[1] is not None)
    shift = last - first + 1_000_000
    have = 1
    while have < copies:
        for table in present:
            cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            exprs = []
            for c in cols:
                if c in ("start", "end"):
                    exprs.append(f'"{c}" + {shift * have}')
                elif c == "correlationId":
                    exprs.append(f"correlationId + {have * 100_000_000}")
                elif c == "id" and table in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"):
                    exprs.append(f"id + {have * SAMPLE_IDS}")
                else:
                    exprs.append(f'"{c}"')
            db.execute(f"INSERT INTO {table} ({', '.join(repr(c) for c in cols)}) "
                       f"SELECT {', '.join(exprs)} FROM {table}")
        have *= 2
        db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

"""`tui query TRACE "SQL"`: read-only SQL over a trace's tables (or a converted store's),
printed or exported."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.core.export import EXPORT_FORMATS, write_table
from tui.core.user_sql import run_user_sql
from tui.loading.parquet_store import open_trace_or_store

EXAMPLES = """\
examples:
  tui query run.json.gz "SELECT name, count(*) FROM gpu_activities GROUP BY name"
  tui query run.json.gz "FROM gpu_idle ORDER BY duration_ns DESC LIMIT 5" --json
  tui query report.sqlite "FROM host_activities WHERE kind = 'annotation'" --csv > ranges.csv
  tui query run.json.gz "FROM gpu_activities" --output kernels.parquet
  tui schema                    the tables and columns you can query
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui query", description="Run read-only SQL (DuckDB dialect) over a trace.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", type=Path,
                        help="a trace file, or a store `tui convert` wrote (NAME.tui-store)")
    parser.add_argument("sql")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--csv", action="store_true", help="print CSV")
    shape.add_argument("--json", action="store_true", help="print JSON (one array of objects)")
    shape.add_argument("--output", type=Path, metavar="FILE",
                       help=f"write the result to FILE ({', '.join(EXPORT_FORMATS)} by suffix)")
    parser.add_argument("--max-rows", type=int, default=1_000_000)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    with open_trace_or_store(args.trace, use_cache=not args.no_cache) as trace:
        table = run_user_sql(trace.con, args.sql, max_rows=args.max_rows)
    if args.output:
        write_table(table, args.output)
        print(f"wrote {table.num_rows:,} rows to {args.output}", file=sys.stderr)
    elif args.csv:
        write_table(table, sys.stdout, "csv")
    elif args.json:
        write_table(table, sys.stdout, "json")
    else:
        from tui.core.console import summary_console
        from tui.views.reports.table_text import arrow_to_rich

        summary_console().print(arrow_to_rich(table))
    return 0

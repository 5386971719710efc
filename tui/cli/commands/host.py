"""`tui host TRACE`: what the host was doing while the GPU waited, or during one gap, a
step or any stretch of time: its CPU samples by module and function, as a call tree
(top-down or bottom-up), the OS calls that held it; Python frames' time for traces
without samples."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tui.analysis.gaps import DEFAULT_MIN_GAP_MS
from tui.analysis.host_samples import (
    TreeNode,
    gaps_host_activity,
    range_host_activity,
    sample_tree,
)
from tui.core.errors import TraceError
from tui.core.queries import load_query
from tui.core.steps import STEP_NAME
from tui.core.units import format_ns, format_offset
from tui.loading.parquet_store import open_trace_or_store

EXAMPLES = """\
examples:
  tui host report.sqlite                  while the GPU waited (the gaps over 1 ms)
  tui host report.sqlite --gap 1 --tree   the longest gap, its samples as a call tree
  tui host report.sqlite --step 7 --bottom-up --all-threads
  tui host run.json.gz --from 120 --to 250 --json   a stretch, in ms from the +0
"""
# Deeper frames of a call tree are indented no further
MAX_INDENT = 30


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui host", description="What the host was doing while the GPU waited.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", type=Path,
                        help="a trace file, or a store `tui convert` wrote (NAME.tui-store)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--gap", type=int, metavar="N",
                       help="the Nth longest gap (1: the longest, as the summary lists them)")
    where.add_argument("--step", metavar="N", help="training step N (as `@ step N`)")
    where.add_argument("--from", dest="start_ms", type=float, metavar="MS",
                       help="from this time, ms after +0 (the first GPU activity); with --to")
    parser.add_argument("--to", dest="end_ms", type=float, metavar="MS")
    parser.add_argument("--min-gap-ms", type=float, default=DEFAULT_MIN_GAP_MS, metavar="MS")
    tree = parser.add_mutually_exclusive_group()
    tree.add_argument("--tree", action="store_true", help="the samples as a call tree")
    tree.add_argument("--bottom-up", action="store_true",
                      help="the samples by leaf function, then its callers")
    parser.add_argument("--all-threads", action="store_true",
                        help="the tree over every thread, not the launching thread's")
    parser.add_argument("--min-pct", type=float, default=1.0,
                        help="leave out tree nodes under this share of the samples (1)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    if (args.start_ms is None) != (args.end_ms is None):
        raise TraceError("--from and --to go together")
    min_gap_ns = round(args.min_gap_ms * 1_000_000)
    with open_trace_or_store(args.trace, use_cache=not args.no_cache) as trace:
        con = trace.con
        stretch, what = _stretch(con, args, min_gap_ns)
        host = (range_host_activity(con, [stretch]) if stretch
                else gaps_host_activity(con, min_gap_ns))
        if host is None:
            raise TraceError(f"{args.trace}: the trace recorded nothing of the host's work "
                             "(no CPU samples, Python frames or CPU ops)")
        nodes: list[TreeNode] = []
        if args.tree or args.bottom_up:
            if host.unit != "samples":
                raise TraceError("--tree and --bottom-up need CPU samples (nsys "
                                 "--sample=process-tree); this trace has none")
            if stretch:
                stretches = [stretch]
            else:
                stretches = [tuple(r) for r in con.execute(
                    "SELECT start_ns, end_ns FROM gpu_idle WHERE duration_ns > ?",
                    [min_gap_ns]).fetchall()]
            nodes = sample_tree(con, stretches, None if args.all_threads else host.thread,
                                bottom_up=args.bottom_up, min_share=args.min_pct / 100)
    if args.json:
        out = {"range": what, **host.as_dict()}
        if nodes:
            out["tree"] = [{"path": list(n.path), "samples": n.samples, "self": n.self_samples}
                           for n in nodes]
        json.dump(out, sys.stdout)
        print()
        return 0
    from tui.core.console import summary_console
    from tui.core.safe_text import plain
    from tui.views.host_text import host_lines

    console = summary_console()
    for line in host_lines(host.as_dict(), what):
        console.print(plain(line))
    if nodes:
        total = (host.all_threads if args.all_threads else host.launching).total or 1
        console.print(plain(f"{'samples':>9} {'%':>6} {'self':>7}  "
                            f"{'callers (innermost first)' if args.bottom_up else 'frame'}",
                            style="bold"))
        for node in nodes:
            own = "" if args.bottom_up else f"{node.self_samples:,}"
            console.print(plain(f"{node.samples:>9,} {100 * node.samples / total:>6.1f} "
                                f"{own:>7}  {' ' * min(node.depth, MAX_INDENT)}{node.frame}"))
    return 0


def _stretch(con, args: argparse.Namespace,
             min_gap_ns: int) -> tuple[tuple[int, int] | None, str]:
    """The stretch asked for, (start_ns, end_ns), and how to name it; None: the gaps."""
    (origin,), = con.execute(load_query("trace_origin")).fetchall()
    origin = origin or 0
    if args.gap is not None:
        found = con.execute(load_query("host_gap_by_rank"),
                            {"rank": max(args.gap, 1), "min_gap_ns": min_gap_ns}).fetchone()
        if found is None or args.gap < 1:
            raise TraceError(f"no gap #{args.gap} over {args.min_gap_ms:g} ms in this trace")
        start, end, device = found
        return (start, end), (f"gap #{args.gap} (GPU {device}, "
                              f"{format_offset(start - origin)}, {format_ns(end - start)})")
    if args.step is not None:
        found = con.execute(load_query("goto_step"),
                            {"step": str(args.step), "step_name": STEP_NAME}).fetchone()
        if found is None:
            raise TraceError(f"no step {args.step} in this trace")
        return (found[0], found[1]), f"step {args.step} ({found[5]})"
    if args.start_ms is not None:
        start = origin + round(args.start_ms * 1_000_000)
        end = origin + round(args.end_ms * 1_000_000)
        if end <= start:
            raise TraceError("--to must come after --from")
        return (start, end), f"{format_offset(start - origin)} to {format_offset(end - origin)}"
    return None, "the gaps"

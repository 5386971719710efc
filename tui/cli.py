"""The `tui` command line: open the app, or print a summary headless."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tui import __version__
from tui.analysis.gaps import DEFAULT_MIN_GAP_MS
from tui.errors import TraceError

EXAMPLES = """\
examples:
  tui                                     open the bundled sample trace
  tui run.pt.trace.json.gz                explore a PyTorch profiler trace
  tui report.sqlite                       explore an Nsight Systems SQLite export
  tui --summary run.pt.trace.json.gz      print GPU busy %, top kernels, idle gaps
  tui --summary --json report.nsys-rep    the same as one JSON object
  tui --summary --min-gap-ms 0.1 TRACE    list every gap longer than 100 µs
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tui",
        description="A terminal explorer for GPU traces: PyTorch profiler / Kineto JSON, "
        "Nsight Systems .sqlite/.nsys-rep, Nsight Compute reports.",
        epilog=EXAMPLES + "\nsubcommands:\n" + "".join(
            f"  tui {name:<10} {text}\n" for name, text in SUBCOMMANDS.items()
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", nargs="?", type=Path, help="trace file (default: a sample)")
    parser.add_argument("--summary", action="store_true", help="print findings, no UI")
    parser.add_argument("--json", action="store_true", help="with --summary: one JSON object")
    parser.add_argument(
        "--min-gap-ms", type=float, default=DEFAULT_MIN_GAP_MS, metavar="MS",
        help=f"report GPU-idle gaps longer than this (default {DEFAULT_MIN_GAP_MS:g} ms, "
        "as `nsys analyze -r gpu_gaps:gap=1`)",
    )
    parser.add_argument("--ncu", type=Path, metavar="REPORT",
                        help="an Nsight Compute report (.ncu-rep or --csv export) of this "
                        "program: match its kernels to the trace's and explain them")
    parser.add_argument("--no-cache", action="store_true",
                        help="load into memory; neither read nor write the cache")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"tui {__version__}")
    return parser


# `tui NAME ...` runs the subcommand module tui.commands.NAME (its `main(argv) -> int`).
SUBCOMMANDS = {
    "query": "run read-only SQL over a trace",
    "schema": "describe the tables a trace is loaded into",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        if argv and argv[0] in SUBCOMMANDS:
            from importlib import import_module

            return import_module(f"tui.commands.{argv[0]}").main(argv[1:])
        return _run(build_parser().parse_args(argv))
    except TraceError as exc:
        if debug:
            raise
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for the user unless asked
        if debug:
            raise
        return fail(f"unexpected {type(exc).__name__}: {exc} (rerun with --debug for details)")


def _run(args: argparse.Namespace) -> int:
    if args.min_gap_ms < 0:
        return fail("--min-gap-ms must be 0 or more")
    min_gap_ns = round(args.min_gap_ms * 1_000_000)
    if args.summary:
        return _summary(args.trace, args.json, min_gap_ns, not args.no_cache, args.ncu)
    from tui.app import run_app

    run_app(args.trace, use_cache=not args.no_cache, min_gap_ns=min_gap_ns)
    return 0


def _summary(path: Path | None, as_json: bool, min_gap_ns: int, use_cache: bool,
             ncu: Path | None = None) -> int:
    from tui.samples import default_sample
    from tui.sources.detect import detect_format

    path = path if path is not None else default_sample()
    kind = detect_format(path)
    if kind in ("ncu-rep", "ncu-csv"):
        summary, render = _ncu_summary(path)
    else:
        from tui.analysis.summary import trace_summary
        from tui.report import print_summary
        from tui.trace import open_trace

        with open_trace(path, use_cache=use_cache) as trace:
            summary = trace_summary(trace, min_gap_ns)
            if ncu is not None:
                from tui.ncu.attach import ncu_for_trace

                summary["ncu"] = ncu_for_trace(trace, ncu)
        render = print_summary
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        render(summary, summary_console())
    return 0


def _ncu_summary(path: Path):

    from tui.db import connect
    from tui.ncu.load import load_ncu
    from tui.ncu.summary import ncu_summary, render_ncu_summary

    con = connect(":memory:")
    load_ncu(path, con)  # its warnings come back inside the summary
    summary = ncu_summary(con)
    summary.setdefault("source", {})["path"] = str(path)
    return summary, render_ncu_summary


def summary_console():
    """A terminal gets its own width; a pipe or CI log gets room for long kernel names."""
    import os

    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=140)
    return console


def fail(message: str) -> int:
    print(f"tui: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

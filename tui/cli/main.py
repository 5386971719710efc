"""The `tui` command line: open the app, or print a summary headless."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tui import __version__
from tui.analysis.gaps import DEFAULT_MIN_GAP_MS
from tui.core.errors import TraceError
from tui.loading.locations import location

if TYPE_CHECKING:
    from tui.loading.resolve import Target

if TYPE_CHECKING:
    from tui.analysis.summary_types import TraceSummary

# The exit status of `tui ... | head` once head stops reading, as a shell reports a
# command that SIGPIPE ended: 128 + 13.
EXIT_BROKEN_PIPE = 141

EXAMPLES = """\
examples:
  tui                                     open the bundled sample trace
  tui run.pt.trace.json.gz                explore a PyTorch profiler trace
  tui report.sqlite                       explore an Nsight Systems SQLite export
  tui report.sqlite --ncu kernels.ncu-rep the same, with Nsight Compute results per kernel
  tui kernels.ncu-rep                     an Nsight Compute report alone: verdict per launch
  tui --summary run.pt.trace.json.gz      print GPU busy %, top kernels, idle gaps
  tui --summary --json report.nsys-rep    the same as one JSON object
  tui --summary --min-gap-ms 0.1 TRACE    list every gap longer than 100 µs
  tui RUN_DIR                             a distributed run: per-rank table, the straggler
  tui --summary rank0.json rank1.json     the same as text, for the files given
  tui --summary --json RUN_DIR            the same for every trace in a directory
  tui LOGDIR                              a JAX/TensorFlow profile: its newest run
  tui --summary LOGDIR --run NAME         another run of it (plugins/profile/NAME)
  tui diff before.json after.json         what changed between two runs of a program
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tui",
        description="A terminal explorer for GPU traces: PyTorch profiler / Kineto JSON, "
        "JAX/TensorFlow (XLA) profiles, Nsight Systems .sqlite/.nsys-rep, Nsight Compute "
        "reports.",
        epilog=EXAMPLES + "\nsubcommands:\n" + "".join(
            f"  tui {name:<10} {text}\n" for name, text in SUBCOMMANDS.items()
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", nargs="*", type=location,
                        help="trace file (default: a sample), or a store `tui convert` "
                        "wrote (NAME.tui-store); several files or a directory: the ranks of "
                        "one distributed run; a URL (s3://bucket/run42/): the stores "
                        "`tui convert --out` wrote there")
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
    parser.add_argument("--run", metavar="NAME",
                        help="with a JAX/TensorFlow profile LOGDIR: the run to open "
                        "(a folder name under plugins/profile; default: the newest)")
    parser.add_argument("--no-cache", action="store_true",
                        help="load into memory; neither read nor write the cache")
    parser.add_argument("--memory", metavar="SIZE",
                        help="memory budget, e.g. 2GB (default: TUI_MEMORY, else 250 MB a core "
                        "between 1GB and 8GB, at most a quarter of the memory); DuckDB "
                        "takes at most 70%% of it, beyond that spills to disk beside the "
                        "cache, and runs a thread for each 250 MB of it (up to the cores "
                        "there are)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="with --summary of a run: load its ranks as tasks of the Dask "
                        "cluster at ADDRESS (or a scheduler file; 'local': a local cluster "
                        "of --workers processes), as `tui convert` does; the workers must "
                        "see the traces and the cache dir (TUI_CACHE_DIR) at the same paths")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="with a run: the processes that load its ranks (default: one "
                        "per core, as the memory budget allows)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"tui {__version__}")
    return parser


# `tui NAME ...` runs the subcommand module tui.cli.commands.NAME (its `main(argv) -> int`).
SUBCOMMANDS = {
    "query": "run read-only SQL over a trace",
    "schema": "describe the tables a trace is loaded into",
    "host": "what the host was doing while the GPU waited: CPU samples, OS calls, frames",
    "export": "write kernel stats, gaps, kernel launches or ncu verdicts to CSV/Parquet/JSON",
    "diff": "compare two traces of a program: before and after",
    "convert": "write traces as per-rank Parquet stores (farm out big runs)",
    "completion": "print a bash/zsh completion script: eval \"$(tui completion bash)\"",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    from tui.loading.cache import opened_caches

    opened_caches.clear()  # a damaged cache found below is one this command opened
    try:
        if argv and argv[0] in SUBCOMMANDS:
            from importlib import import_module

            return import_module(f"tui.cli.commands.{argv[0]}").main(argv[1:])
        return _run(build_parser().parse_args(argv))
    except TraceError as exc:
        if debug:
            raise
        return fail(str(exc))
    except BrokenPipeError:
        return _reader_gone()
    except (KeyboardInterrupt, Exception) as exc:  # never a traceback for the user unless asked
        from tui.core.interrupt import EXIT_CODE, is_interrupt

        if is_interrupt(exc):  # Ctrl-C: in Python, or while DuckDB ran a query
            return EXIT_CODE
        if debug:
            raise
        from tui.loading.trace import discard_damaged_cache

        if discard_damaged_cache(exc):  # a cache file went bad on disk: load the trace again
            print("tui: the trace's cache file was damaged; removed it, loading the trace again",
                  file=sys.stderr)
            return main(argv)
        return fail(f"unexpected {type(exc).__name__}: {exc} (rerun with --debug for details)")


def _run(args: argparse.Namespace) -> int:
    if args.min_gap_ms < 0:
        return fail("--min-gap-ms must be 0 or more")
    min_gap_ns = round(args.min_gap_ms * 1_000_000)
    if args.memory is not None or args.debug:
        from tui.core.budget import budget_source, memory_budget, set_memory_budget

        if args.memory is not None:
            set_memory_budget(args.memory)
        if args.debug:
            print(f"tui: memory budget {memory_budget()} ({budget_source()})",
                  file=sys.stderr)
    from tui.loading.resolve import resolve

    target = resolve(args.trace, args.run)
    if target.note:
        print(f"tui: {target.note}", file=sys.stderr)
    # a run of several ranks; one local store `tui convert` wrote opens in the app as its
    # trace would, and is summed up as a run of one
    if target.kind == "run" or (target.kind == "store" and args.summary):
        from tui.cli.ranks import run_many

        return run_many(list(target.paths), args.summary, args.json, min_gap_ns,
                        not args.no_cache, args.ncu, args.scheduler, args.workers)
    if args.scheduler is not None or args.workers is not None:
        return fail("--scheduler and --workers go with a run: several traces or a folder")
    if args.summary:
        return _summary(target, args.json, min_gap_ns, not args.no_cache, args.ncu)
    from tui.apps.trace_app import run_app

    if not args.trace and args.ncu is not None:  # `tui --ncu REPORT`: the report alone
        target, args.ncu = resolve([args.ncu]), None
    return run_app(target, use_cache=not args.no_cache, min_gap_ns=min_gap_ns, ncu=args.ncu)


def _summary(target: Target, as_json: bool, min_gap_ns: int, use_cache: bool,
             ncu: Path | None = None) -> int:
    path = target.path
    if target.kind == "ncu":
        from tui.views.reports.json_stream import write_json

        summary, render = _ncu_summary(path, use_cache)
        if as_json:
            write_json(sys.stdout, summary)
            sys.stdout.write("\n")
        else:
            from tui.core.console import summary_console

            render(summary, summary_console())
        return 0
    from tui.analysis import summary_memo

    stored = use_cache and ncu is None
    if as_json and stored and summary_memo.copy_memo_json(path, min_gap_ns, sys.stdout):
        sys.stdout.write("\n")
        return 0
    summary = summary_memo.read_memo(path, min_gap_ns) if stored and not as_json else None
    if summary is None:  # computed, written out as JSON and stored as it goes
        summary = _write_summary(path, min_gap_ns, use_cache, ncu, as_json)
    if not as_json:
        from tui.core.console import summary_console
        from tui.views.reports.summary import print_summary

        print_summary(summary, summary_console())
    return 0


def _write_summary(path: Path, min_gap_ns: int, use_cache: bool, ncu: Path | None,
                   as_json: bool) -> TraceSummary:
    """The summary computed; written to stdout as JSON if `as_json`, and stored beside the
    cache (unless with --ncu or --no-cache)."""
    from tui.analysis import summary_memo
    from tui.views.reports.json_stream import iter_json_members

    summary, memo_beside = _trace_summary(path, min_gap_ns, use_cache, ncu)
    # Encoded a piece at a time, for the memo and stdout alike: a summary of 200k gaps is
    # 0.3 GB of JSON, and a copy of that text would count in the peak memory.
    memo = summary_memo.MemoWriter(memo_beside, min_gap_ns, summary)
    try:
        if as_json:
            sys.stdout.write('{"source": ' + json.dumps(summary["source"]))
        if as_json or memo_beside is not None:
            for i, piece in enumerate(iter_json_members(
                    {k: v for k, v in summary.items() if k != "source"})):
                memo.write(piece)
                if as_json:
                    sys.stdout.write(", " + piece if i == 0 else piece)
        memo.finish()
    finally:
        memo.discard()
    if as_json:
        sys.stdout.write("}\n")
    return summary


def _trace_summary(path: Path, min_gap_ns: int, use_cache: bool,
                   ncu: Path | None) -> tuple[TraceSummary, Path | None]:
    """The summary dict, computed; and the cache file to store it beside (None: not to
    be)."""
    from tui.analysis.summary import trace_summary
    from tui.loading.trace import open_trace
    from tui.views.progress_line import progress_on_stderr

    with progress_on_stderr(path):
        trace = open_trace(path, use_cache=use_cache)
    with trace:  # closed before the summary is written out: DuckDB's memory goes first
        summary = trace_summary(trace, min_gap_ns)
        if ncu is not None:
            from tui.analysis.diagnosis import with_ncu
            from tui.analysis.ncu.attach import ncu_for_trace

            summary["ncu"] = ncu_for_trace(trace, ncu)
            summary["diagnosis"] = with_ncu(summary["diagnosis"], summary["ncu"],
                                            trace.format)
            return summary, None
    return summary, trace.cache_path


def _ncu_summary(path: Path, use_cache: bool):
    from tui.analysis.ncu.kept import report_summary
    from tui.analysis.ncu.summary import render_ncu_summary

    return report_summary(path, use_cache=use_cache), render_ncu_summary


def _reader_gone() -> int:
    """What the output was piped into stopped reading (`tui --summary TRACE | head`): end
    quietly, as a command killed by SIGPIPE does (128 + 13). Standard output is pointed at
    /dev/null first, so that the interpreter's last flush does not fail again on its way
    out."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def fail(message: str) -> int:
    from tui.core.safe_text import printable

    # The message may quote a file name or trace text: no control codes reach the terminal.
    print(f"tui: error: {printable(message)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

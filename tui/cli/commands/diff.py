"""`tui diff BEFORE AFTER`: what changed between two traces of one program. On a terminal
it opens DiffApp (tui/apps/diff_app.py) unless --json, --summary or --fail-above is given;
elsewhere (a pipe, CI) it prints the text report.

Exit codes: 0 compared (and within --fail-above); 1 AFTER is slower than BEFORE by more
than --fail-above PCT; 2 bad input; 3 the traces cannot be compared (one side has no GPU
activity).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.analysis.gaps import DEFAULT_MIN_GAP_MS

EXAMPLES = """\
examples:
  tui diff gappy.pt.trace.json.gz tuned.pt.trace.json.gz
  tui diff before.json.gz after.sqlite        a Kineto trace against an nsys export
  tui diff base.json.gz pr.json.gz --json     one JSON object
  tui diff base.json.gz pr.json.gz --summary  the text report (the default off a terminal)
  tui diff base.json.gz pr.json.gz --fail-above 5
                                              CI gate: exit 1 when PR is >5% slower
  tui diff before.ncu-rep after.ncu-rep       two Nsight Compute reports: per kernel

"slower" compares the median step time (ProfilerStep#N, or NVTX ranges named like
"step 3") when both traces have steps, else the GPU span (first to last GPU activity).
exit codes: 0 compared, 1 slower than --fail-above, 2 bad input, 3 not comparable
"""

EXIT_SLOWER = 1
EXIT_NOT_COMPARABLE = 3


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui diff", description="Compare two traces of one program: before and after.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--summary", action="store_true",
                        help="print the text report even on a terminal (where the default "
                        "is the app)")
    parser.add_argument("--fail-above", type=float, metavar="PCT",
                        help="exit 1 when AFTER is slower than BEFORE by more than PCT %%")
    parser.add_argument("--min-gap-ms", type=float, default=DEFAULT_MIN_GAP_MS, metavar="MS",
                        help=f"count GPU-idle gaps longer than this (default "
                        f"{DEFAULT_MIN_GAP_MS:g} ms)")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    from tui.cli.main import fail

    if args.min_gap_ms < 0:
        return fail("--min-gap-ms must be 0 or more")
    if args.fail_above is not None and args.fail_above < 0:
        return fail("--fail-above must be 0 or more")
    from tui.sources.ncu.load import is_ncu_input

    ncu = [is_ncu_input(args.before), is_ncu_input(args.after)]
    if all(ncu):
        return _ncu_diff(args)
    if any(ncu):
        return fail("compare two Nsight Compute reports, or two traces: "
                    f"{args.before if ncu[0] else args.after} is a report, the other is not")
    from tui.runs.diff import NotComparable, diff_traces
    from tui.views.progress_line import TracesProgress

    progress = TracesProgress([args.before, args.after], label="tui diff",  # a terminal's
                              then="comparing")
    try:
        try:
            result = diff_traces(args.before, args.after, round(args.min_gap_ms * 1_000_000),
                                 use_cache=not args.no_cache, on_done=progress.one_done)
        finally:
            progress.close()
    except NotComparable as exc:
        if args.debug:
            raise
        from tui.core.safe_text import printable

        print(f"tui: {printable(exc)}", file=sys.stderr)
        return EXIT_NOT_COMPARABLE
    failed = args.fail_above is not None and result["time"]["change_pct"] > args.fail_above
    if args.fail_above is not None:
        result["gate"] = {"fail_above_pct": args.fail_above, "failed": failed}
    if args.json:
        from tui.views.reports.json_stream import write_json

        findings = [f.to_json() for f in result["findings"]]
        write_json(sys.stdout, {**result, "findings": findings})  # rows may be RowSets
        sys.stdout.write("\n")
    elif not args.summary and args.fail_above is None and sys.stdout.isatty():
        from tui.apps.diff_app import DiffApp

        app = DiffApp(result)
        app.run()
        return app.return_code or 0
    else:
        from tui.core.console import summary_console
        from tui.views.reports.diff import print_diff

        print_diff(result, summary_console())
    if failed:
        time = result["time"]
        print(f"tui diff: after is {time['change_pct']:.1f}% slower than before "
              f"({time['measure']}), above --fail-above {args.fail_above:g}%", file=sys.stderr)
        return EXIT_SLOWER
    return 0


def _ncu_diff(args: argparse.Namespace) -> int:
    """Two Nsight Compute reports: per kernel what changed, as text or JSON."""
    from tui.analysis.ncu.compare import compare_reports

    result = compare_reports(args.before, args.after, use_cache=not args.no_cache)
    if args.json:
        from tui.views.reports.json_stream import write_json

        write_json(sys.stdout, result)
        sys.stdout.write("\n")
    else:
        from tui.core.console import summary_console
        from tui.views.reports.ncu_diff import print_ncu_diff

        print_ncu_diff(result, summary_console())
    slower = [k for k in result["kernels"] if k["change_pct"] is not None
              and args.fail_above is not None and k["change_pct"] > args.fail_above]
    if slower:
        print(f"tui diff: {len(slower)} kernel(s) slower by more than --fail-above "
              f"{args.fail_above:g}%: {', '.join(k['name'] for k in slower)}", file=sys.stderr)
        return EXIT_SLOWER
    return 0

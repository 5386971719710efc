"""Take the docs' screenshots (README.md's, docs/app.md's gallery): the app on the bundled
sample traces, as SVG.

    .venv/bin/python docs/make_screenshot.py                 # writes docs/screenshot.svg
    .venv/bin/python docs/make_screenshot.py --gallery       # and docs/gallery/*.svg
    .venv/bin/python docs/make_screenshot.py --keys b 2 --theme textual-light -o /tmp/x.svg

It drives the real app with Textual's Pilot (`App.run_test`), presses `--keys` once the
trace is loaded and drawn, and saves Textual's own SVG of the screen.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from tui.apps.trace_app import TraceApp
from tui.sources.xla_logdir import open_profile_run
from tui.widgets.timeline import Timeline

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "sample_traces" / "gappy_training.pt.trace.json.gz"
KEYS = ("b",)  # the largest GPU-idle gap: the cursor on it, its cause in the details
SAMPLES = ROOT / "sample_traces"
# The gallery of docs/app.md: file name, trace, keys pressed once it is drawn.
GALLERY = (
    ("jax_gap.svg", SAMPLES / "jax_train", ("b",)),  # a JAX profile folder (XLA)
    ("findings.svg", SAMPLES / "sync_habits.sqlite", ("6",)),  # NVIDIA's rules
    ("code.svg", SAMPLES / "stacks_training.pt.trace.json.gz", ("7",)),  # GPU time by line
    ("memory.svg", SAMPLES / "stacks_training.pt.trace.json.gz", ("8",)),  # allocations
)


async def settle(app: TraceApp, pilot) -> None:
    """Until the trace is loaded, no worker runs and the timeline has drawn its window."""
    timeline = app.query_one(Timeline)
    for _ in range(1000):
        await pilot.pause()
        busy = any(worker.is_running for worker in app.workers)
        if timeline.data is not None and not timeline.pending and not busy:
            break
        await asyncio.sleep(0.01)
    await pilot.pause(0.2)


async def shoot(output: Path, keys: list[str], theme: str, size: tuple[int, int],
                trace: Path = TRACE) -> None:
    if trace.is_dir():  # a JAX profile LOGDIR: its newest run's file, as `tui LOGDIR` opens
        trace = open_profile_run(trace).files[0]
    app = TraceApp(trace)
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        app.save_screenshot(filename=output.name, path=str(output.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "screenshot.svg")
    parser.add_argument("--keys", nargs="*", default=list(KEYS), help="keys to press first")
    parser.add_argument("--theme", default="textual-dark")
    parser.add_argument("--size", type=int, nargs=2, default=(120, 36), metavar=("W", "H"))
    parser.add_argument("--gallery", action="store_true", help="also docs/gallery/*.svg")
    args = parser.parse_args()
    asyncio.run(shoot(args.output.resolve(), args.keys, args.theme, tuple(args.size)))
    print(f"wrote {args.output}")
    if args.gallery:
        folder = ROOT / "docs" / "gallery"
        folder.mkdir(exist_ok=True)
        for name, trace, keys in GALLERY:
            asyncio.run(shoot(folder / name, list(keys), args.theme, tuple(args.size), trace))
            print(f"wrote {folder / name}")


if __name__ == "__main__":
    main()

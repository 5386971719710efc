"""A model-based test of the timeline app: hypothesis presses random sequences of the
keymap's keys (and `/` or `@` with text, mouse clicks) on each kind of sample trace, and
after every one checks what must hold (tests/helpers/app_model.py): no exception; the
details describe the selected event, which is on the cursor's lane, in view, in the window; the
status line agrees with the view; a search selects its hits one by one.

One app per trace, loaded once per module and put back as it opened between examples. In
CI (env CI) only the fixed walks run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.helpers.app_model import (
    SIZE,
    Action,
    Driver,
    check,
    check_escape_gives_the_timeline_its_keys,
)
from tests.helpers.paths import SAMPLES, sample
from tui.widgets import keymap

pytestmark = pytest.mark.slow

CI = bool(os.environ.get("CI"))
# drawn examples per trace: none in CI, which walks the three fixed walks below on every
# trace (a drawn walk there was a quarter of the module's time, and derandomized it is one
# more fixed walk); locally a few fresh ones; TUI_MODEL_EXAMPLES=50 hunts longer, in CI too
EXAMPLES = int(os.environ.get("TUI_MODEL_EXAMPLES", 0 if CI else 10))
PHASES = ([Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink] if EXAMPLES
          else [Phase.explicit])
# every timeline key (`/` and `@` come with their text below), `y`, Tab and the tabs, and
# keys of the tabs (sort, the tree, maximise, back, scroll) pressed wherever the keys are
KEYS = sorted({k.keys.split(",")[0] for k in keymap.TIMELINE
               if k.action not in ("search", "goto")} | {"y", "tab"}
              | {str(n) for n in range(1, 9)} | {"s", "v", "m", "f", "backspace", "pagedown"})
JAX = next((SAMPLES / "jax_streams" / "plugins" / "profile").iterdir()) / "vm.trace.json.gz"


class Kind:
    def __init__(self, path: Path, searches: list[str], ncu: Path | None = None) -> None:
        self.path, self.searches, self.ncu = path, searches, ncu


# typed a key at a time, wherever the keys are: a go-to from a tab, a filter
TYPED = ["@step 2\n", "/gemm\n", "@5ms\x1b", "3s/ab\x1b"]
GOTO = ["step 1", "step 2", "+1ms", "-2ms", "5ms", "100us", "forward", "no such range"]
KINDS = {
    # PyTorch with Python stacks and memory: frames 20 deep, ops inside ops, memory lanes
    "kineto-stacks": Kind(sample("stacks_training.pt.trace.json.gz"),
                          ["layer_norm", "gemm", "re:^aten::(add|mul)", "memcpy", "step_",
                           "backward", "no such name", "re:("]),
    # JAX: six streams, ten host threads (two named python3), Python frames, command buffers
    "xla": Kind(JAX, ["gemm", "fusion", "pxla.py", "re:^cu", "isinstance", "no such name"]),
    # Nsight Systems over a 4-GPU DDP job: 24 streams, four processes' threads and NVTX
    "nsys": Kind(sample("ddp4_nsys.sqlite"),
                 ["gemm", "ncclAllReduce", "step", "memcpy dtod", "re:^cuda[A-Z]",
                  "no such name"]),
    # Nsight Compute beside its nsys run: Enter on a kernel opens its results
    "ncu": Kind(sample("small_kernels.sqlite"), ["saxpy", "memset", "cuda", "transpose"],
                ncu=sample("small_kernels.ncu-rep")),
}


@pytest.fixture(scope="module", params=list(KINDS))
def driver(request: pytest.FixtureRequest) -> Iterator[tuple[Kind, Driver]]:
    kind = KINDS[request.param]
    one = Driver(kind.path, ncu=kind.ncu)
    yield kind, one
    one.close()


def actions(kind: Kind) -> st.SearchStrategy[Action]:
    keys = st.tuples(st.just("key"), st.sampled_from(KEYS + (["c"] if kind.ncu else [])))
    width, height = SIZE
    return st.one_of(
        keys, keys, keys,
        st.tuples(st.just("search"), st.sampled_from(kind.searches)),
        st.tuples(st.just("search_undo"), st.sampled_from(kind.searches)),
        st.tuples(st.just("goto"), st.sampled_from(GOTO)),
        st.tuples(st.just("type"), st.sampled_from(TYPED)),
        st.tuples(st.just("click"), st.tuples(st.integers(0, width - 1),
                                               st.integers(0, height // 2),
                                               st.sampled_from([1, 1, 2]))),
    )


def walk(kind: Kind, name: str) -> list[Action]:
    """Fixed walks: a search stepped through, copied and cleared; the views and tabs."""
    if name == "search":
        return [("search", kind.searches[0]), ("key", "n"), ("key", "y"), ("key", "N"),
                ("key", "t"), ("key", "escape")]
    if name == "tabs":  # into a tab, typed there, the Code tree, a maximised table
        return [("key", "7"), ("type", "@step 2\n"), ("key", "7"), ("key", "v"),
                ("key", "j"), ("key", "enter"), ("key", "3"), ("key", "m"), ("key", "1"),
                ("key", "pagedown")]
    return [("key", "t"), ("click", (40, 3, 1)), ("goto", "step 2"), ("key", "b"),
            ("key", "plus"), ("key", "y"), ("key", "2"), ("key", "enter")]


@settings(max_examples=max(1, EXAMPLES), phases=PHASES,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
@example(data="search")  # the walks below, on every trace, before the drawn ones
@example(data="views")
@example(data="tabs")
def test_every_action_leaves_a_state_to_trust(driver: tuple[Kind, Driver],
                                              data: st.DataObject | str) -> None:
    kind, one = driver
    one.reset()
    if isinstance(data, str):
        steps = walk(kind, data)
    else:
        steps = data.draw(st.lists(actions(kind), min_size=1, max_size=6 if CI else 12),
                          label="actions")
    for action in steps:
        before = one.before()
        one.act(action)
        check(one, before, action)
    check_escape_gives_the_timeline_its_keys(one)

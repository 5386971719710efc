"""What names a training step's host range, for every query that finds steps: `@ step N`
on the timeline (queries/views/goto_step.sql), the steps' critical paths (dist_steps.sql) and a
run's steps (rank_step_ranges.sql) take these patterns as $profiler_step and $step_name,
so the three agree on what a step is."""

# Kineto's step annotation; where a trace has these, they are its steps
PROFILER_STEP = r"^ProfilerStep#\d+$"
# else an annotation (NVTX, JAX StepTraceAnnotation) named like a step: 'step 3', 'step_3',
# 'Step#3', 'train_step 3', 'iteration 3', 'iter_3' (anything may follow); group 1: N
STEP_NAME = r"^(?i)(?:train[ _-]?)?(?:step|iteration|iter)[ _#:-]?(\d+)\b"
# Ranges that mark no work of the program's own: XLA's under nsys (its execution,
# `XlaModule:#hlo_module=jit_step…#`; its compiler's, `XlaCompileBackend:#…#`; its thunks',
# `Thunk:#hlo_op=…#`) and nsys' `[Unknown]`, a range whose name its import lost. Neither
# the window of work (tui/analysis/window.py) nor what the host was busy in
# (tui/analysis/gaps.py).
NOT_THE_PROGRAMS = r"^(Xla[A-Za-z]+|Thunk):#|^\[Unknown\]$"


def step_patterns() -> dict[str, str]:
    """The query parameters $profiler_step and $step_name."""
    return {"profiler_step": PROFILER_STEP, "step_name": STEP_NAME}

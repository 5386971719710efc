"""Phases of known character under jax.profiler with CUPTI PM sampling (XLA's
`gpu_pm_sample_counters`): a bf16 GEMM phase (tensor cores), an elementwise phase over
large arrays (DRAM), and a host sleep (idle), each in a named TraceAnnotation, to see
whether and how the XSpace carries the GPU's counters.

Usage: python gen_pm_counters_jax.py OUTDIR [METRICS ...]
Each METRICS argument (comma-separated CUPTI metric names) is one profiling session,
written to OUTDIR/pm_<i>/...xplane.pb; OUTDIR/pm_sessions.json says which set each is.
"""
import json
import os
import sys
import time

import jax
import jax.numpy as jnp


@jax.jit
def gemm(a, b):
    return (a @ b).astype(jnp.bfloat16)


@jax.jit
def stream(x):
    return x * 1.0001 + 0.5


def phases(a, b, x):
    with jax.profiler.TraceAnnotation("compute_bound"):
        for _ in range(40):
            a = gemm(a, b)
        jax.block_until_ready(a)
    with jax.profiler.TraceAnnotation("memory_bound"):
        for _ in range(40):
            x = stream(x)
        jax.block_until_ready(x)
    with jax.profiler.TraceAnnotation("host_bound"):
        time.sleep(0.2)
    return a, x


if __name__ == "__main__":
    out = sys.argv[1]
    sets = sys.argv[2:] or ["sm__cycles_active.avg.pct_of_peak_sustained_elapsed"]
    a = jax.random.normal(jax.random.PRNGKey(0), (8192, 8192), jnp.bfloat16)
    b = jax.random.normal(jax.random.PRNGKey(1), (8192, 8192), jnp.bfloat16) * 0.01
    x = jnp.ones((512 * 1024 * 1024 // 4,), jnp.float32)  # 512 MB
    a, x = phases(a, b, x)  # compile outside the profile
    done = []
    for i, metrics in enumerate(sets):
        options = jax.profiler.ProfileOptions()
        options.advanced_configuration = {"gpu_pm_sample_counters": metrics,
                                          "gpu_pm_sample_interval_us": 500}
        t0 = time.time()
        try:
            with jax.profiler.trace(os.path.join(out, f"pm_{i}"), profiler_options=options):
                a, x = phases(a, b, x)
            done.append({"i": i, "metrics": metrics, "ok": True, "s": time.time() - t0})
        except Exception as exc:  # noqa: BLE001 - a probe: note and go on
            done.append({"i": i, "metrics": metrics, "ok": False, "error": str(exc)[:500]})
        print(done[-1], flush=True)
    with open(os.path.join(out, "pm_sessions.json"), "w") as f:
        json.dump({"jax": jax.__version__, "device": jax.devices()[0].device_kind,
                   "sessions": done}, f, indent=1)

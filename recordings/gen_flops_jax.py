"""A jitted JAX MLP training step, traced with jax.profiler, beside XLA's own cost analysis
of the compiled step (FLOPs and bytes), to see whether the XSpace carries HLO costs.

Usage: python gen_flops_jax.py OUTDIR
Writes OUTDIR/jax_flops/plugins/profile/<run>/<host>.xplane.pb and
OUTDIR/jax_flops_cost.json (compiled.cost_analysis() of the step, and the step count).
"""
import json
import os
import sys

import jax
import jax.numpy as jnp


def init(key, sizes):
    params = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        key, k = jax.random.split(key)
        w = jax.random.normal(k, (a, b), jnp.bfloat16) * 0.02
        params.append((w, jnp.zeros((b,), jnp.bfloat16)))
    return params


def loss(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return jnp.mean(((x @ w + b) - y).astype(jnp.float32) ** 2)


@jax.jit
def step(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return [(w - 1e-3 * gw, b - 1e-3 * gb) for (w, b), (gw, gb) in zip(params, grads, strict=True)]


if __name__ == "__main__":
    out = sys.argv[1]
    sizes = [4096, 8192, 8192, 4096]
    params = init(jax.random.PRNGKey(0), sizes)
    x = jax.random.normal(jax.random.PRNGKey(1), (4096, sizes[0]), jnp.bfloat16)
    y = jax.random.normal(jax.random.PRNGKey(2), (4096, sizes[-1]), jnp.bfloat16)
    cost = step.lower(params, x, y).compile().cost_analysis()
    params = step(params, x, y)
    jax.block_until_ready(params)
    steps = 5
    with jax.profiler.trace(os.path.join(out, "jax_flops")):
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params = step(params, x, y)
        jax.block_until_ready(params)
    cost = cost[0] if isinstance(cost, list) else cost
    with open(os.path.join(out, "jax_flops_cost.json"), "w") as f:
        kept = {"steps": steps, "cost_analysis": {k: float(v) for k, v in cost.items()},
                "device": str(jax.devices()[0].device_kind), "jax": jax.__version__}
        json.dump(kept, f, indent=1)
    print("jax ok", {k: cost[k] for k in ("flops", "bytes accessed") if k in cost})

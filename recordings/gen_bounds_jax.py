"""JAX loops each bound by one thing, recorded by jax.profiler (XSpace .xplane.pb and the
trace viewer's JSON), the same characters as gen_bounds.py where JAX can express them:

  jax_bound_loader   a host-side data step (sleep + NumPy sort) before each jitted step
  jax_bound_sync     a small jitted step, float() of its result, host work on the value
  jax_bound_copy     a 128 MB host-to-device device_put, then a small jitted reduction
  jax_bound_compute  a jitted chain of 4096x4096 bf16 matmuls, called back to back
  jax_bound_launch   un-jitted element-wise ops on 256 elements: one tiny kernel each

Usage: python gen_bounds_jax.py OUTDIR [workload ...]
Each workload writes OUTDIR/<workload>/plugins/profile/<run>/{<host>.xplane.pb,
perfetto_trace.json.gz}. DRY=1: small sizes (to try the script on the CPU).
"""
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

SCALE = 8 if os.environ.get("DRY") else 1


def step_annotation(name, i):
    return jax.profiler.StepTraceAnnotation(name, step_num=i)


def loader():
    d, h = 1024 // SCALE, 4096 // SCALE
    key = jax.random.PRNGKey(0)
    k1, k2 = jax.random.split(key)
    params = [jax.random.normal(k1, (d, h)) / np.sqrt(d),
              jax.random.normal(k2, (h, d)) / np.sqrt(h)]

    @jax.jit
    def train(params, x):
        def loss(p):
            return jnp.mean((jax.nn.gelu(x @ p[0]) @ p[1]) ** 2)
        grads = jax.grad(loss)(params)
        return [p - 1e-3 * g for p, g in zip(params, grads, strict=True)]

    rng = np.random.default_rng(0)
    x0 = jnp.ones((512, d))
    jax.block_until_ready(train(params, x0))

    def run():
        nonlocal params
        for i in range(40):
            with step_annotation("train", i):
                with jax.profiler.TraceAnnotation("dataloader"):
                    time.sleep(0.006)
                    a = np.sort(rng.standard_normal((512, d), dtype=np.float32), axis=1)
                    x = jax.device_put(a)
                params = train(params, x)
        jax.block_until_ready(params)
    return run


def sync():
    n = 1024 // SCALE
    w = jax.random.normal(jax.random.PRNGKey(1), (n, n)) / np.sqrt(n)

    @jax.jit
    def iterate(x):
        x = jnp.tanh(x @ w)
        return x, jnp.mean(jnp.abs(x))

    x = jnp.ones((n, n))
    jax.block_until_ready(iterate(x))
    history = []

    def run():
        nonlocal x
        for i in range(40):
            with step_annotation("train", i):
                for _ in range(25):
                    x, value = iterate(x)
                    history.append(float(value))  # the host waits for the GPU here
                    time.sleep(0.0004)  # host work that needs the value
    return run


def copy():
    host = np.random.default_rng(2).standard_normal(32 * 2 ** 20 // SCALE ** 2).astype(np.float32)
    total = jax.jit(lambda x: jnp.sum(x * 2.0))
    jax.block_until_ready(total(jax.device_put(host)))

    def run():
        for i in range(40):
            with step_annotation("train", i):
                x = jax.device_put(host)  # 128 MB from pageable host memory
                y = total(x)
        jax.block_until_ready(y)
    return run


def compute():
    n = 4096 // SCALE
    a = jax.random.normal(jax.random.PRNGKey(3), (n, n), jnp.bfloat16)
    b = jax.random.normal(jax.random.PRNGKey(4), (n, n), jnp.bfloat16) / np.sqrt(n)

    @jax.jit
    def chain(c):
        for _ in range(10):
            c = c @ b
        return c

    c = jax.block_until_ready(chain(a))

    def run():
        nonlocal c
        for i in range(10):
            with step_annotation("train", i):
                for _ in range(10):
                    c = chain(c)
        jax.block_until_ready(c)
    return run


def launch():
    x = jnp.ones((256,), jnp.float32)
    for _ in range(3):
        jax.block_until_ready(x * 0.999 + 0.001)

    def run():
        nonlocal x
        for i in range(10):
            with step_annotation("eager", i):
                for _ in range(300 // SCALE):
                    x = x * 0.999 + 0.001
        jax.block_until_ready(x)
    return run


WORKLOADS = {"jax_bound_loader": loader, "jax_bound_sync": sync, "jax_bound_copy": copy,
             "jax_bound_compute": compute, "jax_bound_launch": launch}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(WORKLOADS)
    print("jax", jax.__version__, jax.devices(), flush=True)
    for name in names:
        try:
            run = WORKLOADS[name]()
            with jax.profiler.trace(os.path.join(out, name), create_perfetto_trace=True):
                run()
            print(name, "ok", flush=True)
        except Exception as exc:  # one workload failing must not lose the others
            print(name, "failed:", repr(exc), flush=True)


if __name__ == "__main__":
    main()

#!/bin/bash
# Record JAX profiles twice, with XLA's command buffers (its default) and without
# (XLA_FLAGS=--xla_gpu_enable_command_buffer=), for tying kernels to HLO ops and source
# lines (gen_jax_hlo.py). Env: OUT (a folder), GPUS (GPU indices; the first is used).
# Writes exactly $OUT/i40.tgz: each variant's profiles, compiled HLO text, XLA's HLO dumps
# of the step modules, and the logs.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
START=$SECONDS
export CUDA_VISIBLE_DEVICES=${GPUS%%,*} XLA_PYTHON_CLIENT_PREALLOCATE=false
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=$(mktemp -d /tmp/i40.XXXXXX)/i40
mkdir -p "$W"
{ date -u; echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
  timeout 15 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  timeout 20 python3 -m pip list 2>/dev/null | grep -i -E '^(jax|jaxlib|jax-cuda|flax|optax|numpy|nvidia-cu)'
} > "$W/env.txt" 2>&1

variant() {  # variant NAME TIMEOUT EXTRA_XLA_FLAGS: one process records every workload
  local name=$1 limit=$2 flags=$3 t0=$SECONDS
  mkdir -p "$W/$name"
  local dump="--xla_dump_to=$W/$name/xla_dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=jit_step"
  XLA_FLAGS="$flags $dump" timeout "$limit" python3 "$HERE/gen_jax_hlo.py" "$W/$name" \
    > "$W/$name/log.txt" 2>&1
  echo "$name: exit $? after $((SECONDS - t0)) s" >> "$W/steps.txt"
  # A quick failure with no profile (the dump flags refused?): once more without them
  if [ -z "$(find "$W/$name" -name '*.xplane.pb' | head -1)" ] && [ $((SECONDS - t0)) -lt 25 ]; then
    t0=$SECONDS
    XLA_FLAGS="$flags" timeout 85 python3 "$HERE/gen_jax_hlo.py" "$W/$name" \
      > "$W/$name/log_retry.txt" 2>&1
    echo "$name (retry, no dump): exit $? after $((SECONDS - t0)) s" >> "$W/steps.txt"
  fi
}

variant cb_on 110 ""
variant cb_off 110 "--xla_gpu_enable_command_buffer="

# Keep the HLO text of the dumps; LLVM IR and PTX are large and not needed
find "$W" -path '*xla_dump*' \( -name '*.ll' -o -name '*.ptx' -o -name '*.o' -o -name '*.cubin' \) -delete 2>/dev/null
find "$W" -type f | sort | xargs ls -la > "$W/files.txt" 2>&1
echo "total $((SECONDS - START)) s" >> "$W/steps.txt"
cp "$HERE/gen_jax_hlo.py" "$HERE/run.sh" "$W/"
tar czf "$OUT/i40.tgz" -C "$(dirname "$W")" i40
if [ "$(stat -c %s "$OUT/i40.tgz")" -gt 15000000 ]; then  # over the limit: dumps go first
  rm -rf "$W"/*/xla_dump; find "$W" -name 'perfetto_trace.json.gz' -delete
  tar czf "$OUT/i40.tgz" -C "$(dirname "$W")" i40
fi
ls -la "$OUT"

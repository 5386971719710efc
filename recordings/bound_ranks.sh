#!/bin/bash
# Start `python3 ARGS...` once for each GPU of CUDA_VISIBLE_DEVICES, each process seeing its
# own GPU alone (as its device 0), as launchers that bind a GPU to each task do (SLURM's
# --gpus-per-task, MPI wrappers): RANK, WORLD_SIZE, LOCAL_RANK=0, MASTER_ADDR and
# MASTER_PORT set for torch.distributed's env:// rendezvous. Env RANK_PREFIX: a command each
# rank runs under, its `%r` the rank (`nsys profile -o report_%r`: a report a rank, as
# `srun nsys profile …` records a job).
gpus=(${CUDA_VISIBLE_DEVICES//,/ })
for r in "${!gpus[@]}"; do
  CUDA_VISIBLE_DEVICES=${gpus[$r]} RANK=$r WORLD_SIZE=${#gpus[@]} LOCAL_RANK=0 \
    MASTER_ADDR=127.0.0.1 MASTER_PORT=${MASTER_PORT:-29533} ${RANK_PREFIX//%r/$r} python3 "$@" &
done
wait

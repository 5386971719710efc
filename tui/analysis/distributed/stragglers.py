"""Several stragglers at once: the ranks that arrive last, named as a group with what they
share (a host, a GPU index, a pattern of ranks), where tui/analysis/ranks.py names one.

A slow node holds the others up with all its GPUs at once: each of its ranks arrives last
at the collectives, so none of them waits, while every other rank waits for them. Once a
straggler is named (its hold-up is material, tui/analysis/ranks.py), the group is every
communicating rank whose own NCCL wait stays under the same materiality threshold (per
step, or over the trace without steps): the ranks within that margin of the last to arrive.
When that is every rank, nobody stands out but the straggler, which is named alone.
"""

from __future__ import annotations

import json
import re

from tui.analysis.ranks import PER_STEP

# torch.profiler's tensorboard_trace_handler names files '<host>_<pid>.<time>.pt.trace.json'
_HANDLER_NAME = re.compile(r"^(?P<host>.+)_(?P<pid>\d+)\.\d+\.pt\.trace\.json")


def straggler_group(rows: list[dict], verdict: dict) -> list[int]:
    """The ranks that arrive last (see the module's doc), by rank; [] without a straggler."""
    straggler = verdict["straggler"]
    if straggler is None:
        return []
    key = "wait_per_step_ns" if verdict["measure"] == PER_STEP else "wait_ns"
    talking = [r for r in rows if r["comm_kernels"]]
    group = {r["rank"] for r in talking if (r[key] or 0) < verdict["threshold_ns"]}
    group.add(straggler)
    if len(group) >= len(talking):
        return [straggler]
    return sorted(group)


def rank_host(meta: dict[str, str], file_name: str) -> str | None:
    """The host a rank ran on, where its trace says: a `hostname`/`host` in the trace's
    metadata or Kineto's distributedInfo, else tensorboard_trace_handler's file name."""
    for key in ("hostname", "host"):
        if meta.get(key):
            return meta[key]
    try:
        info = json.loads(meta.get("distributedInfo") or "{}")
    except ValueError:
        info = {}
    for key in ("hostname", "host"):
        if isinstance(info, dict) and isinstance(info.get(key), str) and info[key]:
            return info[key]
    match = _HANDLER_NAME.match(file_name)
    return match.group("host") if match else None


def shared_traits(group: list[int], ranks: list[int], hosts: dict[int, str | None],
                  devices: dict[int, list[int]]) -> list[str]:
    """What the group's ranks have in common that the other ranks lack, in words: their
    host(s), a GPU index, a residue of the rank number."""
    if len(group) < 2:
        return []
    others = [r for r in ranks if r not in group]
    traits = []
    group_hosts = {hosts.get(r) for r in group}
    if None not in group_hosts:
        other_hosts = {hosts.get(r) for r in others}
        if not group_hosts & other_hosts:
            names = ", ".join(sorted(h for h in group_hosts if h))
            traits.append(f"host {names}" if len(group_hosts) == 1 else f"hosts {names}")
    group_devices = {tuple(devices.get(r, [])) for r in group}
    if len(group_devices) == 1 and (gpus := next(iter(group_devices))):
        if all(tuple(devices.get(r, [])) != gpus for r in others):
            traits.append("GPU " + ", ".join(map(str, gpus)) + " of each host")
    for modulus in range(2, len(ranks) // 2 + 1):
        residues = {r % modulus for r in group}
        if len(residues) == 1 and all(r % modulus not in residues for r in others):
            traits.append(f"rank % {modulus} == {residues.pop()}")
            break
    return traits


def ranks_text(ranks: list[int], shown: int = 6) -> str:
    """'3, 7, 11, …, 63'."""
    if len(ranks) <= shown:
        return ", ".join(map(str, ranks))
    return ", ".join(map(str, ranks[: shown - 1])) + f", …, {ranks[-1]}"

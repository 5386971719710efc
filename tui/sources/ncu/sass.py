"""SASS instructions as Nsight Compute prints them (`@!P0  LDG.E R2, desc[UR6][R2.64]`):
which registers each one writes and reads, and, followed back through the control flow,
which load produced a register that a stalled instruction is waiting for.

A scoreboard stall (long: L1TEX loads; short: shared memory, special functions and other
MIO work) is sampled on the instruction that *consumes* the value, not on the load that is
slow. `producers` walks back from the consumer to the instructions that last wrote each of
its source registers, on every path into it, and keeps those of the kind the stall waits
for. Only registers are followed: the scoreboard bits in the control codes are not in the
text, so a wait on a store's completion or a barrier is not traced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Producers a long-scoreboard stall waits on: operations through L1TEX.
LONG_PRODUCERS = {
    "LDG": "global load", "LD": "generic load", "LDL": "local load (a register spill?)",
    "ATOMG": "global atomic", "ATOM": "atomic", "TEX": "texture fetch", "TLD": "texture fetch",
    "TLD4": "texture fetch", "TXD": "texture fetch", "TMML": "texture fetch",
    "SULD": "surface load", "SUATOM": "surface atomic",
}
# Producers a short-scoreboard stall waits on: MIO operations other than L1TEX.
SHORT_PRODUCERS = {
    "LDS": "shared load", "LDSM": "shared matrix load", "ATOMS": "shared atomic",
    "MUFU": "special function (MUFU)", "SHFL": "warp shuffle", "S2R": "special register read",
    "S2UR": "special register read",
    "LDC": "constant load",
}
WAIT_CLASSES = {"long_scoreboard": LONG_PRODUCERS, "short_scoreboard": SHORT_PRODUCERS}

# Opcodes that write no register (their register operands are all read).
_NO_DEST = frozenset((
    "ST", "STG", "STS", "STL", "STAS", "STSM", "RED", "REDG", "BAR", "BRA", "BRX", "JMP",
    "JMX", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "NOP", "MEMBAR",
    "FENCE", "ERRBAR", "CGAERRBAR", "DEPBAR", "LDGDEPBAR", "YIELD", "CCTL", "NANOSLEEP",
    "LDGSTS", "UTMALDG", "UTMASTG", "UTMACMDFLUSH", "UTMAPF", "WARPGROUP", "UCGABAR_ARV",
    "UCGABAR_WAIT", "ENDCOLLECTIVE", "BPT", "KILL", "ARRIVES", "SYNCS",
))
# Control flow that does not fall through to the next instruction (unless conditional).
_BRANCHES = frozenset(("BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "KILL"))
_FP64 = frozenset(("DADD", "DMUL", "DFMA", "DMNMX"))
_CONVERSIONS = frozenset(("F2F", "I2F", "F2I", "I2I", "F2IP", "I2FP"))
_TYPE = re.compile(r"^[FSU](?:8|16|32|64)$")

_PREDICATE = re.compile(r"^@(!?U?P[T0-9]+)\s+")
_REGISTER = re.compile(r"(?<![\w.])(U?R(?:\d+|Z))(\.64|\.128)?(?![\w])")
_PRED_OPERAND = re.compile(r"^U?P(?:T|\d+)$")
_TARGET = re.compile(r"0x[0-9a-fA-F]+$")
_MAX_STEPS = 20_000  # instructions visited per search: bounds a pathological CFG


@dataclass(frozen=True)
class Instruction:
    """One parsed SASS instruction: `writes`/`reads` are general and uniform registers
    (`R5`, `UR4`), zero registers left out."""

    opcode: str  # the base opcode: LDG for `LDG.E.64`
    modifiers: tuple[str, ...]
    predicated: bool  # may not execute (or, for a branch, may not be taken)
    writes: frozenset[str]
    reads: frozenset[str]
    target: int | None  # a branch's target address


def _span(name: str, width: int) -> list[str]:
    if name.endswith("Z"):
        return []
    prefix = "UR" if name.startswith("UR") else "R"
    first = int(name[len(prefix):])
    return [f"{prefix}{first + k}" for k in range(width)]


def _dest_width(opcode: str, modifiers: tuple[str, ...]) -> int:
    if "256" in modifiers:
        return 8
    if "128" in modifiers:
        return 4
    if "64" in modifiers or "WIDE" in modifiers or opcode in _FP64:
        return 2
    types = [m for m in modifiers if _TYPE.match(m)] if opcode in _CONVERSIONS else []
    if types and types[0].endswith("64"):
        return 2  # the first type is the destination's: F2F.F64.F32
    if opcode == "LDSM" and modifiers and modifiers[-1] in ("2", "4"):
        return int(modifiers[-1])
    return 1


def _registers(operand: str, width: int = 1) -> list[str]:
    out: list[str] = []
    for name, suffix in _REGISTER.findall(operand):
        wide = {".64": 2, ".128": 4}.get(suffix, width)
        out.extend(_span(name, wide))
    return out


def _operands(text: str) -> list[str]:
    """Split on the commas between operands, not those inside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def parse(text: str) -> Instruction:
    """One instruction as `sass_by_pc` gives it (predicate, opcode.modifiers, operands)."""
    body = text.strip().rstrip(";").strip()
    predicated = False
    guard = _PREDICATE.match(body)
    if guard:
        predicated = guard.group(1).lstrip("!") not in ("PT", "UPT")
        body = body[guard.end():]
    head, _, rest = body.partition(" ")
    opcode, *mods = head.split(".")
    modifiers = tuple(mods)
    operands = _operands(rest)
    writes: list[str] = []
    first_read = 0
    if opcode not in _NO_DEST and operands:
        width = _dest_width(opcode, modifiers)
        i = 0
        while i < len(operands) and _PRED_OPERAND.match(operands[i]):
            i += 1  # leading predicate destinations (ISETP P0, PT, ...; SHFL PT, R7, ...)
        if not opcode.endswith("SETP") and i < len(operands):
            writes = _registers(operands[i], width) if "[" not in operands[i] else []
            if writes:
                i += 1
        first_read = i
    reads = [r for operand in operands[first_read:] for r in _registers(operand)]
    target = None
    if opcode in _BRANCHES or opcode == "CALL":
        found = _TARGET.search(rest.strip())
        target = int(found.group(0), 16) if found else None
        # `BRA !P0, 0x...`: a predicate operand makes the branch conditional
        predicated = predicated or any(_PRED_OPERAND.match(o.lstrip("!")) and
                                       o.lstrip("!") not in ("PT", "UPT") for o in operands)
    return Instruction(opcode, modifiers, predicated, frozenset(writes), frozenset(reads),
                       target)


class ControlFlow:
    """The predecessors of each instruction of one function (instructions 16 bytes apart,
    in address order)."""

    def __init__(self, addresses: Sequence[int], instructions: Sequence[Instruction]) -> None:
        self.addresses = list(addresses)
        self.instructions = list(instructions)
        index = {a: i for i, a in enumerate(self.addresses)}
        self.predecessors: list[list[int]] = [[] for _ in self.addresses]
        for i, ins in enumerate(self.instructions):
            falls = ins.opcode not in _BRANCHES or ins.predicated
            if falls and i + 1 < len(self.addresses):
                self.predecessors[i + 1].append(i)
            if ins.opcode in ("BRA", "JMP") and ins.target in index:
                self.predecessors[index[ins.target]].append(i)

    def producers(self, at: int, register: str) -> list[int]:
        """Indices of the instructions that last wrote `register` before instruction `at`,
        on every path into it (a predicated write may not happen: the search goes on)."""
        found: list[int] = []
        seen: set[int] = set()
        work = list(self.predecessors[at])
        steps = 0
        while work and steps < _MAX_STEPS:
            i = work.pop()
            if i in seen:
                continue
            seen.add(i)
            steps += 1
            ins = self.instructions[i]
            if register in ins.writes:
                found.append(i)
                if not ins.predicated:
                    continue
            work.extend(self.predecessors[i])
        return sorted(found)


def waits_on(flow: ControlFlow, at: int, reason: str) -> list[int]:
    """The producers (instruction indices) of the registers instruction `at` reads that are
    of the kind a `reason` stall waits for; empty when there are none or the reason is not
    a scoreboard dependency."""
    kinds = WAIT_CLASSES.get(reason)
    if kinds is None:
        return []
    out: set[int] = set()
    for register in flow.instructions[at].reads:
        out.update(p for p in flow.producers(at, register)
                   if flow.instructions[p].opcode in kinds)
    return sorted(out)


def producer_kind(ins: Instruction) -> str:
    """`global load`, `shared load`... for the explanation."""
    return LONG_PRODUCERS.get(ins.opcode) or SHORT_PRODUCERS.get(ins.opcode) or ins.opcode

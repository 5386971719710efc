"""The `--summary --json` contract, three ways: docs/summary.md's block, the TypedDicts of
tui/analysis/summary_types.py and a real summary's JSON name the same keys.

The docs block is pseudo-JSON: `"key":` a key, `"key"?:` one that may be missing, `{...}`
an object described elsewhere (its keys are not spelt out, and the types leave it a plain
dict), a list's element stands for every element. An object the types spell out must be
written out key for key in the docs, and the docs may spell out no other object.
"""

from __future__ import annotations

import collections.abc
import json
import re
import types
import typing
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pytest

from tests.conftest import SAMPLES
from tests.helpers.paths import ROOT
from tui.analysis.finding import Finding
from tui.analysis.summary_types import RunSummary, TraceSummary
from tui.cli.main import main

DOCS = ROOT / "docs" / "summary.md"
MULTIRANK = DOCS.with_name("multirank.md")

_CONTAINERS = (list, collections.abc.Sequence, Union, types.UnionType)
Keys = dict[str, bool]  # key: required
Objects = dict[str, Keys]  # path ("" the top, "source", "findings.rows"): its keys


def contract_block(page: str) -> str:
    section = page[page.index("## JSON: the contract of `--summary --json`"):]
    start = section.index("```text\n") + 8
    return section[start: section.index("\n```", start)]


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\.\.\.|[{}\[\]:?,|]|[^\s{}\[\]:?,|"]+')


def documented(block: str) -> tuple[Objects, set[str]]:
    """The objects the block writes out, by path, and the paths of those with `...`."""
    text = "\n".join(line.split("#", 1)[0] for line in block.splitlines())
    tokens = _TOKEN.findall(text)
    objects: Objects = {}
    open_paths: set[str] = set()
    stack: list[tuple[str, str]] = []  # (bracket, path)
    key = None  # the key whose value comes next
    for i, token in enumerate(tokens):
        inside = stack[-1][1] if stack else None
        if token in "{[":
            path = inside if key is None or inside is None else _join(inside, key)
            if token == "{":
                objects.setdefault(path if path is not None else "", {})
            stack.append((token, path if path is not None else ""))
            key = None
        elif token in "}]":
            stack.pop()
        elif token == "...":
            if stack and stack[-1][0] == "{":
                open_paths.add(stack[-1][1])
        elif token.startswith('"') and stack and stack[-1][0] == "{":
            after = tokens[i + 1: i + 3]
            if after[:1] == [":"] or after == ["?", ":"]:
                key = token[1:-1]
                objects[stack[-1][1]][key] = after[0] != "?"
        elif token == ",":
            key = None
    return objects, open_paths


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _typeddicts_in(hint: Any) -> list[type]:
    """The TypedDicts a key's type holds: itself, a list's element, a union's members,
    or the row type an Annotated RowSet names."""
    if typing.is_typeddict(hint):
        return [hint]
    if get_origin(hint) is Annotated:
        return [m for m in hint.__metadata__ if typing.is_typeddict(m)] or \
            _typeddicts_in(get_args(hint)[0])
    if get_origin(hint) in _CONTAINERS:
        return [t for arg in get_args(hint) for t in _typeddicts_in(arg)]
    return []


def typed(td: type, path: str = "", above: tuple[type, ...] = ()) -> Objects:
    """The objects the TypedDict `td` spells out, by path; one met again below itself (a
    diagnosis' per-device diagnoses) is not spelt out again."""
    # FindingRecord: summary_types imports it for the checker only
    hints = get_type_hints(td, localns={"FindingRecord": Finding}, include_extras=True)
    out: Objects = {path: {k: k in td.__required_keys__ for k in hints}}
    for key, hint in hints.items():
        for inner in _typeddicts_in(hint):
            if inner not in (*above, td):
                out.update(typed(inner, _join(path, key), (*above, td)))
    return out


def differences(objects: Objects, open_paths: set[str], types: Objects) -> list[str]:
    out = []
    for path, keys in types.items():
        where = path or "the top level"
        docs = objects.get(path)
        if docs is None:
            out.append(f"{where}: typed key by key, not written out in the docs")
            continue
        out += [f"{where}: {k!r} is typed, not documented" for k in keys.keys() - docs.keys()]
        out += [f"{where}: {k!r} is documented, not typed" for k in docs.keys() - keys.keys()]
        out += [f"{where}: {k!r} is {'required' if keys[k] else 'optional'} in the types, "
                f"{'optional' if keys[k] else 'required'} in the docs"
                for k in keys.keys() & docs.keys() if keys[k] != docs[k]]
        if path in open_paths:
            out.append(f"{where}: typed key by key, left open ('...') in the docs")
    out += [f"{path}: documented key by key ({', '.join(sorted(keys))}), a plain dict in "
            "the types" for path, keys in objects.items() if path not in types and keys]
    return out


def test_the_docs_contract_names_the_typed_keys_both_ways() -> None:
    objects, open_paths = documented(contract_block(DOCS.read_text()))
    types = typed(TraceSummary)
    assert {"", "source", "diagnosis", "gaps", "findings", "xla_ops"} <= types.keys()
    assert differences(objects, open_paths, types) == []


@pytest.mark.parametrize(("change", "found"), [
    (lambda b: b.replace('"min_gap_ns": int,\n', "", 1),
     "source: 'min_gap_ns' is typed, not documented"),
    (lambda b: b.replace('"kind": str}]', '"kind": str, "reason": str}]', 1),
     "gaps: 'reason' is documented, not typed"),
    (lambda b: b.replace('"code_user"?:', '"code_user":', 1),
     "the top level: 'code_user' is optional in the types, required in the docs"),
    (lambda b: b.replace('"launches": int, "linked": int}', '"launches": int, ...}', 1),
     "code_unattributed: 'linked' is typed, not documented"),
    (lambda b: b.replace('"ranks": [{...}]', '"ranks": [{"rank": int}]', 1),
     "ranks: documented key by key (rank), a plain dict in the types"),
])
def test_the_check_finds_a_key_on_one_side_only(change, found: str) -> None:
    block = contract_block(DOCS.read_text())
    changed = change(block)
    assert changed != block
    objects, open_paths = documented(changed)
    assert found in differences(objects, open_paths, typed(TraceSummary))


def _json_objects(value: Any, path: str, out: dict[str, list[set[str]]]) -> None:
    """Every object's keys in a summary's JSON, by path (a list's elements at its own)."""
    if isinstance(value, dict):
        out.setdefault(path, []).append(set(value))
        for key, inner in value.items():
            _json_objects(inner, _join(path, key), out)
    elif isinstance(value, list):
        for inner in value:
            _json_objects(inner, path, out)


@pytest.mark.parametrize("trace", ["gappy_training.sqlite", "stacks_training.pt.trace.json.gz",
                                   "jax_train"])
def test_a_real_summary_has_the_typed_keys(trace: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--summary", "--json", str(SAMPLES / trace)]) == 0  # jax_train: a LOGDIR
    summary = json.loads(capsys.readouterr().out)
    found: dict[str, list[set[str]]] = {}
    _json_objects(summary, "", found)
    for path, keys in typed(TraceSummary).items():
        required = {k for k, needed in keys.items() if needed}
        for present in found.get(path, []):
            assert required <= present <= keys.keys(), (path, present ^ keys.keys())
    assert {"code_user", "code_unattributed", "host_memory"} <= summary.keys()
    if trace == "jax_train":  # the XLA keys, spelt out
        assert {"code_paths", "xla_ops", "xla_modules", "xla_command_buffers"} <= summary.keys()
        assert found["xla_ops"] and found["xla_command_buffers"]


def test_what_a_run_adds_and_drops_is_in_multirank_md() -> None:
    """A run's summary (RunSummary) against a trace's, at the levels both spell out: each
    key the run adds, and each the trace always has and the run lacks, is named in
    multirank.md's JSON section (keys only some traces have may go by their group)."""
    page = MULTIRANK.read_text()
    section = page[page.index("## JSON"):page.index("## How it is built")]
    run, trace = typed(RunSummary), typed(TraceSummary)
    differ = {(path, key) for path in run.keys() & trace.keys()
              for key in (run[path].keys() - trace[path].keys())
              | {k for k, required in trace[path].items() if required} - run[path].keys()}
    assert ("", "straggler_group") in differ and ("source", "origin_ns") in differ
    assert [(path, key) for path, key in sorted(differ)
            if f'"{key}"' not in section and f"`{key}`" not in section] == []


def test_a_real_run_summary_has_the_typed_keys(capsys: pytest.CaptureFixture[str]) -> None:
    ranks = [str(SAMPLES / f"ddp_rank{r}.pt.trace.json.gz") for r in (0, 1)]
    assert main(["--summary", "--json", *ranks]) == 0
    summary = json.loads(capsys.readouterr().out)
    found: dict[str, list[set[str]]] = {}
    _json_objects(summary, "", found)
    types = typed(RunSummary)
    assert {"", "source", "devices", "gaps", "straggler_group"} <= found.keys()
    for path, keys in types.items():
        required = {k for k, needed in keys.items() if needed}
        for present in found.get(path, []):
            assert required <= present <= keys.keys(), (path, present ^ keys.keys())

"""The suite's own layout: a test module imports what it shares from tests.helpers (or
tests.conftest), never from another test module, so moving or deleting one test file
breaks no other. Checked on the source of every module under tests/, by its AST."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

TESTS = ROOT / "tests"
SHARED = ("tests.helpers", "tests.conftest")


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every import in `source`, the text of the module `module`:
    `from a.b import c` gives a.b.c (c may be a module), relative imports are resolved
    against the module's package."""
    package = module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def forbidden(source: str, module: str) -> list[str]:
    """The imports of tests' modules other than tests.helpers and tests.conftest."""
    return [f"line {line}: {name}" for line, name in imported_modules(source, module)
            if (name == "tests" or name.startswith("tests."))
            and not any(name == s or name.startswith(s + ".") for s in SHARED)]


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


@pytest.mark.parametrize("source, bad", [
    ("from tests.test_app import settle", ["line 1: tests.test_app.settle"]),
    ("import tests.app.test_app", ["line 1: tests.app.test_app"]),
    ("from tests.app import test_tables", ["line 1: tests.app.test_tables"]),
    ("from .test_tables import ready", ["line 1: tests.app.test_tables.ready"]),
    ("from . import test_tables", ["line 1: tests.app.test_tables"]),
    ("def f():\n    from tests import oracle", ["line 2: tests.oracle"]),
    ("from tests.helpers.pilot import settle\nfrom tests.conftest import sample\n"
     "from tests.helpers import oracle\nimport tui.apps", []),
])
def test_the_check_tells_a_test_module_from_a_helper(source: str, bad: list[str]) -> None:
    assert forbidden(source, "tests.app.test_x") == bad


def test_no_module_of_the_tests_imports_a_test_module() -> None:
    modules = sorted(TESTS.rglob("*.py"))
    assert len(modules) > 50 and TESTS / "helpers" / "pilot.py" in modules
    offenders = {str(path.relative_to(ROOT)): bad for path in modules
                 if (bad := forbidden(path.read_text(), module_name(path)))}
    assert offenders == {}

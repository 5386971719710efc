"""`tui completion`: the script's option lists match the parsers, and bash completes with it."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tui.cli.commands.completion import OPTIONS, bash_script
from tui.cli.main import SUBCOMMANDS, main


def _help_options(capsys, argv: list[str]) -> set[str]:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    # argparse lists each option at the start of a line: "  -o FILE, --output FILE  ..."
    found: set[str] = set()
    for line in capsys.readouterr().out.splitlines():
        if re.match(r"^  -", line):
            found |= set(re.findall(r"(?:^|, )(--?[a-z][a-z-]*)", line.strip()))
    return found


@pytest.mark.parametrize("sub", ["", *SUBCOMMANDS])
def test_every_option_of_every_command_is_completed(sub: str, capsys) -> None:
    argv = [sub] if sub else []
    assert set(OPTIONS[sub].split()) == _help_options(capsys, argv) - {"-h"}


def _complete(words: list[str]) -> list[str]:
    script = bash_script() + (
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        "_tui_complete; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True,
                         cwd="/")
    return run.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_subcommands_options_and_tables() -> None:
    assert "diff" in _complete(["tui", "di"])
    assert _complete(["tui", "diff", "a.json", "--fa"]) == ["--fail-above"]
    assert _complete(["tui", "run.json", "--su"]) == ["--summary"]
    assert _complete(["tui", "export", "t.json", "ga"]) == ["gaps"]
    assert _complete(["tui", "completion", "z"]) == ["zsh"]

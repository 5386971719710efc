"""`tui completion bash|zsh`: a shell completion script for `tui`, printed to stdout.

Completes subcommands, each command's options, `tui export`'s tables and file names.
The option lists are written out here (a test checks them against every parser's
--help), so completing costs the shell nothing: no Python runs on Tab.
"""

from __future__ import annotations

import argparse
import sys

OPTIONS = {
    "": "--summary --json --min-gap-ms --ncu --run --no-cache --memory --scheduler --workers "
        "--debug --version --help",
    "query": "--csv --json --output --max-rows --no-cache --debug --help",
    "schema": "--debug --help",
    "host": ("--gap --step --from --to --min-gap-ms --tree --bottom-up --all-threads --min-pct "
             "--json --no-cache --debug --help"),
    "export": "--output -o --min-gap-ms --no-cache --debug --help",
    "diff": "--json --summary --fail-above --min-gap-ms --no-cache --debug --help",
    "convert": "--out --workers --scheduler --memory --no-cache --debug --help",
    "completion": "--help",
}
EXPORT_TABLES = "kernels gaps instances ncu"
SHELLS = ("bash", "zsh")

BASH = """\
# tui: shell completion (bash). Load it: eval "$(tui completion bash)"
_tui_complete() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} sub=""
    [[ $COMP_CWORD -gt 1 ]] && sub=${{COMP_WORDS[1]}}
    case "$sub" in
{cases}
        *) sub=""; opts="{main_options}" ;;  # `tui TRACE ...`
    esac
    if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "{subcommands}" -- "$cur"))
        COMPREPLY+=($(compgen -f -- "$cur"))
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ $sub == export && $COMP_CWORD -eq 3 ]]; then
        COMPREPLY=($(compgen -W "{tables}" -- "$cur"))
    elif [[ $sub == completion ]]; then
        COMPREPLY=($(compgen -W "{shells}" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -o bashdefault -F _tui_complete tui
"""
ZSH_PREAMBLE = """\
# tui: shell completion (zsh, through bash's). Load it: eval "$(tui completion zsh)"
autoload -U +X bashcompinit && bashcompinit
"""


def bash_script() -> str:
    cases = "\n".join(f'        {sub}) opts="{opts}" ;;' for sub, opts in OPTIONS.items() if sub)
    return BASH.format(cases=cases, main_options=OPTIONS[""],
                       subcommands=" ".join(sub for sub in OPTIONS if sub),
                       tables=EXPORT_TABLES, shells=" ".join(SHELLS))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui completion",
        description="Print a shell completion script for tui.",
        epilog='Load it in the shell: eval "$(tui completion bash)" (zsh: "tui completion '
               'zsh"); or save it to ~/.local/share/bash-completion/completions/tui.',
    )
    parser.add_argument("shell", choices=SHELLS)
    args = parser.parse_args(argv)
    sys.stdout.write((ZSH_PREAMBLE if args.shell == "zsh" else "") + bash_script())
    return 0

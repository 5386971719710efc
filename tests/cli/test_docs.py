"""The docs cannot go stale: every `tui` command README.md and docs/*.md show runs on the
sample traces, the output a page shows is what the command prints, every relative link
and #anchor leads somewhere, and the key tables match the bindings.

Conventions (docs/development.md): commands are read from ```bash and ```console blocks; in
a console block `$ tui …` is a command and the lines after it its output, `…` standing for
lines left out. A command that opens the app runs as `--summary` with the same arguments.
A command whose line says `not run in tests: WHY` in its comment is skipped.
"""

from __future__ import annotations

import glob
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT, SAMPLES
from tui.cli.main import SUBCOMMANDS, main
from tui.widgets.keys_doc import keys_markdown, page_with_keys, readme_with_first_keys

README = ROOT / "README.md"
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))
LINKED_PAGES = (*PAGES, *sorted((ROOT / "benchmarks").glob("*.md")))
README_LIMIT = 15_000  # bytes: a README read in five minutes
NOT_RUN = "not run in tests:"
ELIDED = "…"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
# The header line of a summary says whether the cache was used: that depends on what ran
# before, so it is not compared.
CACHE_NOTE = re.compile(r" — (from cache|built now|rebuilt|not cached).*$")


@dataclass
class Command:
    line: str  # as the page shows it
    argv: list[str]
    stdout_to: str | None = None  # `> FILE`
    env: dict[str, str] = field(default_factory=dict)  # `NAME=value tui …`
    shown: list[str] = field(default_factory=list)  # the output a console block shows


def _logical_lines(block: str) -> list[str]:
    """The block's lines, a line ending in a backslash joined to the next."""
    return block.replace("\\\n", " ").splitlines()


def _tokens(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def _commands_of(line: str) -> list[Command]:
    """The tui commands of one shell line: each `&&`-joined part that runs tui, and a
    `$(tui …)` inside another command."""
    tokens = _tokens(line)
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token in ("&&", ";", "||"):
            parts.append([])
        else:
            parts[-1].append(token)
    found = []
    for part in parts:
        env = {}
        while part and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", part[0]):
            name, _, value = part.pop(0).partition("=")
            env[name] = value
        inner = [m.group(1) for t in part for m in [re.fullmatch(r"\$\((tui .*)\)", t)] if m]
        if inner:
            found += _commands_of(inner[0])
            continue
        if not part or not (part[0] == "tui" or part[0].endswith("/tui")):
            continue
        assert "|" not in part, f"a pipe in {line!r}: show the command alone, or mark it"
        stdout_to = None
        if ">" in part:
            at = part.index(">")
            stdout_to, part = part[at + 1], part[:at]
        found.append(Command(line, part[1:], stdout_to, env))
    return found


def doc_commands(text: str) -> list[Command]:
    """Every tui command in the page's bash and console blocks, in order."""
    commands: list[Command] = []
    for match in FENCE.finditer(text):
        language, block = match.group(1), match.group(2)
        if language == "bash":
            for line in _logical_lines(block):
                if NOT_RUN not in line:
                    commands += _commands_of(line)
        elif language == "console":
            current: Command | None = None
            for line in _logical_lines(block):
                if line.startswith("$ "):
                    runs = [] if NOT_RUN in line else _commands_of(line[2:])
                    commands += runs
                    current = runs[-1] if runs else None
                elif current is not None:
                    current.shown.append(line.rstrip())
    return commands


def _argv(command: Command, cwd: Path) -> list[str]:
    """The command's arguments as a shell would pass them (globs expanded in `cwd`), a
    command that would open the app made headless."""
    argv = []
    for arg in command.argv:
        matches = sorted(glob.glob(arg, root_dir=cwd)) if any(c in arg for c in "*?[") else []
        argv += matches or [arg]
    opens_app = not (argv and argv[0] in SUBCOMMANDS) and not {
        "--summary", "--help", "-h", "--version"} & set(argv)
    return ["--summary", *argv] if opens_app else argv


def _shown_in(shown: list[str], printed: str) -> str | None:
    """None when the lines a page shows appear in order in what was printed (each run of
    lines between `…` together); else what is missing."""
    lines = [CACHE_NOTE.sub("", line.rstrip()) for line in printed.splitlines()]
    chunks: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == ELIDED:
            chunks.append([])
        elif line.strip() or chunks[-1]:
            chunks[-1].append(CACHE_NOTE.sub("", line))
    at = 0
    for chunk in filter(None, chunks):
        while chunk and not chunk[-1].strip():
            chunk.pop()
        starts = [i for i in range(at, len(lines) - len(chunk) + 1)
                  if lines[i:i + len(chunk)] == chunk]
        if not starts:
            return "\n".join(chunk)
        at = starts[0] + len(chunk)
    return None


# What the commands that passed in this process printed, those that read only the samples
# and write nothing: another page showing the same command needs no second run.
_PRINTED: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], str] = {}
WRITES = {"convert", "--output", "-o"}


def _only_reads_samples(argv: list[str], cwd: Path) -> bool:
    return not WRITES & set(argv) and all(
        arg.startswith("sample_traces/") or not (cwd / arg).exists() for arg in argv)


def run_command(command: Command, cwd: Path, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch) -> str:
    """What the command printed; it must exit 0."""
    for name, value in command.env.items():
        monkeypatch.setenv(name, value)
    argv = _argv(command, cwd)
    key = (tuple(argv), tuple(sorted(command.env.items())))
    if key in _PRINTED:
        return _PRINTED[key]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's --help and --version
        status = exc.code or 0
    out, err = capsys.readouterr()
    assert status == 0, f"{command.line!r} (tui {shlex.join(argv)}) exited {status}: {err}"
    if command.stdout_to:
        (cwd / command.stdout_to).write_text(out, encoding="utf-8")
    elif _only_reads_samples(argv, cwd):
        _PRINTED[key] = out
    return out


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_command_a_page_shows_runs(page: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """In a scratch folder beside a link to the samples, one after the other (a command
    may read what an earlier one wrote)."""
    (tmp_path / "sample_traces").symlink_to(SAMPLES, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)  # the output a page shows is a pipe's
    for command in doc_commands(page.read_text(encoding="utf-8")):
        printed = run_command(command, tmp_path, capsys, monkeypatch)
        missing = _shown_in(command.shown, printed)
        assert missing is None, (
            f"{_page_id(page)}: `{command.line}` no longer prints\n{missing}\n"
            f"--- it prints:\n{printed}")


def test_the_readme_runs_the_main_job_on_a_sample_and_shows_a_summary() -> None:
    commands = doc_commands(README.read_text(encoding="utf-8"))
    assert commands[0].argv == ["sample_traces/gappy_training.pt.trace.json.gz"]
    assert any(c.argv[0] == "--summary" and c.shown for c in commands)


# --- links ---------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
                  r"|<(?:img|a)\b[^>]*\b(?:src|href)=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The page without its fenced blocks: a `#` line in a bash block is no heading."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(_prose(page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` whose file, or whose #anchor in a Markdown file, is
    not there."""
    text = INLINE_CODE.sub("", _prose(page.read_text(encoding="utf-8")))
    broken = []
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or not file.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    return broken


@pytest.mark.parametrize("page", LINKED_PAGES, ids=_page_id)
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_broken_file_and_anchor(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "other.md").write_text("# Other page\n\n## The JSON (`--json`)\n")
    page = tmp_path / "page.md"
    page.write_text("[a](other.md#the-json---json) [b](other.md#nope) [c](gone.md)\n"
                    "![d](other.md) [e](https://example.com/x) `[f](inline.md)`\n"
                    "```bash\n# not a heading [g](fenced.md)\n```\n")
    assert broken_links(page) == ["other.md#nope: no heading #nope in other.md",
                                  "gone.md: no such file"]


def test_slug_matches_githubs_anchors() -> None:
    assert slug("Headless: `tui --summary`") == "headless-tui---summary"
    assert slug("Search, go to, copy, the mouse, and an 80×24 screen") == (
        "search-go-to-copy-the-mouse-and-an-8024-screen")


# --- the README and the keys ---------------------------------------------------------

def test_readme_is_short() -> None:
    assert len(README.read_bytes()) < README_LIMIT


def test_documented_keys_match_the_bindings() -> None:
    app = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    assert page_with_keys(app) == app, "run docs/make_keys.py"
    readme = README.read_text(encoding="utf-8")
    assert readme_with_first_keys(readme) == readme, "run docs/make_keys.py"
    assert "| `:` | SQL prompt" in keys_markdown()
    assert "| `q` | quit |" in readme and "| `b` | largest gap" in readme


def test_readme_shows_a_real_screenshot() -> None:
    readme = README.read_text(encoding="utf-8")
    assert "](docs/screenshot.svg)" in readme
    svg = (ROOT / "docs" / "screenshot.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "gappy_training" in svg


def test_a_console_block_is_compared_line_for_line() -> None:
    printed = "a\nspan 1 ms — from cache\nb\nc\nd\n"
    assert _shown_in(["span 1 ms — built now: no cache yet", "b", ELIDED, "d"], printed) is None
    assert _shown_in(["b", "d"], printed) == "b\nd"  # not next to each other
    assert _shown_in(["d", ELIDED, "a"], printed) == "a"  # out of order

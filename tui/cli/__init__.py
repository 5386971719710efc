"""The command line: `tui` (main.py), a run of many ranks (ranks.py), and the subcommands
(commands/)."""

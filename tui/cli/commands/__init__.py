"""Subcommands of `tui` (`tui query`, `tui schema`, ...): one module each, `main(argv) -> int`."""

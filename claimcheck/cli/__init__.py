"""The ``claimcheck`` command line, one module per group of subcommands (:mod:`.main` builds and runs it)."""

from claimcheck.cli.main import COMMAND_MODULES, build_parser, main

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

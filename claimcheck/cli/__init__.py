"""The ``claimcheck`` command line, one module per group of subcommands (:mod:`.main` builds the
parser and runs it; :mod:`.editor`, :mod:`.runs`, :mod:`.init`, :mod:`.pages` add their commands)."""

from claimcheck.cli.main import COMMAND_MODULES, build_parser, main

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

"""The ``claimcheck`` command line. Each module of :data:`COMMAND_MODULES` has ``register(subparsers)``,
which adds its subcommands with ``func`` (``args -> exit code``); heavy imports wait for the command
(``claimcheck --help`` stays fast)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from claimcheck import __version__
from claimcheck.book import book_issues, book_of, citation_issues, locate, registry_paths, scan
from claimcheck.display import counted, printable
from claimcheck.manuscript import citation_checks
from claimcheck.registry import Registry, load_registry

COMMAND_MODULES = (
    "claimcheck.cli.main",
    "claimcheck.cli.editor",
    "claimcheck.cli.runs",
    "claimcheck.cli.init",
    "claimcheck.cli.pages",
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "validate",
        help="validate the chapters' claims registries and list their claims",
        description="Load each claims.toml, print every problem (file, claim id, field or line) "
        "and a one-line summary per claim, check that every claim id the test "
        "modules beside it name (read without importing them) is declared, and "
        "that no two chapters share a chapter id. Exit 1 if any problem, an empty "
        "registry included.",
    )
    p.add_argument(
        "registry",
        nargs="*",
        metavar="PATH",
        help="registry files or folders to search for them (default: every claims.toml under claims/)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    p.set_defaults(func=_validate_command)


def error(text: str) -> int:
    """Print ``error: text`` on stderr; return 2, the exit code of a command that could not run."""
    _say(f"error: {text}", file=sys.stderr)
    return 2


def _say(text: str, file: TextIO | None = None) -> None:
    """Print one line; a registry's text never starts a workflow command in a CI log."""
    print(printable(text), file=file)


def _validate_command(args: argparse.Namespace) -> int:
    paths: list[Path] = []
    total = 0  # problems
    for arg in args.registry or [str(locate("claims"))]:
        p = Path(arg)
        found = registry_paths(p) if p.exists() else []
        if not found:
            total += 1
            why = "no claims.toml in it" if p.exists() else "cannot read: no such file or folder"
            hint = "" if args.registry else " (run from the project's root, or name a registry)"
            _say(f"error: {arg}: {why}{hint}", file=sys.stderr)
        paths += [f for f in found if f not in paths]
    registries = [load_registry(p) for p in paths]
    for reg in registries:
        problems = [str(i) for i in reg.issues]
        if Path(reg.path).is_file():
            problems += unknown_ids_in_tests(reg, Path(reg.path).parent)
        for problem in problems:
            _say(f"error: {problem}", file=sys.stderr)
        if not args.quiet:
            if len(registries) > 1:
                _say(f"# {reg.chapter_id}: {reg.path}")
            for c in reg.claims.values():
                stated = f"{c.stated} {c.unit}".strip() or "(no number)"
                kind = "[draft] " if c.draft else "[formula] " if c.formula else ""
                _say(f"{c.id:10} {stated:22} {c.tolerance_text:18} {','.join(c.needs):22} {kind}{c.title}")
        drafts = sum(c.draft for c in reg.claims.values())
        drafts_note = f" ({drafts} drafts to review)" if drafts else ""
        invalid = [cid for cid in reg.invalid if cid not in reg.claims and not cid.startswith("#")]
        invalid_note = f" (invalid: {', '.join(invalid)})" if invalid else ""
        said = f"{counted(len(problems), 'problem')}{invalid_note} in {reg.path} (chapter {reg.chapter_id})"
        _say(f"{len(reg.claims)} valid claims{drafts_note}, {said}", file=sys.stderr)
        total += len(problems)
    chapters = book_of(registries)
    across = book_issues(registries) + citation_issues(registries, chapters)
    for problem in across:
        _say(f"error: {problem}", file=sys.stderr)
    drifted = citation_lines(registries, chapters, args.quiet)
    total += len(across) + drifted
    if len(registries) > 1:
        claims = sum(len(r.claims) for r in registries)
        _say(
            f"{len(registries)} chapters, {claims} valid claims, {counted(total, 'problem')}", file=sys.stderr
        )
    return 1 if total or not registries else 0


def citation_lines(registries: Sequence[Registry], chapters: dict[str, Registry], quiet: bool = False) -> int:
    """Say each citation of ``registries`` against the book ``chapters`` (a drifted one as an error, the
    others as notes, unless ``quiet`` only those not in the book); returns how many drifted."""
    drifted = 0
    for reg in registries:
        for q in citation_checks(reg, chapters).values():
            where = reg.path + (f" (manuscript line {q.line})" if q.line else "")
            words = q.message.split(": ", 1)[-1]
            if q.status == "drift":
                drifted += 1
                _say(f"error: {where}: {words}", file=sys.stderr)
            elif q.status == "not-in-book" or not quiet and q.status in ("ok", "in-words"):
                _say(f"citation: {where}: {words}")
    return drifted


def unknown_ids_in_tests(reg: Registry, folder: Path) -> list[str]:
    """``path:line: ...`` of each claim id the test modules under ``folder`` name and ``reg`` does not
    declare, with the likeliest fix."""
    marks = scan(folder)
    declared = set(reg.all_ids)
    untested = declared - set(marks)
    unknown = [cid for cid in marks if cid not in declared]
    if unknown and not declared:
        return [f"{folder}: the test modules name {len(unknown)} claim ids and the registry declares none"]
    why = {cid: reg.unknown_id_message(cid, untested, scope="") for cid in unknown}
    return [f"{place}: a test names claim {cid!r}: {why[cid]}" for cid in unknown for place in marks[cid]]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claimcheck", description="Executable claims of a book chapter.")
    parser.add_argument("--version", action="version", version=f"claimcheck {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); the exit code: the command's, or 2
    when no command is given or a package it needs is not installed (one line on stderr)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ModuleNotFoundError as exc:
        # an install without a dependency (pip install --no-deps): one line, not a traceback
        package = (exc.name or "").split(".")[0]
        if not package or package == "claimcheck":
            raise
        print(
            f"error: claimcheck {args.command} needs the Python package {package!r}, which is not installed "
            f"(pip install claimcheck installs the core's dependencies; after --no-deps: pip install {package})",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""Write the reference pages from the tables they document: ``python -m claimcheck.docs``.

``docs/reference/registry-fields.md`` comes from :data:`claimcheck.fields.TABLES` and
:data:`claimcheck.registry.CLAIM_RULES`, ``options.md`` from the option tables and the command line's
parsers (read from argparse's private ``_actions``: it has no public list), ``units.md`` from
:data:`claimcheck.units.UNITS`; each page's prose and layout is its Jinja template in
``claimcheck/reference_pages/`` (package data), filled with those tables. ``--check`` writes nothing
and exits 1 when a page is not current.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from claimcheck.cli import build_parser
from claimcheck.fields import NEEDS, SHARED_FIELDS, TABLES
from claimcheck.registry import CLAIM_RULES
from claimcheck.settings import CORE, OptionTable
from claimcheck.units import COMMON, UNITS

REGENERATE = "python -m claimcheck.docs"


def _render(template: str, **values: object) -> str:
    """A page from its template, ``claimcheck/reference_pages/<template>`` (package data: the pages'
    prose and layout), filled with ``values`` and :data:`REGENERATE`."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("claimcheck", "reference_pages"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env.get_template(template).render(regenerate=REGENERATE, **values)


def _reference_cell(text: object) -> str:
    """Text for a Markdown table cell: pipes escaped, on one line."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _markdown_table(names: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table of ``rows`` under the heading ``names``, each cell a :func:`_reference_cell`."""
    lines = [f"| {' | '.join(names)} |", "|---" * len(names) + "|"]
    return "\n".join(lines + [f"| {' | '.join(map(_reference_cell, row))} |" for row in rows])


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def registry_fields() -> str:
    """The page of every table and field of a registry file."""
    tables = []
    for header, what, fields in TABLES:
        claims = header == "[claims]"
        shared = ["shared"] if claims else []
        names = ["field", "type", "required", "default", *shared, "example", "meaning"]
        head = _markdown_table(names, [])
        # the shared column's empty cell is one space wide, the others' two (the page as published)
        rows = [
            f"| `{f.name}` | {f.kind.words} | {'yes' if f.required else 'no'} "
            f"| {_reference_cell(_code(f.shown_default))} |{(' yes |' if f.shared else ' |') if claims else ''} "
            f"{_reference_cell(_code(f.example))} | {_reference_cell(f.help)} |"
            for f in fields
        ]
        tables.append((header, what[0].upper() + what[1:] + ".", "\n".join([head, *rows])))
    needs = [(f"`{name}`", words) for name, words in NEEDS.items()]
    return _render(
        "registry-fields.md.j2",
        tables=tables,
        shared=", ".join(f"`{f.name}`" for f in SHARED_FIELDS),
        rules=[" ".join((rule.__doc__ or "").split()).replace("``", "`") for rule in CLAIM_RULES],
        needs=_markdown_table(("need", "the claim needs"), needs),
    )


def _commands() -> list[tuple[str, str, argparse.ArgumentParser]]:
    """``(name, help, parser)`` of each ``claimcheck`` command, in ``claimcheck --help``'s order."""
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, a.help or "", commands.choices[a.dest]) for a in commands._choices_actions]


def _argument(action: argparse.Action) -> str:
    if not action.option_strings:
        return _code(str(action.metavar or action.dest))
    takes = action.nargs != 0
    metavar = action.metavar or "/".join(action.choices or ()) or action.dest.upper()
    return ", ".join(_code(o + (f" {metavar}" if takes else "")) for o in action.option_strings)


def _default(action: argparse.Action) -> str:
    listed = not action.option_strings and action.nargs in ("*", "+")  # a positional list: none shown
    return "" if listed or action.default in (None, False, argparse.SUPPRESS) else _code(str(action.default))


def kit_option_tables() -> list[OptionTable]:
    """The option tables of claimcheck's ``pytest11`` entry points that answer ``pytest_claimcheck_options``
    (loaded by name: the core imports no kit)."""
    ours = [ep for ep in entry_points(group="pytest11") if getattr(ep.dist, "name", None) == "claimcheck"]
    answers = [getattr(ep.load(), "pytest_claimcheck_options", None) for ep in ours]
    return [t for t in (answer() for answer in answers if answer is not None) if t is not None]


def options() -> str:
    """The page of the pytest options (flags, environment, ini keys) and the commands."""

    def table(options: OptionTable) -> str:
        names = ("option", "environment", "ini key", "default", "meaning")
        rows = []
        for o in options.options:
            flag = o.flag if o.kind == "flag" else f"{o.flag} {o.metavar}"
            default = "" if o.kind == "append" or o.default is None else _code(o.default_text)
            rows.append((_code(flag), _code(o.env or ""), _code(o.ini or ""), default, o.help))
        return _markdown_table(names, rows)

    kits = kit_option_tables()
    commands = []
    for name, words, parser in _commands():
        args = [(_argument(a), _default(a), a.help or "") for a in parser._actions if a.dest != "help"]
        usage, about = parser.format_usage().split()[1:], (parser.description or words).split()
        arguments = _markdown_table(("argument", "default", "meaning"), args)
        commands.append((name, words, " ".join(usage), " ".join(about), arguments))
    return _render(
        "options.md.j2",
        core=table(CORE),
        kits=[(t.title, t.module, table(t)) for t in kits],
        other={name: words for t in [CORE, *kits] for name, words in t.other_env.items()},
        commands=commands,
    )


def units_page() -> str:
    """The page of the units a claim may use beyond pint's, and how to declare one."""
    rows = []
    for definition, meaning in UNITS:
        name, value, *aliases = (part.strip() for part in definition.split("="))
        defined = "a dimension of its own" if value.startswith("[") else _code(value)
        rows.append((_code(name), ", ".join(_code(a) for a in aliases), defined, meaning))
    units = _markdown_table(("unit", "also written", "defined as", "what it is"), rows)
    return _render("units.md.j2", common=", ".join(_code(u) for u in COMMON), units=units)


RENDER = {
    "docs/reference/registry-fields.md": registry_fields,
    "docs/reference/options.md": options,
    "docs/reference/units.md": units_page,
}


def stale(root: Path) -> list[str]:
    """The pages under ``root`` that are not what this module writes (missing ones included)."""
    paths = {page: root / page for page in RENDER}
    return [p for p, f in paths.items() if not f.is_file() or f.read_text(encoding="utf-8") != RENDER[p]()]


def main(argv: Sequence[str] | None = None) -> int:
    """Write the pages under ``--root``, or with ``--check`` say which are stale (exit 1); the exit status."""
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="the repository's root (default: the current folder)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is not current")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if args.check:
        pages = stale(root)
        for page in pages:
            print(f"{page} is not current: run {REGENERATE}", file=sys.stderr)
        return 1 if pages else 0
    for page, render in RENDER.items():
        path = root / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(), encoding="utf-8", newline="\n")
        print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""docs/kit.md's table of the kit's helpers names real functions with their real arguments."""

import importlib
import inspect
import re
from pathlib import Path

KIT_MD = Path(__file__).resolve().parents[2] / "docs" / "kit.md"


def documented_calls() -> list[tuple[str, str, list[str]]]:
    """(module, name, argument names) of every `name(args)` in the helpers table's call column."""
    calls, module = [], None
    for row in KIT_MD.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        module = cells[0].strip("`") or module
        for name, args in re.findall(r"`(\w+)\(([^)`]*)\)`", cells[1]):
            names = [a.split("=")[0].strip().lstrip("*") for a in args.split(",") if a.strip()]
            calls.append((module, name, [n for n in names if n not in ("...",)]))
    return calls


def test_every_documented_helper_exists_with_the_arguments_the_table_gives():
    calls = documented_calls()
    assert len(calls) >= 25, calls  # the whole table was read
    for module, name, args in calls:
        fn = getattr(importlib.import_module(module), name)
        params = inspect.signature(fn).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for arg in args:
            assert arg in params or takes_any, f"docs/kit.md: {module}.{name} has no argument {arg!r}"

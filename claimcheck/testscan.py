"""The claim ids that test modules name, read from their source without importing them.

A claim test carries ``@pytest.mark.claim("C05")``. When its module cannot be imported (a missing
package, a syntax error, an exception at import), pytest knows nothing of its tests; this module
still finds the ids in the text, so that the claims the module covers can be reported as errors
instead of vanishing, and so that ``claimcheck validate`` can cross-check a registry against the
tests beside it. Standard library only.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

#: pytest's default ``python_files``
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")
_MARK_RE = re.compile(r"""mark\s*\.\s*claim\s*\(\s*(?:[rRuU]?)(["'])([^"'\n]+)\1""")


@dataclass(frozen=True)
class ClaimMark:
    """One ``pytest.mark.claim(id)`` in a test module: the id, the file and its 1-based line."""

    claim_id: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def claim_marks(text: str, path: str = "<source>") -> list[ClaimMark]:
    """Every ``mark.claim("<id>")`` with a string literal id in a module's source, in file order.

    Parsed with :mod:`ast` (so comments and strings that merely mention a mark are not counted);
    a module that does not parse (a syntax error) is searched with a regular expression instead.
    Never raises.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [
            ClaimMark(m.group(2), path, text.count("\n", 0, m.start()) + 1) for m in _MARK_RE.finditer(text)
        ]
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "claim"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "mark"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append(ClaimMark(node.args[0].value, path, node.lineno))
    return sorted(out, key=lambda m: m.line)


def claim_ids_in_file(path: str | Path) -> list[str]:
    """The distinct claim ids a test module names, in file order (empty when it cannot be read)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return list(dict.fromkeys(m.claim_id for m in claim_marks(text, str(path))))


def module_files(folder: str | Path) -> list[Path]:
    """The test modules under ``folder`` (pytest's default file names), sorted."""
    folder = Path(folder)
    found = {p for pattern in TEST_FILE_PATTERNS for p in folder.rglob(pattern) if p.is_file()}
    return sorted(found)


def scan(folder: str | Path) -> dict[str, list[ClaimMark]]:
    """claim id -> its marks in every test module under ``folder`` (unreadable files are skipped)."""
    out: dict[str, list[ClaimMark]] = {}
    for path in module_files(folder):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for mark in claim_marks(text, str(path)):
            out.setdefault(mark.claim_id, []).append(mark)
    return out

"""The book: every chapter's registry under ``claims/``, found once, for every command, and the
claim ids its test modules name, read without importing them (last section).

A chapter is a folder ``claims/<chapter>/`` with its ``claims.toml`` (and its claim tests). The
commands find the chapters here rather than assuming one: ``validate`` with no argument checks
them all, ``check-manuscript CH16.md`` picks the registry whose ``[chapter] manuscript`` names
the file, ``what-if ch16:C10=2.3`` finds the chapter of the claim. Standard library only.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

REGISTRY_NAME = "claims.toml"
#: folders the commands never search for registries (besides hidden ones and virtual environments)
SKIP_DIRS = ("node_modules", "__pycache__", "site-packages", "venv", "env", "build", "dist")


class BookError(LookupError):
    """No registry, or no single registry, for what was asked; ``str()`` says what to pass instead."""


def registry_paths(root="claims") -> list[Path]:
    """Every ``claims.toml`` at or below ``root`` (a folder, or a registry file), sorted by path.

    Hidden folders (``.git``, ``.venv``), virtual environments and :data:`SKIP_DIRS` are not
    entered (:func:`walk_registries`).
    """
    root = Path(root)
    if root.exists() and not root.is_dir():  # a file, or a device or FIFO that loading refuses by name
        return [root]
    return sorted(walk_registries(root, SKIP_DIRS))


def walk_registries(folder: Path, skip) -> list[Path]:
    """Every ``claims.toml`` below ``folder`` in walk order (folders sorted), never entering a hidden
    folder, a virtual environment (a folder with ``pyvenv.cfg`` or ``conda-meta``) or a folder whose
    name matches a ``skip`` pattern (fnmatch): a ``.venv`` or ``node_modules`` holds other
    projects' files, not this one's claims, and walking it would cost seconds."""
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped(Path(here) / d, skip))
        if REGISTRY_NAME in files:
            found.append(Path(here) / REGISTRY_NAME)
    return found


def _skipped(path: Path, skip) -> bool:
    name = path.name
    return (
        name.startswith(".")
        or any(fnmatch.fnmatch(name, pat) for pat in skip)
        or (path / "pyvenv.cfg").is_file()
        or (path / "conda-meta").is_dir()
    )


def locate(root="claims", *near) -> Path:
    """The book's ``claims/`` folder: ``root`` when it exists; else, for a relative ``root``, the
    first ``<folder>/root`` holding a registry, searching upward from the current folder and from
    each path of ``near`` (a manuscript's folder), as git finds its repository. ``root`` itself when
    none is found (the caller's message then says so)."""
    root = Path(root)
    if root.exists() or root.is_absolute():
        return root
    for start in (Path.cwd(), *(Path(p).resolve().parent for p in near)):
        for folder in (start, *start.parents):
            candidate = folder / root
            if candidate.is_dir() and registry_paths(candidate):
                return candidate
    return root


def project_of(registry, root="claims") -> Path | None:
    """The project a registry belongs to: the folder that holds the ``root`` folder (``claims/``)
    above it, where pytest and the main job's ``reports/`` are; None for a registry outside one."""
    folder = next((p for p in Path(registry).resolve().parents if p.name == Path(root).name), None)
    return folder.parent if folder is not None else None


def _hint(root: Path) -> str:
    where = Path.cwd()
    if not root.exists():
        return (
            f"there is no {root}/ folder in {where}, above it, or above the manuscript: run the command in the "
            "project (the folder that holds claims/), or pass --registry PATH/TO/claims.toml"
        )
    return "pass --registry PATH/TO/claims.toml"


def registry_for_manuscript(manuscript, root="claims") -> Path:
    """The registry a manuscript belongs to: the one whose ``[chapter] manuscript`` has the file's
    name; when the book has a single registry, that one (an editor's copy may have any name).

    Raises:
        BookError: no registry under ``root``, or several and none (or more than one) names the file.
    """
    from claimcheck.registry import load_registry

    root = locate(root, manuscript)
    paths = registry_paths(root) if root.exists() else []
    if not paths:
        raise BookError(f"no {REGISTRY_NAME} under {root}: {_hint(root)}")
    if len(paths) == 1:
        return paths[0]
    name = Path(manuscript).name
    named = {p: load_registry(p).chapter.get("manuscript") for p in paths}
    hits = [p for p, m in named.items() if isinstance(m, str) and Path(m).name == name]
    if len(hits) == 1:
        return hits[0]
    listing = "; ".join(f"{p}: {m or '(no [chapter] manuscript)'}" for p, m in named.items())
    if hits:
        raise BookError(
            f"{len(hits)} registries name {name} as their manuscript ({listing}): pass --registry"
        )
    raise BookError(
        f"no registry names {name} as its manuscript ([chapter] manuscript: {listing}); pass --registry "
        "PATH, or set the chapter's [chapter] manuscript to the file's name"
    )


def load_book(root="claims"):
    """Every registry under ``root``, loaded: ``[Registry, ...]`` in path order."""
    from claimcheck.registry import load_registry

    return [load_registry(p) for p in registry_paths(root)]


def book_issues(registries) -> list[str]:
    """Problems across chapters: two registries with one chapter id (every key would name two claims)."""
    seen: dict[str, str] = {}
    out = []
    for reg in registries:
        other = seen.get(reg.chapter_id)
        if other is not None:
            out.append(
                f"{reg.path}: chapter id {reg.chapter_id!r} is also the chapter of {other} ([chapter] id, or "
                "the folder's name): give each chapter its own id, so that ch15:C10 and ch16:C10 stay apart"
            )
        else:
            seen[reg.chapter_id] = reg.path
    return out


# ---
# The claim ids that test modules name, read from their source without importing them.
#
# A claim test carries ``@pytest.mark.claim("C05")``. When its module cannot be imported (a missing
# package, a syntax error, an exception at import), pytest knows nothing of its tests; this module
# still finds the ids in the text, so that the claims the module covers can be reported as errors
# instead of vanishing, and so that ``claimcheck validate`` can cross-check a registry against the
# tests beside it. Standard library only.

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

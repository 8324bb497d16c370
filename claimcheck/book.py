"""The book: every chapter's registry (``claims/<chapter>/claims.toml``), the claim ids its test
modules name (read without importing them), and what crosses chapters: ``cites`` and ``ch15:C10.stated``."""

from __future__ import annotations

import ast
import difflib
import fnmatch
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from claimcheck.display import with_unit
from claimcheck.formula import FormulaError, evaluate_claim, split_reference
from claimcheck.interval import parse_decimal
from claimcheck.keys import SEP
from claimcheck.registry import Claim, Registry, load_registry, other_chapters
from claimcheck.units import convert

REGISTRY_NAME = "claims.toml"
#: folders the commands never search for registries (besides hidden ones and virtual environments)
SKIP_DIRS = ("node_modules", "__pycache__", "site-packages", "venv", "env", "build", "dist")


class BookError(LookupError):
    """No registry, or no single registry, for what was asked; ``str()`` says what to pass instead."""


def registry_paths(root: str | os.PathLike[str] = "claims") -> list[Path]:
    """Every ``claims.toml`` at or below ``root`` (a folder, or a registry file), sorted by path."""
    root = Path(root)
    if root.exists() and not root.is_dir():  # a file, or a device or FIFO that loading refuses by name
        return [root]
    return sorted(walk_registries(root, SKIP_DIRS))


def walk_registries(folder: Path, skip: Iterable[str]) -> list[Path]:
    """Every ``claims.toml`` below ``folder`` in walk order (folders sorted), never entering a hidden
    folder, a virtual environment or a ``skip`` pattern (fnmatch)."""
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped(Path(here) / d, skip))
        if REGISTRY_NAME in files:
            found.append(Path(here) / REGISTRY_NAME)
    return found


def link_loop(folder: Path, skip: tuple[str, ...]) -> tuple[Path, Path] | None:
    """The first symbolic link below ``folder`` that leads back to a folder holding it, as ``(link, its
    target)`` (real paths: the link where it is, not through another link), else None: pytest
    follows links to folders, so it would collect that part of the book again at every level, as
    deep as the system's paths allow. Folders :func:`walk_registries` never enters are not entered;
    each real folder is read once."""
    done: set[str] = set()  # the real folders read
    # (folder, the real folders from ``folder`` down to it, the last link on the way to it)
    stack: list[tuple[Path, tuple[str, ...], Path | None]] = [
        (Path(folder), (os.path.realpath(folder),), None)
    ]
    while stack:
        here, chain, via = stack.pop()
        if chain[-1] in done:
            continue
        done.add(chain[-1])
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                if not entry.is_dir() or _skipped(path, skip):
                    continue
                link = Path(chain[-1]) / entry.name if entry.is_symlink() else via
            except OSError:
                continue
            target = os.path.realpath(path)
            if target in chain and link is not None:
                return link, Path(os.path.realpath(link))
            if target not in done:
                stack.append((path, (*chain, target), link))
    return None


def _skipped(path: Path, skip: Iterable[str]) -> bool:
    hidden = path.name.startswith(".") or any(fnmatch.fnmatch(path.name, pat) for pat in skip)
    return hidden or (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()


def locate(root: str | Path = "claims", *near: str | Path) -> Path:
    """The book's ``claims/`` folder: ``root`` when it exists or is absolute; else the first
    ``<folder>/root`` holding a registry upward from the current folder, then from each of ``near``'s
    folders (as git finds its repository); else ``root``."""
    root = Path(root)
    if root.exists() or root.is_absolute():
        return root
    for start in (Path.cwd(), *(Path(os.path.realpath(p)).parent for p in near)):
        for folder in (start, *start.parents):
            candidate = folder / root
            if candidate.is_dir() and registry_paths(candidate):
                return candidate
    return root


def project_of(registry: str | Path, root: str | Path = "claims") -> Path | None:
    """The folder holding the ``root`` folder (``claims/``) above a registry, or None for none."""
    folder = next((p for p in Path(os.path.realpath(registry)).parents if p.name == Path(root).name), None)
    return folder.parent if folder is not None else None


def registry_for_manuscript(manuscript: str | Path, root: str | Path = "claims") -> Path:
    """The registry whose ``[chapter] manuscript`` has the file's name; the book's only one when it has
    one. Raises BookError: no registry under ``root``, or several and not one names the file."""
    root = locate(root, manuscript)
    paths = registry_paths(root) if root.exists() else []
    if not paths and not root.exists():
        raise BookError(
            f"no {REGISTRY_NAME} under {root}: there is no {root}/ folder in {Path.cwd()}, above it, or above "
            "the manuscript: run the command in the project (the folder that holds claims/), or pass "
            "--registry PATH/TO/claims.toml"
        )
    if not paths:
        raise BookError(f"no {REGISTRY_NAME} under {root}: pass --registry PATH/TO/claims.toml")
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


def load_book(root: str | os.PathLike[str] = "claims") -> list[Registry]:
    """Every registry under ``root``, loaded, in path order."""
    return [load_registry(p) for p in registry_paths(root)]


def book_issues(registries: Iterable[Registry]) -> list[str]:
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


# --- The claim ids test modules name (``@pytest.mark.claim("C05")``), read from their source.

#: pytest's default ``python_files``
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")
_MARK_RE = re.compile(r"""mark\s*\.\s*claim\s*\(\s*(?:[rRuU]?)(["'])([^"'\n]+)\1""")


@dataclass(frozen=True)
class ClaimMark:
    claim_id: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def claim_marks(text: str, path: str = "<source>") -> list[ClaimMark]:
    """Every ``mark.claim("<id>")`` with a literal id in a module's source, in file order: by :mod:`ast`,
    or a regular expression where the module does not parse. Never raises."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        found = _MARK_RE.finditer(text)
        return [ClaimMark(m.group(2), path, text.count("\n", 0, m.start()) + 1) for m in found]
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args]
    args = [(c.args[0], c.lineno) for c in calls if _is_claim_mark(c.func)]
    out = [
        ClaimMark(a.value, path, n)
        for a, n in args
        if isinstance(a, ast.Constant) and isinstance(a.value, str)
    ]
    return sorted(out, key=lambda m: m.line)


def _is_claim_mark(func: ast.expr) -> bool:
    """Whether a call's ``func`` is ``X.mark.claim``, read from its nodes (``ast.unparse`` would recurse
    through a long call chain and raise)."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "claim"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
    )


def _file_marks(path: str | Path) -> list[ClaimMark]:
    try:
        return claim_marks(Path(path).read_text(encoding="utf-8", errors="replace"), str(path))
    except OSError:
        return []


def claim_ids_in_file(path: str | Path) -> list[str]:
    """The distinct claim ids a test module names, in file order (empty when it cannot be read)."""
    return list(dict.fromkeys(m.claim_id for m in _file_marks(path)))


def scan(folder: str | Path) -> dict[str, list[ClaimMark]]:
    """claim id -> its marks in the test modules under ``folder`` (unreadable ones are skipped)."""
    out: dict[str, list[ClaimMark]] = {}
    files = {p for pattern in TEST_FILE_PATTERNS for p in Path(folder).rglob(pattern) if p.is_file()}
    for path in sorted(files):
        for mark in _file_marks(path):
            out.setdefault(mark.claim_id, []).append(mark)
    return out


# --- Citations (``cites = "ch15:C10"``): the quote's figure must be the source's at the quote's precision.

#: what a citation of a chapter that is not in this book shows (never an error)
NOT_IN_BOOK = "source not in this book"
#: a citation in words, by status (any other: the quote and the source's figure)
_CITATION_WORDS = {
    "not-in-book": "{key} quotes {source}: " + NOT_IN_BOOK,
    "unknown": "{key} cites {source}, but chapter {chapter} declares no claim {cid}",
    "drift": "{key} says {quote}, quoting {source}, which now says {figure}: drifted from {source}",
    "unit": "{key} says {quote}, quoting {source} ({figure}): units that do not compare",
    "invalid": "{key} cites {source}, which its chapter's registry declares but cannot load (see its problems)",
    "circular": "{key} cites {source}, whose citations lead back to {key}: a quote needs a source that states its own figure",
}


@dataclass(frozen=True)
class Citation:
    """One claim quoting another. ``status``: ``ok``, ``drift`` (the quote no longer matches), ``not-in-book``,
    ``unknown`` (no such claim in its chapter), ``invalid`` (its registry cannot load it), ``circular``,
    ``unit`` (units that do not compare) or ``in-words`` (one prints no number)."""

    key: str  # the quoting claim's key (ch90:C05)
    source: str  # what it cites: ch15:C10, or a chapter alone (ch19)
    status: str
    quote: str = ""  # the two printed figures with their units
    figure: str = ""
    path: str = ""  # the quoting claim's registry
    quote_printed: str = ""  # the quoting claim's stated number, as the registry prints it
    figure_printed: str = ""  # the source's stated number

    @property
    def failed(self) -> bool:
        """A drifted quote, or a registry problem."""
        return self.status == "drift" or self.registry_problem

    @property
    def registry_problem(self) -> bool:
        """Whether the registry is wrong, not the quote."""
        return self.status in ("unknown", "invalid", "circular", "unit")

    @property
    def words(self) -> str:
        chapter, _, cid = self.source.partition(SEP)
        words = _CITATION_WORDS.get(self.status, "{key} says {quote}, quoting {source} ({shown})")
        fields = {**asdict(self), "quote": self.quote or "no number"}
        return words.format(**fields, chapter=chapter, cid=cid, shown=self.figure or "no number")


def quotes_figure(quote: str, quote_unit: str, source: str, source_unit: str) -> bool:
    """Whether ``source``, in the quote's unit, is within half a unit of ``quote``'s last significant
    digit ("500" quotes 497.76; "700" does not). Raises claimcheck.units.UnitError (units of different
    dimensions) or ValueError (a figure that is not a plain decimal)."""
    q, s = parse_decimal(quote), float(parse_decimal(source))
    if quote_unit.strip() != source_unit.strip():
        s = convert(s, source_unit, quote_unit)
    exponent = q.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= 0 and q:  # "500": its trailing zeros may be rounding
        exponent = q.normalize().as_tuple().exponent
    half = 10.0 ** int(exponent) / 2 if isinstance(exponent, int) else 0.0
    return abs(s - float(q)) <= half * (1 + 1e-9)


def cite(claim: Claim, chapters: Mapping[str, Registry]) -> Citation:
    """Check one claim's ``cites`` against ``chapters`` (chapter id -> registry). Raises ValueError: the
    claim quotes nothing (no ``cites``)."""
    if not claim.cites:
        raise ValueError(f"{claim.path}: claim {claim.id} quotes nothing (no 'cites')")
    chapter, _, cid = claim.cites.partition(SEP)
    shown = with_unit(claim.stated, claim.unit)  # 99.16%, 60×: as every value is written
    made = dict(key=claim.key, source=claim.cites, quote=shown, path=claim.path, quote_printed=claim.stated)
    reg = chapters.get(chapter)
    if reg is None:
        return Citation(status="not-in-book", **made)
    source = reg.claims.get(cid) if cid else None
    printed, unit = (source.stated, source.unit) if source is not None else ("", "")
    owner, _, name = cid.rpartition(".")  # ch15:C29.much: a value its claim prints (values carry no unit)
    if source is None and owner in reg.claims and name in reg.claims[owner].values:
        source = reg.claims[owner]
        printed, unit = str(source.values[name]), claim.unit
    if source is None:
        return Citation(status="invalid" if cid in reg.invalid else "unknown", **made)
    if _quotes_back(claim, chapters):
        return Citation(status="circular", **made)
    figure = with_unit(printed, unit)
    made.update(figure=figure, figure_printed=printed)
    if not claim.stated or not printed:
        return Citation(status="in-words", **made)
    try:
        same = quotes_figure(claim.stated, claim.unit, printed, unit)
    except ValueError:  # UnitError is a ValueError
        return Citation(status="unit", **made)
    return Citation(status="ok" if same else "drift", **made)


def _quotes_back(claim: Claim, chapters: Mapping[str, Registry]) -> bool:
    seen: set[str] = set()
    c: Claim | None = claim
    while c is not None and c.cites and c.key not in seen:
        seen.add(c.key)
        chapter, _, cid = c.cites.partition(SEP)
        reg = chapters.get(chapter)
        c = reg.claims.get(cid) if reg is not None and cid else None
        if c is not None and c.key == claim.key:
            return True
    return False


def book_of(registries: list[Registry], root: str | Path = "claims") -> dict[str, Registry]:
    """chapter id -> registry: ``registries`` (they win) and every other chapter of their book (the
    ``claims/`` folder above each, else ``root``)."""
    out = {reg.chapter_id: reg for reg in registries}
    given = {os.path.realpath(reg.path) for reg in registries}
    folders = {p / Path(root).name for p in (project_of(reg.path, root) for reg in registries) if p}
    folders = folders or {locate(root)}
    for folder in sorted(folders):
        for path in registry_paths(folder) if folder.is_dir() else []:
            if os.path.realpath(path) not in given:
                reg = load_registry(path)
                out.setdefault(reg.chapter_id, reg)
    return out


def citation_issues(registries: Collection[Registry], book: dict[str, Registry] | None = None) -> list[str]:
    """Problems of citations and of formulas naming another chapter's values (not a drifted quote,
    nor a chapter not in the book), one line each naming file, claim and field; ``book``: chapter id ->
    registry (default: the registries)."""
    chapters = book if book is not None else {reg.chapter_id: reg for reg in registries}
    out = []
    quoting = [claim for reg in registries for claim in reg.claims.values() if claim.cites]
    for c in (cite(claim, chapters) for claim in quoting):
        chapter, _, cid = c.source.partition(SEP)
        where = f"{c.path}: claim {c.key}: field 'cites': "
        if c.status == "unknown" and not cid:
            out.append(
                f"{where}{c.source!r} is a chapter of this book: name the claim it quotes ({c.source}:ID)"
            )
        elif c.status == "unknown":
            near = difflib.get_close_matches(cid, list(chapters[chapter].claims), n=1)
            out.append(where + c.words + (f" (did you mean {chapter}:{near[0]}?)" if near else ""))
        elif c.status in ("unit", "invalid", "circular"):
            out.append(where + c.words)
    for reg in registries:
        for claim in reg.claims.values():
            names = other_chapters(claim) if claim.formula else []
            unknown = [why for why in (_unknown_value(n, chapters) for n in names) if why]
            out += [f"{reg.path}: claim {claim.key}: field 'formula': {why}" for why in unknown]
            if names and not unknown:
                try:
                    evaluate_claim(claim, reg, chapters)
                except FormulaError as exc:
                    out.append(f"{reg.path}: claim {claim.key}: field 'formula': cannot be evaluated: {exc}")
    return out


def _unknown_value(name: str, chapters: dict) -> str | None:
    chapter, cid, value = split_reference(name)
    reg = chapters.get(chapter)
    if reg is None:
        return f"{name!r} names chapter {chapter!r}, which is not in this book (chapters: {', '.join(sorted(chapters))})"
    claim = reg.claims.get(cid)
    if claim is None:
        return f"{name!r} names claim {cid!r} of chapter {chapter}, which it does not declare"
    if value != "stated" and value not in claim.values:
        return f"{name!r}: claim {chapter}:{cid} has no value {value!r}"
    return None

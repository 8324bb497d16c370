"""Claims projects for the tests: write one with pytester, run it, read what it reported.

Most end-to-end tests build the same small project (a registry, a few claim test modules, maybe a
conftest or an ini), run pytest on its claims folder and read reports/claims.json back by id.
``claims_project`` writes it, ``Project.run`` runs it and ``read_report`` reads it, so that a test
says only what is particular to it.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path


def claim_toml(
    id: str,
    *,
    title: str = "a claim",
    stated: str = "36",
    unit: str = "KiB/token",
    locator: str | None = None,
    tolerance: str = "printed",
    needs: str = '["arch"]',
    extra: str = "",
) -> str:
    """One ``[[claims]]`` table of a registry, in the layout the tests have always written (a blank
    line, then one field a line); ``needs`` and ``extra`` are TOML as written, the rest strings."""
    return (
        f'\n[[claims]]\nid = "{id}"\ntitle = "{title}"\nstated = "{stated}"\nunit = "{unit}"\n'
        f'locator = "{locator if locator is not None else f"loc {id}"}"\ntolerance = "{tolerance}"\n'
        f"needs = {needs}\n{extra}\n"
    )


def lean(kit: bool = True) -> list[str]:
    """pytest arguments for a run in a fresh interpreter that loads no plugin it does not use:
    never Hypothesis's (it imports all of Hypothesis at the end of a run, ~1.5 s of CPU; no inner
    project uses it), and, with ``kit=False``, not the LLM kit's (no torch import, ~2 s), for a
    project whose claims measure nothing with torch and whose test reads nothing the kit adds (the
    runner's torch fields, threads, weights, size profile)."""
    return ["-p", "no:hypothesispytest", *([] if kit else ["-p", "no:claimcheck-llm"])]


class Project:
    """A claims project written by :func:`claims_project`: the pytester it lives in (whose methods
    and attributes it passes through: ``path``, ``runpytest``, ``makeini`` ...) and its claims folder."""

    def __init__(self, pytester, folder: str = "claims"):
        self.pytester = pytester
        self.folder = folder

    def __getattr__(self, name):
        if name == "pytester":  # not set yet (a copy being built): never recurse
            raise AttributeError(name)
        return getattr(self.pytester, name)

    @property
    def claims(self) -> Path:
        """The claims folder: the registry and the test modules."""
        return self.pytester.path / self.folder

    @property
    def registry(self) -> Path:
        """The claims folder's registry, claims.toml."""
        return self.claims / "claims.toml"

    def write(self, name: str, text: str) -> Path:
        """Write (or replace) a file of the claims folder, dedented like the modules it started with."""
        path = self.claims / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def run(self, *args: str, subprocess: bool = False, kit: bool = True):
        """``pytest <claims folder> -p no:cacheprovider *args``, in process or in a fresh interpreter
        (for xdist, or a run that must not share this process's imports). It hides ``Pytester.run``
        (a command in a subprocess): ``project.pytester.run`` is still there. A fresh interpreter
        loads only the plugins it uses (:func:`lean`)."""
        if not subprocess:
            return self.pytester.runpytest(self.folder, "-p", "no:cacheprovider", *args)
        return self.pytester.runpytest_subprocess(self.folder, "-p", "no:cacheprovider", *lean(kit), *args)

    def report(self, name: str = "claims.json") -> Report:
        """What the last run wrote: reports/<name>."""
        return read_report(self, name)


def claims_project(
    pytester,
    registry: str | Path,
    tests: Mapping[str, str | Path] | Iterable[Path] | str = (),
    *,
    chapter: str | Mapping[str, str] | None = None,
    conftest: str | None = None,
    ini: str | None = None,
    folder: str = "claims",
    monkeypatch=None,
) -> Project:
    """Write a claims project into ``pytester``'s folder and return it.

    ``registry`` is the TOML text of ``<folder>/claims.toml`` (or a file to copy), headed by a
    ``[chapter]`` table when ``chapter`` is given (an id, or its fields), or an empty one when the
    text has none (a pytest run takes a ``claims.toml`` without it for another project's file). ``tests`` maps a module's
    name to its source (dedented) or to a file to copy; a plain string is ``test_claims.py``; a
    list of paths is copied under their own names. ``conftest`` and ``ini`` go to the project's
    root (``conftest.py``, ``tox.ini``). With ``monkeypatch``, every ``CLAIMCHECK_*`` variable of
    this environment is removed, so that the outer run's settings never leak into the inner one.
    """
    if monkeypatch is not None:
        for var in [v for v in os.environ if v.startswith("CLAIMCHECK_")]:
            monkeypatch.delenv(var)
    claims = pytester.path / folder
    claims.mkdir(parents=True, exist_ok=True)
    if isinstance(registry, Path):
        shutil.copyfile(registry, claims / "claims.toml")
    else:
        if chapter is not None:
            fields = {"id": chapter} if isinstance(chapter, str) else chapter
            registry = "[chapter]\n" + "".join(f'{k} = "{v}"\n' for k, v in fields.items()) + registry
        elif (
            "[chapter]" not in registry
        ):  # a pytest run takes a claims.toml without one for another project's
            registry = "[chapter]\n" + registry
        (claims / "claims.toml").write_text(registry, encoding="utf-8")
    if isinstance(tests, str):
        tests = {"test_claims.py": tests}
    elif not isinstance(tests, Mapping):
        tests = {Path(p).name: Path(p) for p in tests}
    for name, body in tests.items():
        if isinstance(body, Path):
            shutil.copyfile(body, claims / name)
        else:
            (claims / name).write_text(textwrap.dedent(body), encoding="utf-8")
    if conftest is not None:
        pytester.makeconftest(conftest)
    if ini is not None:
        pytester.makeini(ini)
    return Project(pytester, folder)


class Claims(dict):
    """A report's rows by claim id (iteration, ``set(...)``, ``.items()``); a chapter-qualified key
    (``ch15:C01``) finds its row too, and an id that two chapters share is refused, not guessed."""

    def __init__(self, rows: list[dict]):
        ids = [r["id"] for r in rows]
        super().__init__((r["id"], r) for r in rows if ids.count(r["id"]) == 1)
        self.by_key = {r.get("key", r["id"]): r for r in rows}
        self._shared = {i for i in ids if ids.count(i) > 1}

    def __missing__(self, name):
        if name in self._shared:
            raise KeyError(f"{name} is the id of claims of several chapters: ask by key (ch:{name})")
        return self.by_key[name]


class Report:
    """One claims.json as the tests read it: ``doc`` (the whole document, also by ``report[...]``),
    ``claims`` (rows by id or key), ``counts``, ``runner``, and the pages written beside it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.doc = json.loads(self.path.read_text(encoding="utf-8"))
        self.claims = Claims(self.doc["claims"])

    def __getitem__(self, field):
        return self.doc[field]

    def __contains__(self, field):
        return field in self.doc

    @property
    def counts(self) -> dict:
        return self.doc["counts"]

    @property
    def runner(self) -> dict:
        return self.doc["runner"]

    def file(self, name: str) -> Path:
        """A file written beside the report (``plots/claims_C02-1.png``, ``tests.html``)."""
        return self.path.parent / name

    def page(self, name: str = "claims.html") -> str:
        """The text of a page written beside the report."""
        return self.file(name).read_text(encoding="utf-8")

    def row_html(self, claim: str, page: str = "claims.html") -> str:
        """The claims page's row of one claim (by id or key): from its ``id="claim-..."`` to its
        ``</tbody>``."""
        text = self.page(page)
        key = self.claims[claim].get("key", claim)
        row = text[text.index(f'id="claim-{key.replace(":", "-")}"') :]
        return row[: row.index("</tbody>")]


def read_report(where, name: str = "claims.json") -> Report:
    """Read a run's report: ``where`` is a pytester or :class:`Project` (its reports/<name>), a
    project folder (the same), or the report file itself."""
    base = Path(where.path) if hasattr(where, "path") and not isinstance(where, Path) else Path(where)
    return Report(base if base.is_file() else base / "reports" / name)


#: chapter 15's own text: not in the repository (the project quotes only short locators from it);
#: ``CH15_TEXT`` names your copy, else it is looked for beside the checkout (``../shared/seeds/``)
CHAPTER_TEXT = Path(
    os.environ.get("CH15_TEXT")
    or Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_28c5e904fedc16c4.txt"
)
CHAPTER_MISSING = (
    f"chapter 15's text is not at {CHAPTER_TEXT}: it is not in the repository; "
    "set CH15_TEXT=PATH to your copy of the chapter to run this test"
)

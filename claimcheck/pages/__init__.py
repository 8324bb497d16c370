"""The pages an editor reads: the claims page, the annotated manuscript, the runner matrix (Jinja2
HTML) and the Markdown summary for CI (:mod:`claimcheck.pages.summary`). No torch, no pytest."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claimcheck import fileio
from claimcheck import outcomes as oc
from claimcheck.book import book_of
from claimcheck.fingerprint import fingerprint_lines
from claimcheck.manuscript import ManuscriptCheck, ManuscriptError, check_manuscript
from claimcheck.pages import claims_view, manuscript_view, words
from claimcheck.pages.claims_view import chapter_language, within
from claimcheck.pages.manuscript_view import manuscript_view_of
from claimcheck.pages.render import render
from claimcheck.pages.summary import is_matrix
from claimcheck.registry import Waiver, load_registry
from claimcheck.results import ClaimEntry, ClaimsDoc, parse_document, read_json, safe_link
from claimcheck.runs import Matrix, format_measured


def claims_page(
    doc: ClaimsDoc,
    base_dir: str | Path,
    manuscripts: Sequence[manuscript_view.ManuscriptView] = (),
    test_log: str | None = None,
) -> str:
    """The claims page (HTML). ``base_dir``: the JSON's folder (plots are read only inside it);
    ``manuscripts``: the ManuscriptViews rows link to; ``test_log``: the pytest-html log's href."""
    return render("claims.html.j2", v=claims_view.ClaimsView(doc, base_dir, manuscripts, test_log))


def manuscript_page(
    view: manuscript_view.ManuscriptView,
    claims_href: str | None = "claims.html",
    has_results: bool = True,
    lang: str = "zh",
) -> str:
    """The annotated manuscript (HTML) of a :class:`~claimcheck.pages.manuscript_view.ManuscriptView`."""
    return render(
        "manuscript.html.j2",
        v=view,
        states=manuscript_view.STATE_LABEL,
        claims_href=claims_href,
        has_results=has_results,
        lang=lang,
    )


def relative_href(target: str | Path, page: str | Path) -> str:
    """``target`` as a link from the page ``page`` (relative, else a file URI)."""
    target, page = Path(target).resolve(), Path(page).resolve()
    try:
        return Path(os.path.relpath(target, page.parent)).as_posix()
    except ValueError:  # another drive (Windows)
        return target.as_uri()


def manuscript_checks(
    doc: ClaimsDoc, override: str | None = None, confine: str | Path | None = None
) -> tuple[list[tuple[ManuscriptCheck, list[Waiver]]], list[str]]:
    """Re-run the manuscript checks a ``claims.json`` names: ``([(ManuscriptCheck, waivers)], [problems])``.
    ``override``: the manuscript to read instead; ``confine``: a folder outside which the report's
    paths are not read (a results file is untrusted input)."""
    out: list[tuple[ManuscriptCheck, list[Waiver]]] = []
    problems: list[str] = []
    manuscripts = doc.manuscripts or []
    if override and len(manuscripts) > 1:
        problems.append(
            f"--manuscript {override}: the report names {len(manuscripts)} manuscripts (one per "
            "chapter); only the first is replaced"
        )
    for m in manuscripts:
        if not m.get("registry") or not (override or m.get("path")):
            problems.append(f"manuscripts entry without a path or a registry: {str(m)[:120]}")
            continue
        registry, path = str(m["registry"]), str(override or m["path"])
        if confine is not None and not override:  # relative paths from the results file's folder
            registry, path = str(Path(confine) / registry), str(Path(confine) / path)
            pairs = (("registry", registry), ("path", path))
            outside = [str(m[k]) for k, p in pairs if not within(p, confine)]
            if outside and not _the_runs_own(m, registry, path, confine):
                problems.append(
                    f"{doc.path}: not read: {' and '.join(outside)} lie(s) outside the results file's folder "
                    f"{confine} (a results file is untrusted input); pass --manuscript PATH to check a "
                    "manuscript elsewhere"
                )
                continue
        reg = load_registry(registry)
        if not reg.claims and reg.issues:
            problems.append(f"registry {registry}: {reg.issues[0]}")
            continue
        try:
            out.append((check_manuscript(path, reg, book_of([reg])), reg.waivers))
        except ManuscriptError as exc:
            problems.append(str(exc))
        if override:
            break
    return out, problems


def _the_runs_own(m: dict[str, Any], registry: str, path: str, confine: str | Path) -> bool:
    """Whether a manuscripts entry outside the results file's folder is the run's own, to be read
    again: its registry lies in the project above that folder (``reports/`` -> the project holding
    ``claims/``) or in the current folder, and the manuscript is the very file the run checked (its
    sha256 is the one recorded: a results file cannot make the pages read a file its writer did not
    already know byte for byte)."""
    projects = (Path(confine).resolve().parent, Path.cwd())
    if not any(within(registry, project) for project in projects):
        return False
    try:
        raw = fileio.read_input_file(path)
    except (OSError, ValueError):
        return False
    return isinstance(m.get("sha256"), str) and hashlib.sha256(raw).hexdigest() == m["sha256"]


def publish(
    doc: ClaimsDoc,
    json_path: str | Path,
    checks: Sequence[tuple[ManuscriptCheck, Sequence[Waiver]]] = (),
    claims_html: str | Path | None = None,
) -> list[Path]:
    """Write the pages of a run beside its ``claims.json``, atomically: ``claims_html`` (default
    ``claims.html``) and per ``(ManuscriptCheck, waivers)`` of ``checks`` a ``manuscript.html``
    (``manuscript-<chapter>.html`` for several chapters). Returns the paths written; raises OSError."""
    folder = Path(json_path).parent
    claims_html = Path(claims_html) if claims_html else folder / "claims.html"
    views, written = [], []
    several = len({getattr(c, "chapter", "") for c, _ in checks}) > 1
    for n, (check, waivers) in enumerate(checks):
        chapter = getattr(check, "chapter", "")
        suffix = f"-{chapter}" if several and chapter else f"-{n + 1}" if n else ""
        page = folder / f"manuscript{suffix}.html"
        back = relative_href(claims_html, page)
        view = manuscript_view_of(check, doc, waivers, back, relative_href(page, claims_html))
        # the registry's [chapter] language; a registry without one: a guess from the text
        lang = chapter_language(doc, check.registry_path) or (
            "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in check.manuscript.text[:2000]) else "en"
        )
        fileio.write_atomic(page, manuscript_page(view, back, bool(doc.claims), lang))
        views.append(view)
        written.append(page)
    log = safe_link(doc.test_log)  # only an http(s) URL or a relative path becomes a link
    if log and not log.startswith(("http://", "https://")):
        log = relative_href(folder / log, claims_html)
    fileio.write_atomic(claims_html, claims_page(doc, folder, views, log))
    return [claims_html, *written]


def load_document(path: str | Path) -> tuple[ClaimsDoc | dict[str, Any], list[str]]:
    """``(document, problems)`` of a ``claims.json`` (a :class:`~claimcheck.results.ClaimsDoc`; a bad field
    loses only itself) or a matrix JSON (its object). Raises claimcheck.results.ResultFileError: the file
    is missing, unreadable, not JSON, or neither a claims report nor a matrix."""
    p = Path(path)
    raw = read_json(p)
    if is_matrix(raw) and raw.get("runners"):
        errors = raw.get("errors")
        return raw, [str(e) for e in errors] if isinstance(errors, list) else []
    doc = parse_document(raw, p)
    return doc, list(doc.issues)


def matrix_page(matrix: Matrix, title: str = "claimcheck: claims x runners") -> str:
    """The claim x runner page of a :class:`claimcheck.runs.Matrix` (self-contained, no script)."""
    rows = []  # (row, the chapter's value, the bar, [(cell, its value, its reason's first sentence, the rest)])
    for r in matrix.rows:
        entry = ClaimEntry(r.id, r.id, stated=r.stated, unit=r.unit, tolerance=r.tolerance)
        cells = []
        for c in r.cells:
            shown = words.measured_value(ClaimEntry(r.id, r.id, measured=c.measured, unit=r.unit))
            cells.append((c, shown or format_measured(c), *words.first_sentence(c.reason)))
        rows.append((r, words.chapter_value(entry), words.bar_words(entry) if r.tolerance else "", cells))
    return render(
        "matrix.html.j2",
        m=matrix,
        rows=rows,
        title=title,
        differing=dict.fromkeys(r.id for r in matrix.rows if len({c.outcome for c in r.cells}) > 1),
        outcomes=[*oc.OUTCOMES],
        briefs=[words.runner_brief(run.runner, run.settings) for run in matrix.runs],
        fingerprints=[fingerprint_lines(run.runner, run.settings) for run in matrix.runs],
        counts=[list(oc.count(c.outcome for c in run.claims).items()) for run in matrix.runs],
    )

"""The pages an editor reads: the claims page, the annotated manuscript, the runner matrix, and
the Markdown summary for CI. Core: no torch, no pytest; Jinja2 for the HTML.

* :func:`claims_page` — ``reports/claims.html`` from a ``claims.json`` document alone;
* :func:`manuscript_page` — ``reports/manuscript.html`` from the editor's manuscript, checked
  against the registry, with this run's verdicts;
* :func:`matrix_page` — ``claimcheck merge``'s page;
* :mod:`claimcheck.pages.summary` — ``claimcheck summary`` (Markdown, GitHub annotations).
"""

from __future__ import annotations

from pathlib import Path

from claimcheck.pages import claims_view, manuscript_view
from claimcheck.pages.render import render


def claims_page(doc: dict, base_dir, manuscripts=(), test_log: str | None = None) -> str:
    """The claims page (HTML) of a ``claims.json`` document.

    Args:
        doc: the parsed ``claims.json``.
        base_dir: the folder of the JSON file (its plot files are relative to it).
        manuscripts: :class:`~claimcheck.pages.manuscript_view.ManuscriptView` objects to link rows to.
        test_log: href of the pytest-html test log, relative to the page (default: the document's).
    """
    return render("claims.html.j2", v=claims_view.build(doc, base_dir, manuscripts, test_log))


def manuscript_view_of(check, doc: dict | None, waivers=(), claims_href: str = "claims.html",
                       href: str = "manuscript.html") -> manuscript_view.ManuscriptView:
    """The :class:`~claimcheck.pages.manuscript_view.ManuscriptView` of a manuscript check and a run's claims."""
    entries = {e["id"]: e for e in (doc or {}).get("claims") or [] if isinstance(e, dict) and isinstance(e.get("id"), str)}
    return manuscript_view.build(check, entries, claims_href, waivers, href)


def manuscript_page(view: manuscript_view.ManuscriptView, claims_href: str | None = "claims.html",
                    has_results: bool = True, lang: str = "zh") -> str:
    """The annotated manuscript (HTML) of a :class:`~claimcheck.pages.manuscript_view.ManuscriptView`."""
    return render("manuscript.html.j2", v=view, states=manuscript_view.STATES, claims_href=claims_href,
                  has_results=has_results, lang=lang)


def relative_href(target, page) -> str:
    """``target`` as a link from the page ``page`` (relative when both are in the same tree, else a file URI)."""
    import os

    target, page = Path(target).resolve(), Path(page).resolve()
    try:
        return Path(os.path.relpath(target, page.parent)).as_posix()
    except ValueError:  # another drive (Windows)
        return target.as_uri()

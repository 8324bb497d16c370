"""Rendering the pages: Jinja2 templates (``claimcheck/pages/templates``) with autoescape, one
environment for all. Every page is self-contained (inline CSS and script, plots as ``data:`` URIs)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck import outcomes as oc
from claimcheck.pages.words import anchor

if TYPE_CHECKING:  # types only: Jinja2 is imported where a page is rendered
    import jinja2

TEMPLATES = Path(__file__).parent / "templates"


@functools.lru_cache(maxsize=1)
def jinja_env() -> jinja2.Environment:
    """The pages' Jinja2 environment (autoescape, strict undefined). Raises ImportError without Jinja2
    (imported here: start-up time)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters.update(outcome_label=oc.label, anchor=anchor)
    env.globals["PASSED"] = oc.PASSED
    return env


def render(template: str, **context: object) -> str:
    """Render one template of ``claimcheck/pages/templates`` with ``context``."""
    return jinja_env().get_template(template).render(**context)

"""Hooks a measurement kit (e.g. :mod:`claimcheck.llm.pytest_kit`) implements for the core glue.
A ``firstresult`` hook's first non-None answer wins."""

# a hookspec is a signature with a docstring, never called: its body returns nothing
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from claimcheck.registry import Registry
    from claimcheck.settings import OptionTable


@pytest.hookspec
def pytest_claimcheck_configure(config: pytest.Config) -> None:
    """A claims run starts (once, after the settings are resolved, before they are used): a kit
    registers its pytest side here, so that it stays out of every other run."""


@pytest.hookspec
def pytest_claimcheck_runner_fingerprint(config: pytest.Config, fingerprint: dict[str, Any]) -> None:
    """Add the kit's fields (its libraries, accelerator, weights...) to the runner fingerprint, in place."""


@pytest.hookspec(firstresult=True)
def pytest_claimcheck_report_dir(config: pytest.Config, report_dir: Path) -> Path | None:
    """Return another folder (a ``pathlib.Path``) for this run's reports, or None to keep ``report_dir``."""


@pytest.hookspec(firstresult=True)
def pytest_claimcheck_size_profile(
    config: pytest.Config, registry: Registry, items: Sequence[pytest.Item] | None
) -> dict[str, Any] | None:
    """Return the size profile one chapter's claims ran with (JSON-ready: ``name``, ``description``,
    the sizes), or None when the kit's sizes played no part. ``items``: the chapter's collected
    tests, None where unknown (the xdist controller)."""


@pytest.hookspec
def pytest_claimcheck_options() -> OptionTable | None:
    """Return the kit's :class:`~claimcheck.settings.OptionTable` (or None), resolved with the core's
    (``settings_of(config).NAME``). Called in every run; the kit also adds it in ``pytest_addoption``."""


@pytest.hookspec(firstresult=True)
def pytest_claimcheck_deselected_group(config: pytest.Config, item: pytest.Item) -> str | None:
    """Return the kit's group of a deselected test (e.g. a lane that runs only when asked for), or
    None when the kit did not deselect it (then ``-k``/``-m`` did)."""


@pytest.hookspec(firstresult=True)
def pytest_claimcheck_deselection_words(
    config: pytest.Config, group: str, where: str, report_dir: str
) -> tuple[str, str] | None:
    """Return ``(why, command)`` for the tests of the kit's ``group`` this run left out (``where``:
    the run's paths; ``report_dir``: its report folder, relative, or "")."""


@pytest.hookspec
def pytest_claimcheck_run_args(config: pytest.Config) -> list[str]:
    """Return the arguments that select what this run selected through the kit (``["--claims-lm", "NAME"]``)."""


@pytest.hookspec
def pytest_claimcheck_runner_keys(config: pytest.Config) -> list[str]:
    """Return the kit's runner fingerprint fields that must match for an earlier report's rows to
    stand in a partial run's, besides the core's (:func:`claimcheck.partial.incomparable`)."""


@pytest.hookspec
def pytest_claimcheck_heavy_packages(config: pytest.Config) -> list[str]:
    """Return the kit's heavy packages (import names): an interrupt during one's import is held
    until it is done, and a half-loaded one is never imported again."""


@pytest.hookspec(firstresult=True)
def pytest_claimcheck_test_needs(
    config: pytest.Config, item: pytest.Item, needs: tuple[str, ...]
) -> tuple[str, ...] | None:
    """Return what the claim test ``item`` needs, of its claim's ``needs`` (its markers), where the
    kit knows it needs less; None to keep ``needs``."""

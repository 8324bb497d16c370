"""Hooks that a measurement kit (e.g. :mod:`claimcheck.llm.pytest_kit`) implements for the core glue.

Added by :func:`claimcheck.plugin.options.pytest_addhooks`.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_claimcheck_configure(config) -> None:
    """A claims run starts: called once, in the core's ``pytest_configure``, after the settings are
    resolved and before they are used (report folder, size profile). A kit registers its pytest
    side here (``config.pluginmanager.import_plugin``), so that it stays out of every other run.
    """


@hookspec
def pytest_claimcheck_runner_fingerprint(config, fingerprint: dict) -> None:
    """Add the kit's fields to the runner fingerprint (``claims.json`` ``runner``), in place.

    The core fills cpu, cores, ram_bytes, os, machine, python and runner_profile
    (:func:`claimcheck.fingerprint.runner_fingerprint`); a kit adds its libraries, its accelerator,
    the CPU's instruction-set level, where its model weights come from, and so on.
    """


@hookspec(firstresult=True)
def pytest_claimcheck_report_dir(config, report_dir):
    """Return another folder (a ``pathlib.Path``) for this run's reports, e.g. a lane's own, or None
    to keep ``report_dir``. The first non-None answer wins."""


@hookspec(firstresult=True)
def pytest_claimcheck_size_profile(config, registry, items) -> dict | None:
    """Return the size profile that one chapter's claims ran with, as a JSON-ready dict (``name``,
    ``description`` and the sizes) for ``claims.json``, or None when the kit's sizes played no part
    in them. ``registry``: the chapter's :class:`~claimcheck.registry.Registry`; ``items``: its
    collected test items, or None where they are not known (the pytest-xdist controller). The first
    non-None answer wins."""

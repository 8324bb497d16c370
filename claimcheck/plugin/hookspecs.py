"""Hooks a measurement kit (e.g. :mod:`claimcheck.llm.pytest_kit`) implements for the core glue."""

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
    """Add the kit's fields (its libraries, accelerator, CPU level, weights...) to the runner
    fingerprint (``claims.json`` ``runner``; :func:`claimcheck.fingerprint.runner_fingerprint`), in place."""


@hookspec(firstresult=True)
def pytest_claimcheck_report_dir(config, report_dir):
    """Return another folder (a ``pathlib.Path``) for this run's reports, e.g. a lane's own, or None
    to keep ``report_dir``. The first non-None answer wins."""


@hookspec(firstresult=True)
def pytest_claimcheck_size_profile(config, registry, items) -> dict | None:
    """Return the size profile one chapter's claims ran with (a JSON-ready dict: ``name``,
    ``description``, the sizes), or None when the kit's sizes played no part. ``items``: the
    chapter's collected tests, None where unknown (the xdist controller). The first non-None wins."""


@hookspec
def pytest_claimcheck_options():
    """Return the kit's :class:`~claimcheck.settings.OptionTable` (or None): its options join the
    core's in :func:`claimcheck.settings.resolve`, read as ``settings_of(config).NAME``. Called in
    every run (a kit's ``--claims-*`` flag opts in too); the kit declares the same table in its own
    ``pytest_addoption`` (:func:`claimcheck.settings.add_options`).
    """


@hookspec(firstresult=True)
def pytest_claimcheck_deselected_group(config, item) -> str | None:
    """Return the name of the kit's group a deselected test belongs to (e.g. a lane of its own that
    runs only when asked for), or None when the kit did not deselect it (then ``-k``/``-m`` did).
    The first non-None answer wins."""


@hookspec(firstresult=True)
def pytest_claimcheck_deselection_words(config, group: str, where: str, report_dir: str):
    """Return ``(why, command)`` for the tests of the kit's ``group`` that this run left out: why,
    in words, and the command that runs them (``where``: the run's paths; ``report_dir``: its report
    folder, relative, or ""). The first non-None answer wins."""


@hookspec
def pytest_claimcheck_run_args(config):
    """Return the command-line arguments that select what this run selected through the kit
    (e.g. ``["--claims-lm", "NAME"]``), for the command that reruns tests this run left out."""


@hookspec
def pytest_claimcheck_runner_keys(config):
    """Return the kit's fields of the runner fingerprint that must match for an earlier report's
    rows to stand in a partial run's (e.g. its libraries' versions), besides the core's (cpu,
    cores, machine, cpu_capability; :func:`claimcheck.partial.incomparable`)."""


@hookspec
def pytest_claimcheck_heavy_packages(config):
    """Return the kit's heavy packages (import names): an interrupt during one's import is held
    until the import is done, and a half-loaded one is never imported again (no kit fingerprint)."""


@hookspec(firstresult=True)
def pytest_claimcheck_test_needs(config, item, needs: tuple):
    """Return what the claim test ``item`` needs, of its claim's registry ``needs`` (the markers it
    gets: ``-m pretrained``...), where the kit knows it needs less; None to keep ``needs``. The
    first non-None answer wins."""

"""pytest-html's hooks, registered only when pytest-html is active (``-p no:html`` must not break a
run): its test log names each test's claim, linked to its row on the claims page."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from claimcheck import fileio
from claimcheck.fingerprint import describe_long
from claimcheck.pages import relative_href
from claimcheck.pages.words import anchor, first_sentence
from claimcheck.plugin.phases import phase_on, verdict_text
from claimcheck.plugin.state import fingerprint_of, run_state


class HtmlReport:
    """Adds a Claim and a Verdict column (linked to the claim's row on the claims page) and a runner line."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def _claims_href(self) -> str | None:
        state = run_state(self.config)
        log = getattr(self.config.option, "htmlpath", None)
        if state.html_path is None or not log:
            return None
        return relative_href(state.html_path, Path(self.config.invocation_params.dir) / log)

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells.insert(1, '<th class="claim-id">Claim</th><th class="claim-verdict">Verdict</th>')

    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        phase, href = phase_on(report), self._claims_href()
        cid = phase.key if phase is not None else ""
        claim = html.escape(cid)
        if cid and href:
            claim = f'<a href="{html.escape(href)}#{html.escape(anchor(cid))}">{claim}</a>'
        if phase is not None and phase.model:
            claim += f" [{html.escape(phase.model)}]"
        # the rest is in the log below
        verdict = first_sentence(verdict_text(phase, report.outcome))[0] if phase is not None else ""
        cells.insert(
            1, f'<td class="claim-col">{claim}</td><td class="claim-col">{html.escape(verdict)}</td>'
        )

    def pytest_html_results_table_html(self, report: pytest.TestReport, data: list[str]) -> None:
        """A skip's log as text (``Skipped at claims/test_gpu.py:32: needs a CUDA GPU``), not a tuple."""
        text = skip_text(report, Path(self.config.invocation_params.dir))
        if text is not None and data:
            data[0] = html.escape(text) + "\n"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        atomic_html_writes(session.config)

    def pytest_html_report_title(self, report: Any) -> None:
        report.title = "claimcheck: test log"

    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: pytest.Session
    ) -> None:
        href = self._claims_href()
        fp = fingerprint_of(session.config)
        link = f'<a href="{html.escape(href)}">the claims page</a>' if href else "the claims page"
        prefix.append(
            f"<p>The test log of a claims run: tracebacks and durations. Which claims hold, by how much "
            f"and why the rest were not checked: {link}.<br><b>Runner</b>: {html.escape(describe_long(fp))}</p>"
        )


def skip_text(report: pytest.TestReport, folder: Path | None = None) -> str | None:
    """A skipped report's reason as one line, with where (relative to ``folder``, as pytest's short
    summary writes it), or None when the report is no skip kept as ``(path, line, message)``."""
    longrepr = getattr(report, "longrepr", None)
    if not (getattr(report, "skipped", False) and isinstance(longrepr, tuple) and len(longrepr) == 3):
        return None
    path, line, message = longrepr
    message = str(message).removeprefix("Skipped: ")
    if folder is not None and Path(path).is_absolute() and Path(path).is_relative_to(folder):
        path = Path(path).relative_to(folder).as_posix()
    where = f"{path}:{line}" if isinstance(line, int) else str(path)  # 1-based, as the terminal's summary
    return f"Skipped at {where}: {message}"


def atomic_html_writes(config: pytest.Config) -> None:
    """Make pytest-html write its report atomically (:func:`claimcheck.fileio.write_atomic`) by
    replacing its report object's ``_write_report``, where this pytest-html has one."""
    try:
        from pytest_html.basereport import BaseReport
    except ImportError:
        return
    for _name, plugin in config.pluginmanager.list_name_plugin():  # (get_plugins() hashes them)
        writes = callable(getattr(plugin, "_write_report", None)) and hasattr(plugin, "_report_path")
        if isinstance(plugin, BaseReport) and writes:
            plugin._write_report = lambda rendered, _p=plugin: fileio.write_atomic(_p._report_path, rendered)

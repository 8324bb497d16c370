"""The two private APIs of pytest and pytest-html that claimcheck leans on, checked so that an
upgrade that removes or changes them fails here, loudly and by name, instead of silently
degrading a claims run.

- ``pytest.skip.Exception(..., _use_item_location=True)`` (:func:`claimcheck.plugin.state.skip_here`,
  :mod:`claimcheck.recorder`): a skip raised in a hook or helper is reported at the test's own
  location, not at the line of claimcheck that raised it. pytest has no public form of it (its
  own ``skipif`` marker uses the same flag).
- pytest-html's ``BaseReport._write_report`` and ``_report_path``
  (:func:`claimcheck.plugin.html.atomic_html_writes`): the one method through which it writes the
  test log, replaced so that a killed run never leaves half a page. Without it the log is written
  non-atomically, as pytest-html itself does.
"""

import inspect

import pytest


def test_pytest_skip_exception_takes_use_item_location():
    params = inspect.signature(pytest.skip.Exception.__init__).parameters
    assert "_use_item_location" in params, (
        "pytest.skip.Exception no longer takes _use_item_location: claimcheck's skips (no GPU, no weights, "
        "not-run placeholders) would be reported at claimcheck's own line; update claimcheck.plugin.state.skip_here "
        "and claimcheck.recorder"
    )
    assert pytest.skip.Exception("why", _use_item_location=True)._use_item_location is True


def test_a_skip_from_a_hook_is_reported_at_the_tests_location(pytester):
    pytester.makeconftest("""
        from claimcheck.plugin.state import skip_here

        def pytest_runtest_setup(item):
            skip_here("not here")
    """)
    pytester.makepyfile(test_where="def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_where.py:1: not here"])


def test_pytest_html_writes_through_write_report():
    basereport = pytest.importorskip("pytest_html.basereport")
    report = basereport.BaseReport
    assert callable(getattr(report, "_write_report", None)), (
        "pytest_html.basereport.BaseReport has no _write_report: claimcheck.plugin.html.atomic_html_writes "
        "can no longer make the test log's writes atomic"
    )
    assert list(inspect.signature(report._write_report).parameters) == ["self", "rendered_report"], (
        "BaseReport._write_report(self, rendered_report) changed its signature"
    )
    assert "self._report_path" in inspect.getsource(report), "BaseReport no longer keeps _report_path"

"""A check the CI must run: skipped with its reason on a machine without what it needs, failed under
``CI=true`` (where .ci/run installs everything, so missing means the install step broke)."""

import os

import pytest


def required(what: str, fix: str):
    """``missing(reason)`` for the checks of ``what`` ("the browser tests"): a skip with ``reason``,
    or under ``CI=true`` a failure naming ``reason`` and the install step ``fix``."""

    def missing(reason: str):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true: {what} must run, but {reason} ({fix})", pytrace=False)
        pytest.skip(reason)

    return missing

"""The LLM kit's ``pytest11`` entry point: its options (:mod:`claimcheck.llm.options`), handed to
the core (``pytest_claimcheck_options``), which validates them with its own, and one hook that
registers the kit's pytest side (:mod:`claimcheck.llm.pytest_kit`) when the core starts a claims
run. In any other run the kit adds no hook, marker or fixture and imports nothing heavy; under
``-p no:claimcheck`` no option either (the claimcheck hooks are optional ones).
"""

from __future__ import annotations

import pytest

from claimcheck.llm.options import TABLE
from claimcheck.settings import add_options

KIT = "claimcheck.llm.pytest_kit"


def pytest_addoption(parser, pluginmanager):
    if not pluginmanager.is_blocked("claimcheck"):  # the core's options group; no core, no options
        add_options(parser, TABLE.options)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_options():
    return TABLE


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_heavy_packages(config):
    return ["torch", "transformers"]  # a second import of a half-loaded one crashes the interpreter


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_configure(config):
    config.pluginmanager.import_plugin(KIT)

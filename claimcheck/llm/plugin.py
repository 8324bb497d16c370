"""The LLM kit's ``pytest11`` entry point: its options (:mod:`claimcheck.llm.options`), and one hook
that registers the kit's pytest side (:mod:`claimcheck.llm.pytest_kit`) when claimcheck's core
starts a claims run.

The kit declares its option table on pytest's parser and hands it to the core
(``pytest_claimcheck_options``), which resolves and validates it with its own. Beyond that, in any
other run (an unrelated project) the kit implements no pytest hook, adds no marker or fixture and
imports nothing heavy; under ``-p no:claimcheck`` it declares no option either. The claimcheck
hooks are optional: without the core no plugin declares them and they are never called.
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

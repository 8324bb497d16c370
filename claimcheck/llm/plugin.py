"""The LLM kit's ``pytest11`` entry point: its options, handed to the core, and a hook that registers
the kit's pytest side (:mod:`claimcheck.llm.pytest_kit`) when the core starts a claims run; in any
other run it adds no hook, marker or fixture, and under ``-p no:claimcheck`` no option either.
"""

from __future__ import annotations

import pytest

from claimcheck.llm.options import TABLE
from claimcheck.settings import OptionTable, add_options


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_blocked("claimcheck"):  # the core's options group; no core, no options
        add_options(parser, TABLE.options)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_options() -> OptionTable:
    return TABLE


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_heavy_packages(config: pytest.Config) -> list[str]:
    return ["torch", "transformers"]  # a second import of a half-loaded one crashes the interpreter


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_configure(config: pytest.Config) -> None:
    config.pluginmanager.import_plugin("claimcheck.llm.pytest_kit")

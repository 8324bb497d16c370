"""The LLM kit's ``pytest11`` entry point: one hook, which registers the kit's pytest side
(:mod:`claimcheck.llm.pytest_kit`) when claimcheck's core starts a claims run, and nothing else.

In any other run (an unrelated project, ``-p no:claimcheck``) the kit implements no pytest hook,
adds no marker or fixture and imports nothing heavy. The hook is optional: without the core (or
under ``-p no:claimcheck``) no plugin declares it and it is never called.
"""

from __future__ import annotations

import pytest

KIT = "claimcheck.llm.pytest_kit"


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_configure(config):
    config.pluginmanager.import_plugin(KIT)

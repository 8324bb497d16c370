"""The fixtures of the core: ``claim``, ``claims_registry``, ``claims_settings`` (the kits add their
own, e.g. :mod:`claimcheck.llm.pytest_kit`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.plugin.state import (
    REGISTRY_NAME,
    claim_marker_id,
    lookup_claim,
    recorder_for,
    registry_for,
    settings_of,
)
from claimcheck.recorder import ClaimRecorder
from claimcheck.registry import Registry
from claimcheck.settings import Settings


@pytest.fixture
def claim(request: pytest.FixtureRequest) -> ClaimRecorder:
    """The registry claim named by the test's ``@pytest.mark.claim(id)``, as a :class:`ClaimRecorder`."""
    item = request.node
    cid = claim_marker_id(item)
    if cid is None:
        raise pytest.UsageError(f"{item.nodeid}: the 'claim' fixture needs @pytest.mark.claim('<id>')")
    return recorder_for(item, lookup_claim(item, cid)[1])


@pytest.fixture(scope="module")
def claims_registry(request: pytest.FixtureRequest) -> Registry:
    """The :class:`claimcheck.registry.Registry` governing the requesting test module."""
    reg = registry_for(request.config, Path(request.path))
    if reg is None:
        raise LookupError(f"{request.path}: no {REGISTRY_NAME} in its folder or above")
    return reg


@pytest.fixture(scope="session")
def claims_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's resolved :class:`claimcheck.settings.Settings`."""
    return settings_of(pytestconfig)

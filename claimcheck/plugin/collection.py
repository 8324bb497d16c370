"""Collection: registries become items; claim tests get their id, their record and the markers of
their claim's ``needs``; a claim without a collected test gets a placeholder."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.plugin.items import AuditItem, DriftItem, PlaceholderItem, RegistryErrorItem, RegistryFile
from claimcheck.plugin.state import REGISTRY_NAME, claim_marker_id, registry_for, run_state, stated_record
from claimcheck.recorder import CLAIM_ID_KEY, RECORD_KEY

#: registry ``needs`` -> marker added to every test of the claim, so -m works from the registry alone
NEED_MARKERS = {"weights": "pretrained", "gpu": "gpu", "time": "timing"}


def pytest_collect_file(file_path: Path, parent):
    if file_path.name == REGISTRY_NAME:
        return RegistryFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Tag claim tests, add markers from the registry's `needs`, add placeholders (before -k/-m)."""
    state = run_state(config)
    covered: dict[str, set] = {}
    for item in items:
        cid = claim_marker_id(item)
        if cid is None or isinstance(item, (RegistryErrorItem, PlaceholderItem)):
            continue
        item.user_properties.append((CLAIM_ID_KEY, cid))
        item.extra_keyword_matches.add(cid)  # so that `-k C18` selects the claim's tests
        reg = registry_for(config, Path(item.path))
        if reg is None:
            continue
        covered.setdefault(reg.path, set()).add(cid)
        claim = reg.claims.get(cid)
        if claim is not None:
            item.user_properties.append((RECORD_KEY, stated_record(claim)))
        lane = item.get_closest_marker("portable_lm") is not None  # brings its own model: no GPT-2 weights needed
        for need in claim.needs if claim else ():
            if need in NEED_MARKERS and not (lane and need == "weights"):
                item.add_marker(NEED_MARKERS[need])
    for rf in state.registry_files:
        reg = state.registry(rf.path)
        done = covered.get(reg.path, set())
        for cid, claim in reg.claims.items():
            if cid in done:
                continue
            ph = PlaceholderItem.from_parent(rf, name=f"{cid} [not-run]", claim_id=cid)
            ph.user_properties.append((RECORD_KEY, stated_record(claim)))
            for need in claim.needs:
                if need in NEED_MARKERS:
                    ph.add_marker(NEED_MARKERS[need])
            items.append(ph)
    unknown = set(state.overrides) - state.overridden
    if unknown:
        raise pytest.UsageError(f"claimcheck: --claims-stated names {', '.join(sorted(unknown))}, which no collected "
                                "registry holds")
    # drift checks and the audit run last, so a drift report can show what the claim measured
    items[:] = ([i for i in items if not isinstance(i, (DriftItem, AuditItem))]
                + [i for i in items if isinstance(i, (DriftItem, AuditItem))])
    if config.pluginmanager.hasplugin("xdist"):
        from claimcheck.plugin.parallel import TIMING_GROUP, needs_exclusive

        for item in items:  # with --dist loadgroup the timing claims share one worker (one measurement)
            if needs_exclusive(item):
                item.add_marker(pytest.mark.xdist_group(TIMING_GROUP))


class KeepRegistryErrors:
    """Registry problems always run and fail the run, whatever -k or -m deselected."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        state = run_state(config)
        present = set(map(id, items))
        for rf in state.registry_files:
            for item in getattr(rf, "error_items", ()):
                if id(item) not in present:
                    items.append(item)


def pytest_configure(config):
    config.pluginmanager.register(KeepRegistryErrors(), "claimcheck-keep-registry-errors")

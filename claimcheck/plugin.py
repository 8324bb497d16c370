"""pytest plugin: options, markers, collection of registries, the ``claim`` fixture, reports.

Only glue: the work is done by the modules of :mod:`claimcheck`. Registered through the
``pytest11`` entry point, so every pytest run in an environment where claimcheck is installed
has it; the reports are written only by runs that collect a ``claims.toml`` registry.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import pytest

from claimcheck import settings as settings_mod
from claimcheck.recorder import CLAIM_ID_KEY, KIND_KEY, PLOTS_KEY, RECORD_KEY, ClaimRecorder
from claimcheck.registry import load_registry

REGISTRY_NAME = "claims.toml"

MARKERS = {
    "claim": "claim(id): the test checks the registry claim `id` (e.g. 'C18' or 'C30.text')",
    "gpu": "gpu: needs a CUDA GPU; skipped with the reason where torch sees none",
    "pretrained": "pretrained: needs the real pretrained GPT-2 weights; skipped with the reason where none are found",
    "timing": "timing: a timing measurement (noisy; asserts ratios and trends only)",
    "slow": "slow: takes more than ~20 s on a 2-core CPU (deselect with -m 'not slow')",
    "portable_lm": "portable_lm: a model-agnostic form of a claim, run on another causal LM only with --claims-lm NAME",
}
# registry `needs` -> marker added to every test of the claim, so -m works from the registry alone
NEED_MARKERS = {"weights": "pretrained", "gpu": "gpu", "time": "timing"}

settings_key = pytest.StashKey["settings_mod.Settings"]()
state_key = pytest.StashKey["_State"]()


class _State:
    def __init__(self):
        from claimcheck.report import ResultCollector

        self.registries: dict[str, object] = {}  # path -> Registry
        self.collector = ResultCollector()
        self.started = time.time()
        self.fingerprint: dict | None = None
        self.weights = None
        self.registry_files: list = []
        self.overrides: dict[str, str] = {}   # --claims-stated: claim id -> revised stated value
        self.overridden: set[str] = set()
        self.manuscript_checks: dict[str, object] = {}  # registry path -> ManuscriptCheck

    def pytest_runtest_logreport(self, report):
        # registered as a plugin, so it also sees the reports xdist workers send to the controller
        self.collector.add(report)

    def registry(self, path: Path):
        key = str(path)
        if key not in self.registries:
            reg = load_registry(path)
            if self.overrides:
                from claimcheck.editor import apply_overrides

                self.overridden |= apply_overrides(reg, self.overrides)
            self.registries[key] = reg
        return self.registries[key]


# --- options ----------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("claimcheck", "claimcheck: executable claims of a book chapter")
    group.addoption("--claims-profile", dest="claims_profile", metavar="NAME", default=None,
                    type=settings_mod.profile_type,
                    help="sizes of size-dependent claims: quick, standard or full (default: standard)")
    group.addoption("--claims-runner", dest="claims_runner", metavar="NAME", default=None,
                    help="runner profile this machine is, e.g. author-laptop; machine-bound figures are "
                         "enforced only on their runner (default: none)")
    group.addoption("--claims-report-dir", dest="claims_report_dir", metavar="DIR", default=None,
                    help="folder for claims.json and claims.html, relative to the rootdir (default: reports)")
    group.addoption("--claims-weights", dest="claims_weights", metavar="DIR|HUB_ID", default=None,
                    help="pretrained GPT-2: a folder saved by save_pretrained, or a hub id looked up in the "
                         "Hugging Face cache offline (default: gpt2 from the cache; env CLAIMCHECK_WEIGHTS)")
    group.addoption("--claims-weights-shapes", dest="claims_weights_shapes", metavar="CHECK", default=None,
                    type=settings_mod.weights_shapes_type,
                    help="what the weights must be: gpt2-small, or config (any GPT-2 matching its own "
                         "config.json) (default: gpt2-small)")
    group.addoption("--claims-lm", dest="claims_lm", metavar="NAME|DIR", default=None,
                    help="run only the portable-LM lane (tests marked portable_lm) on this causal LM: smollm2 "
                         "or a save_pretrained folder; reports go to <report dir>/portable-<name> (default: none)")
    group.addoption("--claims-corpus", dest="claims_corpus", metavar="FILE", default=None,
                    help="UTF-8 text for C31, the share of positions whose top-1 probability exceeds 90%% "
                         "(default: none; env CLAIMCHECK_CORPUS)")
    group.addoption("--claims-device", dest="claims_device", metavar="DEVICE", default=None,
                    help="where device-aware claims (KV cache bytes, C34) run: auto, cpu, cuda or cuda:N; "
                         "cuda fails the run where torch sees no GPU (default: auto)")
    group.addoption("--claims-allow-download", dest="claims_allow_download", action="store_true", default=False,
                    help="allow downloading GPT-2 weights from the Hugging Face hub (default: off)")
    group.addoption("--claims-manuscript", dest="claims_manuscript", metavar="PATH", default=None,
                    help="the chapter (plain text or Markdown): adds a drift check per claim ('C05 [drift]') "
                         "and an audit of every number in it (default: none; env CLAIMCHECK_MANUSCRIPT)")
    group.addoption("--claims-listing", dest="claims_listing", metavar="FILE", default=None,
                    help="the chapter's code listing, run by C33 in a subprocess (default: none; env CLAIMCHECK_LISTING)")
    group.addoption("--claims-listing-timeout", dest="claims_listing_timeout", metavar="SECONDS", default=None,
                    type=float, help="time limit for running the listing (default: 900)")
    group.addoption("--claims-stated", dest="claims_stated", metavar="ID=VALUE", action="append", default=None,
                    type=settings_mod.stated_override_type,
                    help="replace a claim's stated value for this run, e.g. C05=58 (repeatable; what "
                         "'claimcheck what-if' uses) (default: none)")
    for name, (_dest, _var, ini, default, help_) in settings_mod.OPTIONS.items():
        parser.addini(ini, f"{help_} (default: {default})", default=None)


def _is_claims_run(config) -> bool:
    """Whether this run collects a claims registry and runs tests (then it writes the reports)."""
    if config.option.collectonly:
        return False
    args = config.args or []
    for arg in args:
        path = Path(str(arg).split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        if path.is_file():
            path = path.parent
        if not path.exists():
            continue
        if any(p.joinpath(REGISTRY_NAME).is_file() for p in (path, *path.parents)):
            return True
        if next(path.rglob(REGISTRY_NAME), None) is not None:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", text)
    try:
        s = settings_mod.resolve(config)
    except settings_mod.SettingsError as exc:
        raise pytest.UsageError(f"claimcheck: {exc}") from None
    config.stash[settings_key] = s
    for name in ("manuscript", "listing"):
        if getattr(s, name) and not setting_path(config, name).is_file():
            where = dict(s.sources).get(name, name)
            raise pytest.UsageError(f"claimcheck: {where}: no such file: {setting_path(config, name)}")
    if s.device.startswith("cuda"):  # a GPU runner without CUDA must fail loudly, not run on the CPU
        from claimcheck.device import DeviceError, select_device

        try:
            select_device(s.device)
        except DeviceError as exc:
            raise pytest.UsageError(f"claimcheck: {dict(s.sources)['device']}: {exc}") from None
    state = _State()
    config.stash[state_key] = state
    state.overrides = dict(config.getoption("claims_stated", None) or [])
    config.pluginmanager.register(state, "claimcheck-state")
    config.pluginmanager.register(_KeepRegistryErrors(), "claimcheck-keep-registry-errors")
    if _is_claims_run(config) and not hasattr(config, "workerinput"):
        report_dir = Path(config.rootpath) / s.report_dir
        if s.lm and dict(s.sources).get("report_dir") == "default":  # keep the main report apart
            from claimcheck.portable_lm import lane_slug

            report_dir = report_dir / f"portable-{lane_slug(s.lm)}"
        _check_writable(report_dir, dict(s.sources).get("report_dir", "default"))
        # pytest-html reads these in its own pytest_configure, which runs after this one.
        if getattr(config.option, "htmlpath", "absent") is None:
            config.option.htmlpath = str(report_dir / "claims.html")
            config.option.self_contained_html = True
        config.stash[state_key].json_path = report_dir / "claims.json"
    from claimcheck.parallel import XdistSupport

    # pytest-xdist: timing claims run alone, the controller learns the workers' registries
    XdistSupport.register(config, state, claims_run=_is_claims_run(config))


def _check_writable(report_dir: Path, source: str) -> None:
    """Fail before any test runs when the reports could not be written at the end."""
    import os

    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) cannot be created: {exc.strerror or exc}") from None
    problems = [p for p in (report_dir / "claims.json", report_dir / "claims.html") if p.is_dir()]
    if not os.access(report_dir, os.W_OK):
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) is not writable")
    if problems:
        raise pytest.UsageError(f"claimcheck: {problems[0]} is a folder; the report cannot be written there")


# --- collection -------------------------------------------------------------------------------
def pytest_collect_file(file_path: Path, parent):
    if file_path.name == REGISTRY_NAME:
        return RegistryFile.from_parent(parent, path=file_path)
    return None


class RegistryIssueError(Exception):
    pass


class RegistryFile(pytest.File):
    """A ``claims.toml``: yields one failing item per registry problem."""

    def collect(self):
        state = self.config.stash[state_key]
        reg = state.registry(self.path)
        state.registry_files.append(self)
        self.error_items = []
        for n, issue in enumerate(reg.issues):
            name = f"registry[{issue.claim_id or 'file'}:{issue.field or '-'}:{n}]"
            item = RegistryErrorItem.from_parent(self, name=name, issue=issue)
            self.error_items.append(item)
            yield item
        if self.config.stash[settings_key].manuscript:
            for cid in reg.claims:
                yield DriftItem.from_parent(self, name=f"{cid} [drift]", claim_id=cid)
            yield AuditItem.from_parent(self, name="manuscript [audit]")


class RegistryErrorItem(pytest.Item):
    def __init__(self, *, issue, **kwargs):
        super().__init__(**kwargs)
        self.issue = issue
        if issue.claim_id and not issue.claim_id.startswith("#"):
            self.user_properties.append((CLAIM_ID_KEY, issue.claim_id))
        self.user_properties.append((KIND_KEY, "registry-error"))

    def runtest(self):
        raise RegistryIssueError(str(self.issue))

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(RegistryIssueError):
            return f"registry error: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, _line_of_id(self.path, self.issue.claim_id), self.name


class PlaceholderItem(pytest.Item):
    """Stands for a registry claim that no collected test checks: reported as not-run."""

    def __init__(self, *, claim_id, **kwargs):
        super().__init__(**kwargs)
        self.claim_id = claim_id
        self.user_properties += [(CLAIM_ID_KEY, claim_id), (KIND_KEY, "placeholder")]

    def runtest(self):
        _skip_here("not-run: no test yet")

    def reportinfo(self):
        return self.path, _line_of_id(self.path, self.claim_id), self.name


class ManuscriptDriftError(Exception):
    pass


def _manuscript_check(config, registry_path: Path):
    """The drift check and number audit of --claims-manuscript against one registry (once per run)."""
    state = config.stash[state_key]
    key = str(registry_path)
    if key not in state.manuscript_checks:
        from claimcheck.manuscript import check_manuscript

        state.manuscript_checks[key] = check_manuscript(setting_path(config, "manuscript"), state.registry(registry_path))
    return state.manuscript_checks[key]


def setting_path(config, name: str) -> Path:
    """A path setting, relative to the rootdir when it came from the ini file, else to the invocation dir."""
    s = config.stash[settings_key]
    p = Path(getattr(s, name))
    if p.is_absolute():
        return p
    where = dict(s.sources).get(name, "")
    base = config.rootpath if where.startswith("ini") else config.invocation_params.dir
    return Path(base) / p


class _ManuscriptItem(pytest.Item):
    """Shows a drift or audit failure as its message alone (it is a finding, not a traceback)."""

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(ManuscriptDriftError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class DriftItem(_ManuscriptItem):
    """A claim's drift check: does the manuscript still print the registry's numbers for it?

    Reported under the claim's id (its row shows manuscript value, registry value, measured value
    and line in ``details["drift"]``). A passing drift check never upgrades the claim's outcome.
    """

    def __init__(self, *, claim_id, **kwargs):
        super().__init__(**kwargs)
        self.claim_id = claim_id
        self.user_properties += [(CLAIM_ID_KEY, claim_id), (KIND_KEY, "drift")]

    def runtest(self):
        from claimcheck.editor import drift_failure_message
        from claimcheck.manuscript import drift_record

        check = _manuscript_check(self.config, self.path)
        drift = check.drift_for(self.claim_id)
        reg = self.config.stash[state_key].registry(self.path)
        measured = _measured_so_far(self.config, self.claim_id)
        record = _stated_record(reg.claims[self.claim_id])
        record["details"] = {"drift": {**drift_record(drift, check.manuscript), "measured": measured}}
        self.user_properties.append((RECORD_KEY, record))
        if drift.failed:
            raise ManuscriptDriftError(drift_failure_message(drift, reg.claims[self.claim_id], measured, reg.path))

    def reportinfo(self):
        return self.path, _line_of_id(self.path, self.claim_id), self.name


class AuditItem(_ManuscriptItem):
    """The number audit of the manuscript: every number bound to a claim or waived; fails below 100%."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.user_properties.append((KIND_KEY, "audit"))

    def runtest(self):
        from claimcheck.editor import audit_failure_message

        check = _manuscript_check(self.config, self.path)
        if check.audit.failed:
            raise ManuscriptDriftError(audit_failure_message(check))

    def reportinfo(self):
        return self.path, 0, self.name


def _measured_so_far(config, claim_id: str) -> str | None:
    """The measured value a test of ``claim_id`` recorded earlier in this run (for drift reports)."""
    tests = config.stash[state_key].collector.tests
    for t in tests.values():
        if t["id"] == claim_id and t["record"].get("measured_display"):
            return t["record"]["measured_display"]
    return None


def _line_of_id(path: Path, claim_id: str | None) -> int:
    """0-based line of ``id = "<claim_id>"`` in a registry file (0 when not found)."""
    if claim_id:
        try:
            for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
                if line.replace(" ", "") == f'id="{claim_id}"':
                    return n
        except OSError:
            pass
    return 0


def _claim_marker_id(item):
    marks = list(item.iter_markers("claim"))
    if not marks:
        return None
    args = marks[0].args
    return args[0] if len(args) == 1 and isinstance(args[0], str) else None


def _registry_for(config, path: Path):
    """The registry governing a test file: the nearest claims.toml at or above its folder."""
    state = config.stash[state_key]
    root = Path(config.rootpath)
    for folder in (path.parent, *path.parents):
        candidate = folder / REGISTRY_NAME
        if candidate.is_file():
            return state.registry(candidate)
        if folder == root:
            break
    return None


class _KeepRegistryErrors:
    """Registry problems always run and fail the run, whatever -k or -m deselected."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        state = config.stash[state_key]
        present = set(map(id, items))
        for rf in state.registry_files:
            for item in getattr(rf, "error_items", ()):
                if id(item) not in present:
                    items.append(item)


def _stated_record(claim) -> dict:
    return {"id": claim.id, "stated": claim.stated, "unit": claim.unit, "tolerance": claim.tolerance_text}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Tag claim tests, add markers from the registry's `needs`, add placeholders (before -k/-m)."""
    state = config.stash[state_key]
    covered: dict[str, set] = {}
    for item in items:
        cid = _claim_marker_id(item)
        if cid is None or isinstance(item, (RegistryErrorItem, PlaceholderItem)):
            continue
        item.user_properties.append((CLAIM_ID_KEY, cid))
        item.extra_keyword_matches.add(cid)  # so that `-k C18` selects the claim's tests
        reg = _registry_for(config, Path(item.path))
        if reg is None:
            continue
        covered.setdefault(reg.path, set()).add(cid)
        claim = reg.claims.get(cid)
        if claim is not None:
            item.user_properties.append((RECORD_KEY, _stated_record(claim)))
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
            ph.user_properties.append((RECORD_KEY, _stated_record(claim)))
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
    # the portable-LM lane runs alone, and only when asked for (--claims-lm)
    lane = bool(config.stash[settings_key].lm)
    keep = [i for i in items if isinstance(i, RegistryErrorItem) or bool(i.get_closest_marker("portable_lm")) == lane]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
    if config.pluginmanager.hasplugin("xdist"):
        from claimcheck.parallel import TIMING_GROUP, needs_exclusive

        for item in items:  # with --dist loadgroup the timing claims share one worker (one measurement)
            if needs_exclusive(item):
                item.add_marker(pytest.mark.xdist_group(TIMING_GROUP))


# --- running ----------------------------------------------------------------------------------
def _weights(config):
    state = config.stash[state_key]
    if state.weights is None:
        from claimcheck.weights import resolve_weights

        s = config.stash[settings_key]
        state.weights = resolve_weights(s.weights, s.allow_download)
    return state.weights


def _weights_record(config) -> dict:
    from claimcheck.weights import weights_record

    return weights_record(_weights(config), config.stash[settings_key].weights_shapes)


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.hookimpl(tryfirst=True)  # before fixtures are set up: a broken claim errors before any measurement
def pytest_runtest_setup(item):
    if isinstance(item, (RegistryErrorItem, PlaceholderItem, DriftItem, AuditItem)):
        return
    marks = list(item.iter_markers("claim"))
    if marks and _claim_marker_id(item) is None:
        raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.claim('C05') with exactly one claim id string")
    if marks and "claim" in getattr(item, "fixturenames", ()):
        _lookup_claim(item.config, item, _claim_marker_id(item))
    if item.get_closest_marker("gpu"):
        s = item.config.stash[settings_key]
        if s.device == "cpu":
            _skip_here(f"needs a CUDA GPU; this run was told to use the CPU ({dict(s.sources)['device']}: cpu)")
        if not _cuda_available():
            from claimcheck.device import no_gpu_reason

            _skip_here(no_gpu_reason())
    if item.get_closest_marker("pretrained"):
        w = _weights(item.config)
        if not w.available:
            _skip_here(w.reason)


def _skip_here(reason: str):
    """Skip, reported at the test's own location rather than at this line of the plugin."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


def _fingerprint(config) -> dict:
    state = config.stash[state_key]
    if state.fingerprint is None:
        from claimcheck.fingerprint import runner_fingerprint

        state.fingerprint = runner_fingerprint(config.stash[settings_key].runner)
        state.fingerprint["weights"] = _weights_record(config)
    return state.fingerprint


@pytest.fixture
def claim(request) -> ClaimRecorder:
    """The registry claim named by the test's ``@pytest.mark.claim(id)``, as a :class:`ClaimRecorder`."""
    from claimcheck.fingerprint import describe

    item = request.node
    cid = _claim_marker_id(item)
    if cid is None:
        raise pytest.UsageError(f"{item.nodeid}: the 'claim' fixture needs @pytest.mark.claim('<id>')")
    reg, found = _lookup_claim(request.config, item, cid)
    s = request.config.stash[settings_key]
    fp = _fingerprint(request.config)
    return ClaimRecorder(found, item, s.runner, describe(fp), reg.runners)


@pytest.fixture(scope="module")
def claims_registry(request):
    """The :class:`claimcheck.registry.Registry` governing the requesting test module."""
    reg = _registry_for(request.config, Path(request.path))
    if reg is None:
        raise LookupError(f"{request.path}: no {REGISTRY_NAME} in its folder or above")
    return reg


@pytest.fixture(scope="session")
def claims_weights(pytestconfig):
    """Where pretrained GPT-2 comes from in this run (:class:`claimcheck.weights.WeightsResolution`)."""
    return _weights(pytestconfig)


@pytest.fixture(scope="session")
def claims_settings(pytestconfig):
    """The run's resolved :class:`claimcheck.settings.Settings`."""
    return pytestconfig.stash[settings_key]


@pytest.fixture(scope="session")
def claims_device(claims_settings):
    """The ``torch.device`` of device-aware claims (``--claims-device``; :mod:`claimcheck.device`)."""
    from claimcheck.device import select_device

    return select_device(claims_settings.device)


@pytest.fixture(scope="session")
def claims_profile(claims_settings):
    """The :class:`claimcheck.profiles.Profile` of this run (sizes behind size-dependent claims)."""
    from claimcheck.profiles import get

    return get(claims_settings.profile)


def _lookup_claim(config, item, cid):
    """Return (registry, claim) for a claim test, or fail the test with the registry's own words.

    Called before any fixture is set up (``pytest_runtest_setup``), so that a test of a broken or
    unknown claim errors at once instead of after the session's expensive measurements.
    """
    __tracebackhide__ = True
    reg = _registry_for(config, Path(item.path))
    if reg is None:
        pytest.fail(f"{item.nodeid}: no {REGISTRY_NAME} in {Path(item.path).parent} or above", pytrace=False)
    found = reg.claims.get(cid)
    if found is None:
        issues = reg.issues_for(cid)
        if issues:
            pytest.fail(f"claim {cid} is invalid in the registry: " + "; ".join(str(i) for i in issues), pytrace=False)
        file_level = [str(i) for i in reg.issues if i.claim_id is None]
        if file_level:
            pytest.fail(f"claim {cid} cannot be read: " + "; ".join(file_level), pytrace=False)
        import difflib

        close = difflib.get_close_matches(cid, list(reg.claims), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        pytest.fail(f"{reg.path}: no claim with id {cid!r}{hint}", pytrace=False)
    return reg, found


# --- reporting --------------------------------------------------------------------------------
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the claim's plots to the call report (pytest-html embeds them), and turn a claim test
    that passed without recording a verdict (``claim.check`` never called) into a failure."""
    outcome = yield
    report = outcome.get_result()
    if (report.when == "call" and report.passed and not isinstance(item, (RegistryErrorItem, PlaceholderItem))
            and _claim_marker_id(item) is not None and not hasattr(report, "wasxfail")):
        record = next((v for k, v in item.user_properties if k == RECORD_KEY), {})
        if "verdict" not in record:
            report.outcome = "failed"
            report.longrepr = (f"{_claim_marker_id(item)}: the test passed without a verdict: a claim test must "
                               "call claim.check(...) (or skip with a reason); a test that measures nothing "
                               "cannot stand for a claim")
    plots = item.stash.get(PLOTS_KEY, None)
    if report.when == "call" and plots:
        try:
            from pytest_html import extras
        except ImportError:
            return
        report.extras = list(getattr(report, "extras", [])) + [extras.png(b64, name) for name, b64 in plots]


def _all_registries(config):
    state = config.stash[state_key]
    return list(state.registries.values())


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    config = session.config
    state = config.stash.get(state_key, None)
    if state is None or hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    regs = _all_registries(config)
    state.rows = state.collector.rows(regs) if regs else []
    json_path = getattr(state, "json_path", None)
    if regs and json_path is not None:
        from claimcheck.profiles import get
        from claimcheck.report import build_json, write_json

        s = config.stash[settings_key]
        fp = dict(_fingerprint(config))
        models = {r.record["model"]: r.record.get("details", {}).get("model") for r in state.rows if r.record.get("model")}
        if models:  # the portable-LM lane: which model the rows were measured on
            fp["portable_lm"] = models
        doc = build_json(state.rows, regs, fp, s, get(s.profile).as_dict(), state.started)
        if state.manuscript_checks:
            doc["manuscripts"] = [c.as_dict() for c in state.manuscript_checks.values()]
        write_json(doc, json_path)
        state.json_doc = doc


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(state_key, None)
    doc = getattr(state, "json_doc", None) if state else None
    if not doc:
        return
    tr = terminalreporter
    tr.section("claimcheck")
    counts = ", ".join(f"{v} {k}" for k, v in sorted(doc["counts"].items()))
    tr.write_line(f"claims: {counts}")
    tr.write_line(f"profile: {doc['profile']['description']}")
    for m in doc.get("manuscripts", []):
        a = m["audit"]
        tr.write_line(f"manuscript {m['path']}: {len(m['drift']['failed'])} claims drifted; numbers "
                      f"{a['bound']} bound + {a['waived']} waived of {a['numbers']} = {a['coverage']:.1%}")
    tr.write_line(f"report: {state.json_path}  and  {config.option.htmlpath}")


# pytest-html hooks: only called when pytest-html is active
COLUMNS = ("Claim", "Chapter", "Measured", "Tolerance", "Verdict")


def pytest_html_results_table_header(cells):
    cells.insert(1, "".join(f'<th class="claim-{c.lower()}">{c}</th>' for c in COLUMNS))


def pytest_html_results_table_row(report, cells):
    props = {k: v for k, v in getattr(report, "user_properties", [])}
    cid = props.get(CLAIM_ID_KEY, "")
    rec = props.get(RECORD_KEY, {})
    stated = f"{rec.get('stated', '')} {rec.get('unit', '')}".strip()
    from claimcheck.report import verdict_text

    verdict = verdict_text(report, rec)
    if rec.get("model"):  # a portable-LM lane row: name the model; "stated" is the portable form's expectation
        cid = f"{cid} [{rec['model']}]"
        stated = f"{stated} (for this model)" if stated else "(property of any causal LM)"
    values = (cid, stated, rec.get("measured_display", ""), rec.get("tolerance", ""), verdict)
    cells.insert(1, "".join(f'<td class="claim-col">{html.escape(str(v))}</td>' for v in values))


def pytest_html_report_title(report):
    report.title = "claimcheck: claims report"


def _profile_line(name: str) -> str:
    from claimcheck.profiles import get

    return get(name).describe()


def pytest_html_results_summary(prefix, summary, postfix, session):
    config = session.config
    state = config.stash.get(state_key, None)
    if state is None:
        return
    fp = _fingerprint(config)
    s = config.stash[settings_key]
    rows = getattr(state, "rows", [])
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    gpu = fp["gpu"]["name"] if fp.get("gpu") else "none"
    ram = f"{fp['ram_bytes'] / 2**30:.1f} GiB" if fp.get("ram_bytes") else "?"
    prefix.append(
        "<p><b>Runner</b>: " + html.escape(f"{fp['cpu']}, {fp['cores']} cores, {ram} RAM, GPU {gpu}, "
                                          f"{fp['os']}, Python {fp['python']}, torch {fp['torch']} "
                                          f"({fp['torch_threads']} threads), transformers {fp['transformers']}")
        + f"<br><b>Profile</b>: {html.escape(_profile_line(s.profile))} &nbsp; <b>Runner profile</b>: "
        + html.escape(s.runner or "unnamed (machine-bound figures are shown, not enforced)")
        + "<br><b>Weights</b>: " + html.escape(_weights_line(fp.get("weights") or {}, rows))
        + "<br><b>Claims</b>: " + html.escape(", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        + "</p>")
    unselected = [r.id for r in rows if r.outcome == "not-run" and not r.tests]
    if unselected:  # -k/-m left them out: they have no row below, but every registry id is listed
        prefix.append("<p><b>Not run in this run</b> (not selected by -k/-m, or no test collected): "
                      + html.escape(", ".join(unselected)) + "</p>")
    issues = [str(i) for reg in _all_registries(config) for i in reg.issues]
    if issues:
        prefix.append("<p><b>Registry problems</b>:</p><ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in issues) + "</ul>")


def _weights_line(w: dict, rows=()) -> str:
    models = sorted({r.record["model"] for r in rows if r.record.get("model")})
    if models:
        return f"portable-LM lane on {', '.join(models)}: its own numbers, never compared with GPT-2's"
    if not w.get("available"):
        return "none (weight-bound claims skipped)"
    return f"{w.get('source')} ({w.get('kind')}), {w.get('file', '?')} sha256 {w.get('sha256', '?')}"

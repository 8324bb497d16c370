"""The items a registry file yields: its problems, placeholders for untested claims, drift checks
and the number audit of the manuscript."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from claimcheck.book import NOT_IN_BOOK, cite, scan
from claimcheck.display import printable
from claimcheck.editor import audit_failure_message, drift_failure_message
from claimcheck.formula import FormulaError, evaluate_claim
from claimcheck.manuscript import (
    ClaimDrift,
    ManuscriptCheck,
    chapter_manuscript,
    check_manuscript,
    citation_check,
    drift_record,
)
from claimcheck.outcomes import ERROR, FAILED, NOT_RUN
from claimcheck.plugin.options import registries_of_args
from claimcheck.plugin.parallel import is_worker
from claimcheck.plugin.phases import claim_key
from claimcheck.plugin.state import (
    line_of_id,
    recorder_for,
    run_state,
    setting_path,
    settings_of,
    skip_here,
    stated_result,
)
from claimcheck.recorder import CLAIM_KEY, KIND_KEY, RESULT_KEY, ClaimEnd
from claimcheck.registry import Registry, RegistryIssue, other_chapters
from claimcheck.verdict import formula_evidence

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle  # the types of pytest.Item.repr_failure


class RegistryIssueError(Exception):
    pass


class ModuleError(Exception):
    pass


class RegistryItem(pytest.Item):
    """An item of ours, not a claim test (its outcome comes from the registry or the manuscript): a
    failure of a ``_SHOWN`` kind reads as its message, at its claim's registry line. ``kind``: what
    it is (``KIND_KEY``)."""

    _SHOWN: ClassVar[dict[type, str]] = {ClaimEnd: "", ModuleError: ""}
    kind: str

    def __init__(self, *, claim_id: str | None = None, key: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim_id, self.key = claim_id, key
        if key:
            self.stash[CLAIM_KEY] = key
        self.stash[KIND_KEY] = self.kind

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        for kind, prefix in self._SHOWN.items():
            if excinfo.errisinstance(kind):
                return prefix + str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, line_of_id(self.path, self.claim_id), self.name


class RegistryFile(pytest.File):
    """A ``claims.toml``: an item per registry problem and formula claim, and the manuscript's checks."""

    def collect(self) -> Iterator[pytest.Item]:
        state = run_state(self.config)
        reg = state.registry(self.path)
        state.registry_files.append(self)
        if reg.chapter_table is False:  # another project's file under claims/: one error, no claim of it
            why = (
                "not a claimcheck registry: it has no [chapter] table. A claims.toml in a claims/ folder "
                "of the run (or named by claims_registries) is a chapter's registry; give it a [chapter] "
                "table, or move this file out of the claims/ folder"
            )
            issue = RegistryIssue(reg.path, None, "chapter", why)
            reg.claims.clear()  # none of its tables is a claim of this run
            reg.invalid.clear()
            reg.issues[:] = [issue]
            self.error_items = [
                RegistryErrorItem.from_parent(self, name="registry[not a registry]", issue=issue)
            ]
            yield from self.error_items
            return
        issues = list(reg.issues)
        if issues and not reg.all_ids:  # nothing declared can be read: the tests beside it still have rows
            why = "; ".join(i.message for i in reg.issues)
            issues += [
                RegistryIssue(reg.path, cid, None, f"the registry declares no readable claim ({why})")
                for cid in scan(self.path.parent)
            ]
        # the node id is printed too: a field name with a newline stays on its line
        names = [
            printable(f"registry[{i.claim_id or 'file'}:{i.field or '-'}:{n}]") for n, i in enumerate(issues)
        ]
        self.error_items = [
            RegistryErrorItem.from_parent(self, name=name, issue=i, registry=reg)
            for name, i in zip(names, issues)
        ]
        self.formula_items = [
            FormulaItem.from_parent(self, name=f"{cid} [formula]", claim_id=cid)
            for cid, claim in reg.claims.items()
            if claim.formula
        ]
        yield from self.error_items + self.formula_items
        if settings_of(self.config).manuscript and manuscript_binds(self.config, reg):
            for cid in reg.claims:
                yield DriftItem.from_parent(self, name=f"{cid} [drift]", claim_id=cid)
            audit = AuditItem.from_parent(self, name="manuscript [audit]")
            audit.extra_keyword_matches.add(reg.chapter_id)
            yield audit


def manuscript_binds(config: pytest.Config, reg: Registry) -> bool:
    """Whether ``--claims-manuscript`` is this registry's manuscript: always in a run of one chapter,
    else when the registry's ``[chapter] manuscript`` has the file's name (kept in the state, for
    the check of the run's chapters)."""
    named = reg.chapter.get("manuscript")
    binds = bool(named) and Path(str(named)).name == setting_path(config, "manuscript").name
    bound = run_state(config).manuscript_bound[reg.path] = len(registries_of_args(config)) <= 1 or binds
    return bound


class ClaimItem(RegistryItem):
    """An item of one claim (``claim``) of its registry file (``registry``): ``-k ch15:C10`` selects it
    with the claim's tests; and ``-m`` by the claim's ``needs`` where it stands for the claim's verdict
    (it is not a drift check)."""

    claim_id: str
    key: str

    def __init__(self, *, claim_id: str, **kwargs: Any) -> None:
        super().__init__(claim_id=claim_id, **kwargs)
        self.registry = run_state(self.config).registry(self.path)
        self.claim = self.registry.claims[claim_id]
        self.key = self.stash[CLAIM_KEY] = self.registry.key(claim_id)
        add_keywords(self, self.registry, claim_id)
        if self.kind != "drift":
            add_need_markers(self, self.claim.needs)


class RegistryErrorItem(RegistryItem):
    """One registry problem: always runs (whatever -k/-m selected) and fails with the problem's text."""

    kind = "registry-error"

    def __init__(self, *, issue: RegistryIssue, registry: Registry | None = None, **kwargs: Any) -> None:
        cid = issue.claim_id
        key = None if not cid or cid.startswith("#") else registry.key(cid) if registry is not None else cid
        super().__init__(claim_id=cid, key=key, **kwargs)
        self.issue = issue

    def runtest(self) -> None:
        raise RegistryIssueError(str(self.issue))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if excinfo.errisinstance(RegistryIssueError):  # the registry's text, never a workflow command
            return printable(f"registry error: {excinfo.value}")
        return super().repr_failure(excinfo, style)


class PlaceholderItem(ClaimItem):
    """Stands for a registry claim that no collected test checks: reported as not-run."""

    kind = "placeholder"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stash[RESULT_KEY] = stated_result(self.claim)

    def runtest(self) -> None:
        skip_here("not-run: no test yet")


class ModuleErrorItem(RegistryItem):
    """Stands for a claim of ``registry`` whose test module could not be collected: an error, its
    exception's first line."""

    kind = "module-error"

    def __init__(self, *, claim_id: str | None, message: str, registry: Registry, **kwargs: Any) -> None:
        super().__init__(claim_id=claim_id, key=claim_id and registry.key(claim_id), **kwargs)
        self.message = message
        if claim_id:  # -k C05 (or ch15:C05, ch15) selects it like the test it stands for
            add_keywords(self, registry, claim_id)

    def runtest(self) -> None:
        raise ModuleError(self.message)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name  # a test module, not the registry


def manuscript_check(config: pytest.Config, registry_path: Path) -> ManuscriptCheck:
    """The drift check and number audit of --claims-manuscript against one registry (once per run)."""
    state = run_state(config)
    key = str(registry_path)
    if key not in state.manuscript_checks:
        path, reg = setting_path(config, "manuscript"), state.registry(registry_path)
        state.manuscript_checks[key] = check_manuscript(path, reg, state.book())
    return state.manuscript_checks[key]


class DriftItem(ClaimItem):
    """A claim's drift check (``details["drift"]``): does the manuscript still print its numbers?"""

    kind = "drift"

    def runtest(self) -> None:
        check = manuscript_check(self.config, self.path)
        drift = check.drift_for(self.claim_id)
        if drift is None:  # check_manuscript checks every claim of the registry
            raise LookupError(f"{self.path}: claim {self.claim_id}: no drift check of it")
        measured = run_state(self.config).collector.measured_display(self.key)
        details = {"drift": {**drift_record(drift, check.manuscript), "measured": measured}}
        self.stash[RESULT_KEY] = stated_result(self.claim, details=details)
        if drift.failed:
            text, step = drift_failure_message(drift, self.claim, measured, self.registry.path)
            raise ClaimEnd(text, FAILED, next_step=step)


class AuditItem(RegistryItem):
    """The number audit of the manuscript: every number bound to a claim or waived; fails below 100%."""

    kind = "audit"

    def runtest(self) -> None:
        check = manuscript_check(self.config, self.path)
        if check.audit.failed:
            text, step = audit_failure_message(check)
            raise ClaimEnd(text, FAILED, next_step=step)


class CitationItem(ClaimItem):
    """A claim's ``cites`` checked against the claim it quotes in the book (drifted: ``details["drift"]``).
    With ``verdict`` (no test of its own) it is the claim's verdict: failed also when the source
    failed in this run, skipped for a source not in this book."""

    _SHOWN = {RegistryIssueError: "registry error: ", ClaimEnd: ""}

    def __init__(self, *, verdict: bool, **kwargs: Any) -> None:
        self.verdict, self.kind = verdict, "citation" if verdict else "drift"
        super().__init__(**kwargs)

    def runtest(self) -> None:
        state, reg, claim = run_state(self.config), self.registry, self.claim
        citation = cite(claim, state.book())
        ms = chapter_manuscript(reg)
        quote = citation_check(citation, claim, ms)
        drift = {"manuscript": ms.path if ms else None, "status": quote.status, "quotes": [quote.as_dict()]}
        details: dict[str, Any] = {"drift": drift}
        if self.verdict and citation.status in ("ok", "in-words"):
            outcome, why = state.collector.outcome_of(citation.source)
            if outcome is None or outcome == NOT_RUN:
                details["caveat"] = (
                    f"matches {citation.source} as its registry states it ({citation.figure or 'no number'}); "
                    f"{citation.source} was not measured in this run"
                )
        self.stash[RESULT_KEY] = stated_result(claim, details=details)
        if citation.registry_problem:  # the registry is wrong, not the quote: an error
            raise RegistryIssueError(f"{reg.path}: claim {claim.id}: field 'cites': {citation.words}")
        if citation.failed:
            text, step = drift_failure_message(ClaimDrift(claim.id, (quote,)), claim, None, reg.path)
            raise ClaimEnd(text, FAILED, next_step=step)
        if not self.verdict:
            return
        if citation.status == "not-in-book":
            skip_here(f"{NOT_IN_BOOK}: it quotes {citation.source}, kept as printed")
        # one of its tests failed here: the source fails, wherever the rest ran
        if outcome in (FAILED, ERROR):
            raise ClaimEnd(
                f"{claim.id} quotes {citation.source} ({citation.figure}), which {outcome} in this run: {why}",
                FAILED,
            )
        if self._elsewhere(citation.source):  # a pass seen here says nothing of the tests run elsewhere
            skip_here(
                f"{citation.source} runs on another pytest-xdist worker, whose outcome this one cannot "
                "see: run with --dist loadgroup, which keeps a citation beside the claim it quotes"
            )

    def _elsewhere(self, source: str) -> bool:
        """Whether ``source`` has a test (not a drift, citation, audit or placeholder check) that has not
        run on this xdist worker and may run on another (no ``--dist loadgroup``)."""
        if not is_worker(self.config) or self.config.getoption("loadgroup", False):
            return False
        seen = run_state(self.config).collector.tests
        beside = (CitationItem, DriftItem, AuditItem, PlaceholderItem)
        return any(
            claim_key(i) == source and not getattr(seen.get(i.nodeid), "outcome", None)
            for i in self.session.items
            if i is not self and not isinstance(i, beside)
        )


class FormulaItem(ClaimItem):
    """A claim that needs no code: its ``formula`` and ``conditions``, judged like a measured value."""

    kind = "formula"
    # a pytest.fail: its ClaimEnd, or a kit's setup_error (a formula claim that needs the weights)
    _SHOWN = {FormulaError: "formula error: ", pytest.fail.Exception: ""}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stash[RESULT_KEY] = stated_result(self.claim, formula=self.claim.formula)

    def runtest(self) -> None:
        claim = self.claim
        recorder = recorder_for(self, claim)
        book = (
            run_state(self.config).book() if other_chapters(claim) else None
        )  # ch15:C10.stated: in the book
        result = evaluate_claim(
            claim, self.registry, book
        )  # a FormulaError is an error of the claim, not a verdict
        conditions = {text: sides for text, _, sides in result.conditions}
        recorder.detail(formula=claim.formula, precision=claim.precision, conditions=conditions)
        for evidence in formula_evidence(result.value, result.conditions):  # what-if asks the same judge
            recorder.decide(evidence)


#: registry ``needs`` -> marker added to every test of the claim, so -m works from the registry alone
NEED_MARKERS = {"weights": "pretrained", "gpu": "gpu", "time": "timing"}


def add_need_markers(item: pytest.Item, needs: Iterable[str]) -> None:
    for need in needs:
        if need in NEED_MARKERS:
            item.add_marker(NEED_MARKERS[need])


def add_keywords(item: pytest.Item, reg: Registry | None, cid: str) -> None:
    """``-k C18``, ``-k ch15:C18`` and ``-k ch15`` select the claim's tests (and its placeholder)."""
    item.extra_keyword_matches.add(cid)
    if reg is not None:
        item.extra_keyword_matches.update((reg.key(cid), reg.chapter_id))

"""The claims page's content, from a ``claims.json`` alone (and its plots): one :class:`Chapter`
line per chapter, then one :class:`Row` per claim, grouped by the chapter's ``[[sections]]``."""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from claimcheck import outcomes as oc
from claimcheck.display import counted
from claimcheck.pages import manuscript_view, words
from claimcheck.results import ChapterInfo, ClaimEntry, ClaimsDoc, relative_inside, safe_link
from claimcheck.runs import settings_size_profile

#: the largest plot file the page embeds (bytes); a larger one is said in its row, not read
MAX_PLOT_BYTES = 16 * 2**20


@dataclass
class Plot:
    name: str
    src: str = ""  # a data: URI (the page is self-contained)
    missing: str = ""  # why there is no image


@dataclass
class SectionView:
    id: str
    title: str
    heading: str
    rows: list[Row]
    href: str = ""  # the heading's line in the manuscript page
    chapter: str = ""

    @property
    def anchor(self) -> str:
        return f"section-{self.chapter}-{self.id}" if self.chapter else f"section-{self.id}"


def _plot(p: dict, base: Path) -> Plot:
    """A row's plot as a data URI, read only from a small regular file inside ``base``, or why not."""
    name = str(p.get("name") or "plot")
    if p.get("png_base64"):
        return Plot(name, "data:image/png;base64," + str(p["png_base64"]))
    file = p.get("file")
    if not file:
        return Plot(name, missing="no file recorded")
    path = base / file
    if not relative_inside(file) or not within(path, base):
        return Plot(name, missing=f"{file}: not read: it is not inside the results file's folder")
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return Plot(name, missing=f"{path}: not read: not a regular file")
        if info.st_size > MAX_PLOT_BYTES:
            return Plot(name, missing=f"{path}: not read: {info.st_size} bytes, over {MAX_PLOT_BYTES}")
        data = path.read_bytes()[: MAX_PLOT_BYTES + 1]
    except OSError as exc:
        return Plot(name, missing=f"{path}: {exc.strerror or exc}")
    return Plot(name, "data:image/png;base64," + base64.b64encode(data).decode("ascii"))


def within(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path``, links resolved, lies inside ``folder`` (False when it cannot be resolved)."""
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError, ValueError):
        return False


class Row:
    """One claim's row: its entry (id, key, title, note, model as the entry has them) and its words."""

    order = 0  # ClaimsView numbers the rows in the book's order

    def __init__(
        self, entry: ClaimEntry, base: Path, manuscript: manuscript_view.ManuscriptView | None = None
    ) -> None:
        usable = entry.outcome in oc.OUTCOMES  # an unusable entry keeps its row, shown as broken
        self.entry = entry
        self.outcome = entry.outcome if usable else oc.ERROR
        reason = words.reason_words(entry)
        if not usable:
            reason = entry.reason or f"unusable outcome {entry.outcome!r} in the results file"
        self.reason, self.reason_more = words.first_sentence(reason)
        # the chapter's value as printed, or "" (then `statement` is the chapter's words)
        chapter = words.chapter_value(entry)
        if entry.model:  # the portable-LM lane: "stated" is the portable form's expectation for that model
            chapter = f"{chapter} (for this model)" if chapter else "(property of any causal LM)"
        self.chapter = chapter
        self.statement = "" if self.chapter or not entry.locator else words.quoted(entry.locator)
        self.here = words.measured_value(entry)
        # a formula's or a quote's: where its value comes from, said beside the "here" cell's value
        self.source = manuscript_view.value_source(entry)
        self.bar = words.bar_words(entry)
        self.margin = words.margin(entry)
        self.ci = words.ci_words(entry)
        self.needs = words.need_tags(entry)
        self.plots = [_plot(p, base) for p in entry.plots]
        carried = entry.carried  # a row kept from an earlier run: which, and why
        self.carried = "" if carried is None else f"from the run of {carried.from_ or '?'}"
        if carried is not None and carried.why:
            self.carried += f"; {carried.why}"
        self.drift = "; ".join(words.drift_words(entry))
        # [(line, href)] into the manuscript page: one link per line the claim's marks are on
        marks = manuscript.by_claim.get(entry.id, []) if manuscript is not None else []
        href = manuscript.href if manuscript is not None else ""
        self.text_links = sorted({m.line: f"{href}#{m.anchor}" for m in reversed(marks)}.items())
        # where it holds in another form than the chapter's figure
        self.form = manuscript_view.held_form(entry)
        # a failed row: the hardware it failed on (its result's fields, set where the failure was
        # decided, never read from its message) and what to do next (else the usual step)
        failed = entry.outcome == oc.FAILED
        self.hardware = entry.hardware if failed else ""
        usual = (
            f"if the text changed, update {entry.id}'s entry in its registry; if not, the chapter's "
            "figure does not hold on this runner: report it to the author"
        )
        self.next_step = (entry.next_step or usual) if failed else ""

    @property
    def verdict(self) -> bool:  # the outcome is a verdict on this runner (its margin counts)
        return self.outcome in oc.VERDICT_RANK

    @property
    def severity(self) -> int:
        return oc.SEVERITY.index(self.outcome) if self.outcome in oc.SEVERITY else len(oc.SEVERITY)


def profile_words(doc: ClaimsDoc, chapter: ChapterInfo | None = None) -> str:
    """The size profile in words: a chapter's own (``chapters[].profile``), else the run's. A profile
    names the sizes its run's claims read; where the page shows rows that run did not measure (a run
    of some claims, ``-k`` or ``-m``), it says whose claims those were ("this run's", or "an earlier
    run's" for a chapter this run did not collect) and counts the rows carried (:mod:`claimcheck.partial`
    keeps them only from a run of the same size profile)."""
    own = chapter.profile if chapter is not None else None
    prof = own if own is not None else doc.profile
    size = settings_size_profile(doc.settings) or "?"
    sel = doc.selection
    now = sel is None or chapter is None or chapter.id in (sel.chapters or [chapter.id])
    mine = [e for e in doc.claims if chapter is None or (e.chapter or chapter.id) == chapter.id]
    ran = [e for e in mine if e.selected is not False and e.carried is None]
    others = sel is not None and sel.partial and len(ran) < len(mine)
    whose = ("this run's" if now else "an earlier run's") if others else "its"
    carried = sum(e.carried is not None for e in mine) if now else 0
    kept = f"; {counted(carried, 'row')} carried from an earlier {size} run" if carried else ""
    if prof.get("description"):
        said = str(prof["description"])
        return f"{said} (what {whose} claims read{kept})" if others else said
    return f"{size} ({whose} claims use no model sizes{kept})" if own is not None else str(size)


def _selection_words(doc: ClaimsDoc) -> str:
    sel = doc.selection
    if sel is None or not sel.partial:
        return ""
    ran = sel.selected
    if len(doc.chapter_list()) == 1:  # one chapter on the page: its short ids are clear
        ran = [k.split(":", 1)[-1] for k in ran]
    text = f"This run selected {len(ran)} of {len(doc.claims)} claims ({', '.join(ran[:8])}{'…' if len(ran) > 8 else ''})."
    if sel.carried:
        text += f" {len(sel.carried)} rows are kept from the run of {words.carried_times(doc.claims)} and marked so."
    if sel.not_carried_because:
        text += f" Earlier results were not kept: {sel.not_carried_because}."
    return text


def _checked_in_run(doc: ClaimsDoc, chapter: str) -> str:
    """A chapter's manuscript as the run checked it, from ``claims.json`` alone, when its text could
    not be read again (moved, changed since, outside the report's folder): ``""`` when none was checked."""
    runs = doc.manuscripts or []
    mine = [m for m in runs if m.get("chapter") in (chapter, None, "")]  # another chapter's is not its
    if not mine:
        return ""
    audit = mine[0].get("audit") or {}  # an object: parse_document drops a record whose audit is not one
    said = ", ".join(f"{audit[k]} {k}" for k in _AUDIT_COUNTS if isinstance(audit.get(k), int))
    return f"checked in the run{': ' + said if said else ''} (the annotated text was not rendered again)"


#: the audit's counts in claims.json, named as they are, in the order the page says them
_AUDIT_COUNTS = ("numbers", "bound", "waived", "unbound")


def _manuscript_words(manuscript: manuscript_view.ManuscriptView) -> str:
    counts = manuscript.counts
    return (
        f"{len(manuscript.numbers)} numbers, {manuscript.bound} bound, {counts.get('waived', 0)} waived, "
        f"{counts.get('unbound', 0)} unbound, {counts.get('drifted', 0)} numbers drifted"
    )


def citation_words(entries: Iterable[ClaimEntry], chapter: str, book: set[str]) -> list[str]:
    """A chapter's quotes ("C05 quotes ch15:C10 (drifted)"), then its quotes by others ("C10 quoted by ch90:C05")."""
    out, quoted = [], []
    for e in entries:
        if not e.cites:
            continue
        source_chapter, _, source_id = e.cites.partition(":")
        drifted = " (drifted)" if e.drifted else ""
        if (e.chapter or "") == chapter:
            # the page knows the chapters of its report, not the book: the check says whether it is in it
            said = drifted if source_chapter in book else " (source not in this report)"
            out.append(f"{e.id} quotes {e.cites}{said}")
        elif source_chapter == chapter:
            quoted.append(f"{source_id or chapter} quoted by {e.key}{drifted}")
    return out + quoted


class Chapter:
    """One chapter's line of the book table, and its sections with their rows (claims without a section last)."""

    def __init__(
        self,
        doc: ClaimsDoc,
        ch: ChapterInfo,
        single: bool,
        manuscript: manuscript_view.ManuscriptView | None,
        base: Path,
    ) -> None:
        cid = self.id = ch.id
        self.title = ch.title
        mine = [e for e in doc.claims if (e.chapter or "") == cid or (single and not e.chapter)]
        mine_s = [s for s in doc.sections if (s.chapter or cid) == cid]
        sections = {
            s.id: SectionView(s.id, s.title or s.id, s.heading or "", [], chapter=cid) for s in mine_s
        }
        other = SectionView("other", "Other claims", "", [], chapter=cid)
        for e in mine:
            sections.get(e.section or "", other).rows.append(Row(e, base, manuscript))
        self.sections = [s for s in (*sections.values(), other) if s.rows]
        for s in self.sections:  # a section's heading links to the first line of its first claim in the text
            lines = [ln for r in s.rows for ln, _ in r.text_links]  # none without a manuscript
            if lines and manuscript is not None:
                s.href = f"{manuscript.href}#L{min(lines)}"
        self.rows = [r for s in self.sections for r in s.rows]  # its claims' rows, section by section
        self.counts = list(oc.count(r.outcome for r in self.rows).items())
        self.profile = profile_words(doc, ch)
        # "97 numbers, 60 bound, ... drifted" when its manuscript was checked
        self.manuscript = _manuscript_words(manuscript) if manuscript else _checked_in_run(doc, cid)
        self.manuscript_href = manuscript.href if manuscript else ""
        self.drifted_claims = [r.entry.id for r in self.rows if r.drift]  # beside its counts
        # its rows kept from an earlier run, by outcome: "2 passed" (not among the others)
        self.carried = ", ".join(
            f"{n} {oc.label(o)}" for o, n in oc.count(r.outcome for r in self.rows if r.carried).items()
        )
        # its quotes of other chapters and theirs of it
        self.citations = citation_words(doc.claims, cid, {c.id for c in doc.chapter_list()})

    @property
    def drifted(self) -> int:
        return len(self.drifted_claims)

    @property
    def anchor(self) -> str:
        return f"chapter-{self.id}"


class ClaimsView:
    """The claims page of a ``claims.json`` (arguments as :func:`claimcheck.pages.claims_page`'s): one
    :class:`Chapter` line per chapter, then its sections' rows."""

    def __init__(
        self,
        doc: ClaimsDoc,
        base_dir: str | os.PathLike[str],
        manuscripts: Sequence[manuscript_view.ManuscriptView] = (),
        test_log: str | None = None,
    ) -> None:
        single = len(doc.chapter_list()) == 1
        by_chapter_ms = {getattr(m, "chapter", ""): m for m in manuscripts}
        first = manuscripts[0] if manuscripts else None
        self.chapters = [
            Chapter(doc, ch, single, by_chapter_ms.get(ch.id) or (first if single else None), Path(base_dir))
            for ch in doc.chapter_list()
        ]
        for n, row in enumerate(self.rows):  # the book's order, for sorting back to it
            row.order = n
        counts = oc.count(r.outcome for r in self.rows)
        self.counts = list(counts.items())
        self.outcomes = [o for o in oc.OUTCOMES if o in counts]  # outcomes present, in the vocabulary's order
        needs_present = {t for r in self.rows for t in r.needs}
        # (filter key, label) of the needs present
        self.needs = [(key, label) for key, label in words.NEED_FILTERS.values() if key in needs_present]
        # claims whose manuscript prints another figure: beside the counts, a filter of its own
        self.drifted = sum(1 for r in self.rows if r.drift)
        self.title = f"claimcheck: the {'chapter' if single else 'book'}'s claims on this runner"
        self.chapter = (
            self.chapters[0].title if single else f"The book's claims: {len(self.chapters)} chapters"
        )
        self.generated = doc.generated or ""
        self.wall_s = doc.wall_s
        self.runner = words.runner_line(doc.runner)
        self.profile = profile_words(doc)
        self.weights = words.weights_line(doc.runner)
        self.sentences = words.outcome_sentences(doc.claims, doc.runner, manuscript_view.figure_state)
        self.problems = [i for reg in doc.registries for i in reg.issues]
        self.test_log = safe_link(test_log if test_log is not None else doc.test_log)
        said = _manuscript_words(first).replace(" bound,", " bound to claims,", 1) if first else ""
        self.manuscript = first.href if first else ""
        self.manuscript_line = f"{first.path}: {said}" if first else ""
        self.selection = _selection_words(doc)
        self.interrupted = words.interrupted_words(doc)  # what an interrupted run decided and did not reach
        # (which and why, the command that runs them)
        self.deselected = [words.deselected_words(g, not single) for g in doc.deselected or []]
        self.language = chapter_language(
            doc
        )  # the chapter's language ([chapter] language): lang of its quoted words

    @property
    def rows(self) -> list[Row]:
        return [r for c in self.chapters for r in c.rows]

    @property
    def id_chars(self) -> int:
        """The longest claim id shown, in characters (the id column's CSS ``--id-chars``)."""
        return max((len(r.entry.id) for r in self.rows), default=3)


def chapter_language(doc: ClaimsDoc, registry_path: str | None = None) -> str:
    """The ``[chapter] language`` of the document's registry (of ``registry_path`` when given and
    present), e.g. ``"zh"``, or ``""``: the ``lang`` of the chapter's own words on the pages."""
    regs = doc.registries
    mine = [r for r in regs if registry_path is not None and r.path == str(registry_path)] or regs
    langs = (str(reg.chapter.get("language") or "").strip() for reg in mine)
    return next((lang for lang in langs if lang), "")

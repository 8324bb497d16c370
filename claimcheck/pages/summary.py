"""CI surfaces: a Markdown table for ``$GITHUB_STEP_SUMMARY`` and GitHub annotations.

:func:`markdown` turns a ``claims.json`` (one runner) or a ``matrix.json`` (``claimcheck merge
--json``, several runners) into a Markdown summary with one row per claim. :func:`annotations`
turns a ``claims.json`` into GitHub workflow commands (``::error file=...,line=...::...``) at the
place to fix: the manuscript line of a drift, the registry line of a registry problem, the test
of a failed claim. Standard library only.
"""

# No `from __future__ import annotations` here: it binds the module name `annotations`, which is
# this module's function of that name (a type checker then sees the import, not the function).
import os
from pathlib import Path

from claimcheck import outcomes as oc
from claimcheck.display import workflow_escape
from claimcheck.pages import words

#: how each outcome shows in Markdown (GitHub renders the emoji)
MARK = {
    oc.PASSED: "✅",
    oc.FAILED: "❌",
    oc.INCONCLUSIVE: "❔",
    oc.NEAR_TIE: "🟡",
    oc.ERROR: "💥",
    oc.SKIPPED: "⏭️",
    oc.NOT_RUN: "⬜",
}


def is_matrix(doc: dict) -> bool:
    """Whether a document is ``claimcheck merge --json``'s matrix (else a run's ``claims.json``)."""
    return isinstance(doc.get("runners"), list) and all(
        isinstance(c, dict) and "cells" in c for c in doc.get("claims") or []
    )


def _cell(text) -> str:
    text = " ".join(str(text or "").split())
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def badge(outcome: str) -> str:
    """An outcome as Markdown: its mark and its label."""
    return f"{MARK.get(outcome, '❓')} {oc.label(outcome)}"


def markdown(doc: dict) -> str:
    """The Markdown summary of a ``claims.json`` or a matrix document: counts, one sentence per
    outcome, and a table with a row for every claim id."""
    if is_matrix(doc):
        return _matrix_markdown(doc)
    from claimcheck.pages.claims_view import _profile_words, chapters_of

    entries = [e for e in doc.get("claims") or [] if isinstance(e, dict) and isinstance(e.get("id"), str)]
    runner = doc.get("runner")
    if not isinstance(runner, dict):
        runner = {}
    counts = oc.count(e.get("outcome") for e in entries)
    chapters = chapters_of(doc)
    title = chapters[0]["title"] if len(chapters) == 1 else f"the book, {len(chapters)} chapters"
    lines = [
        f"### claimcheck{': ' + title if title else ''}",
        "",
        " · ".join(f"{badge(o)} **{n}**" for o, n in counts.items())
        + (f" · Δ drifted **{len(doc['drifted'])}**" if doc.get("drifted") else ""),
        "",
        f"Runner: {words.runner_line(runner)}  ",
    ]
    if len(chapters) == 1:
        lines += [f"Profile: {_profile_words(doc, chapters[0])}", ""]
    else:
        lines += ["", "| Chapter | Claims | Profile |", "|---|---|---|"]
        for ch in chapters:
            mine = [e for e in entries if e.get("chapter") == ch["id"]]
            lines.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (
                        f"**{ch['id']}** {ch.get('title') or ''}",
                        " · ".join(
                            f"{badge(o)} {n}" for o, n in oc.count(e.get("outcome") for e in mine).items()
                        ),
                        _profile_words(doc, ch),
                    )
                )
                + " |"
            )
        lines.append("")
    lines += [f"- {s}" for s in words.outcome_sentences(entries, runner)]
    sel = doc.get("selection") or {}
    if isinstance(sel, dict) and sel.get("partial") and sel.get("carried"):
        lines.append(
            f"- This run ran {len(sel.get('selected') or [])} claims; {len(sel.get('carried') or [])} rows "
            f"are carried from the run of {sel.get('carried_from') or '?'} (counts include them)"
        )
    several = len(chapters) > 1
    for ch in chapters:
        mine = [
            e
            for e in entries
            if (e.get("chapter") or "") == ch["id"] or (not several and not e.get("chapter"))
        ]
        if several:
            lines += ["", f"#### {ch['id']}: {ch.get('title') or ''}"]
        lines += _claim_table(mine)
    return "\n".join(lines) + "\n"


def _claim_table(entries: list[dict]) -> list[str]:
    lines = ["", "| Claim | Verdict | Chapter | Here | Bar | Margin | Why |", "|---|---|---|---|---|---|---|"]
    for e in entries:
        m = words.margin(e)
        here = words.measured_value(e) or "—"
        if e.get("carried"):
            here += f" (run of {e['carried'].get('from')})"
        chapter_value = words.chapter_value(e) or (
            words.quoted(str(e["locator"])) if e.get("locator") else ""
        )
        lines.append(
            "| "
            + " | ".join(
                _cell(x)
                for x in (
                    f"**{e['id']}** {e.get('title') or ''}",
                    badge(e.get("outcome", "")) + (" · Δ drifted" if e.get("drifted") else ""),
                    chapter_value,
                    here,
                    words.bar_words(e),
                    m.text if m else "",
                    _short(words.reason_words(e)),
                )
            )
            + " |"
        )
    return lines


def _matrix_markdown(doc: dict) -> str:
    runners = [r for r in doc.get("runners") or [] if isinstance(r, dict)]
    labels = [str(r.get("label") or r.get("path") or "?") for r in runners]
    lines = [f"### claimcheck: {len(doc.get('claims') or [])} claims × {len(labels)} runners", ""]
    split = doc.get("split") or []
    lines.append(f"Pass on one runner, fail on another: {', '.join(split) if split else 'none'}")
    for err in doc.get("errors") or []:
        lines.append(f"- ⚠️ {_short(err, 300)}")
    lines += [
        "",
        "| Claim | Chapter | " + " | ".join(_cell(x) for x in labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for c in doc.get("claims") or []:
        cells = c.get("cells") or {}
        outs = {(cells.get(lb) or {}).get("outcome") for lb in labels}
        flag = " ⚠️ split" if c.get("split") else (" ≠" if len(outs) > 1 else "")
        row = [
            f"**{c.get('key') or c.get('id')}**{flag} {c.get('title') or ''}",
            words.with_unit(str(c.get("stated") or ""), c.get("unit")),
        ]
        for lb in labels:
            cell = cells.get(lb) or {"outcome": oc.NOT_RUN}
            value = (
                words.measured_value({**cell, "unit": c.get("unit")}) or cell.get("measured_display") or ""
            )
            row.append(
                f"{badge(cell.get('outcome', ''))} {value}{' · Δ drifted' if cell.get('drifted') else ''}".strip()
            )
        lines.append("| " + " | ".join(_cell(x) for x in row) + " |")
    return "\n".join(lines) + "\n"


# --- annotations ----------------------------------------------------------------------------------
_escape_data = workflow_escape  # the one escaping of workflow-command data (claimcheck.display)


def _escape_prop(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(
    level: str, message: str, file: str | None = None, line: int | None = None, title: str = ""
) -> str:
    """One GitHub workflow command (``::error file=F,line=N,title=T::message``), escaped."""
    props = []
    if file:
        props.append(f"file={_escape_prop(file)}")
    if line:
        props.append(f"line={int(line)}")
    if title:
        props.append(f"title={_escape_prop(title)}")
    return (
        f"::{level} {','.join(props)}::{_escape_data(message)}"
        if props
        else f"::{level}::{_escape_data(message)}"
    )


def _rel(path, base: Path) -> str:
    """A path as GitHub wants it: relative to the workspace (``base``) when inside it."""
    p = Path(str(path))
    try:
        rel = os.path.relpath(p.resolve(), base.resolve())
    except ValueError:
        return str(p)
    return str(p) if rel.startswith("..") else Path(rel).as_posix()


def annotations(doc: dict, base=".") -> list[str]:
    """GitHub annotations for a ``claims.json``: drift at the manuscript line, registry problems at
    the registry line, failed and broken claims at their test (inconclusive ones as warnings),
    numbers bound to no claim at their manuscript line. A matrix document gives none."""
    if is_matrix(doc):
        return []
    base = Path(base)
    out: list[str] = []
    registries = [r for r in doc.get("registries") or [] if isinstance(r, dict)]
    registry_of = {
        str(r.get("chapter_id") or (r.get("chapter") or {}).get("id") or ""): str(r.get("path"))
        for r in registries
        if r.get("path")
    }
    first_registry = str(registries[0].get("path")) if registries else None
    several = len(registry_of) > 1
    for reg in registries:
        problems = reg.get("problems")
        if isinstance(problems, list):
            for p in problems:
                if isinstance(p, dict):
                    out.append(
                        command(
                            "error",
                            p.get("message", ""),
                            _rel(reg.get("path"), base),
                            p.get("line"),
                            "registry problem",
                        )
                    )
        else:
            out += [
                command("error", str(i), _rel(reg.get("path"), base), None, "registry problem")
                for i in reg.get("issues") or []
            ]
    for e in doc.get("claims") or []:
        if not isinstance(e, dict) or not isinstance(e.get("id"), str):
            continue
        cid, outcome = words.claim_name(e, several), e.get("outcome")
        registry = registry_of.get(str(e.get("chapter") or ""), first_registry)
        drift = (e.get("details") or {}).get("drift")
        if isinstance(drift, dict):
            verdict = f"; its measurement: {oc.label(str(outcome))}" if outcome in oc.OUTCOMES else ""
            bad = [
                q
                for q in drift.get("quotes") or []
                if isinstance(q, dict) and q.get("status") not in ("ok", "in-words")
            ]
            for q, said in zip(bad, words.drift_words(e)):
                if q.get("status") == "drift" and q.get("line"):
                    out.append(
                        command(
                            "error",
                            f"{said}{verdict}",
                            _rel(drift.get("manuscript"), base),
                            q.get("line"),
                            f"{cid} drifted",
                        )
                    )
                else:
                    out.append(
                        command(
                            "error",
                            said,
                            _rel(registry, base) if registry else None,
                            e.get("registry_line"),
                            f"{cid} locator {q.get('status')}",
                        )
                    )
        if outcome in (oc.FAILED, oc.ERROR, oc.INCONCLUSIVE):
            loc = next((x for x in e.get("locations") or [] if isinstance(x, dict) and x.get("file")), None)
            file, line = (loc["file"], loc.get("line")) if loc else (registry, e.get("registry_line"))
            said = {
                oc.FAILED: "does not hold",
                oc.ERROR: "could not be checked",
                oc.INCONCLUSIVE: "is undecided",
            }[outcome]
            facts = ", ".join(
                x
                for x in (
                    f"chapter {words.chapter_value(e)}" if words.chapter_value(e) else "",
                    f"here {words.measured_value(e)}" if words.measured_value(e) else "",
                    f"bar {words.bar_words(e)}",
                )
                if x
            )
            reason = _short(words.reason_words(e), 400)
            out.append(
                command(
                    "warning" if outcome == oc.INCONCLUSIVE else "error",
                    f"{facts}. {reason}".strip(),
                    _rel(file, base) if file else None,
                    line,
                    f"{cid} {said}",
                )
            )
    for m in doc.get("manuscripts") or []:
        if not isinstance(m, dict):
            continue
        for n in (m.get("audit") or {}).get("unbound_numbers") or []:
            out.append(
                command(
                    "warning",
                    f"{n.get('text')} is bound to no claim and not waived: {n.get('context')}",
                    _rel(m.get("path"), base),
                    n.get("line"),
                    "unbound number",
                )
            )
        for p in (m.get("audit") or {}).get("problems") or []:
            out.append(
                command(
                    "error",
                    str(p),
                    _rel(m.get("registry"), base) if m.get("registry") else None,
                    None,
                    "waiver problem",
                )
            )
    return out

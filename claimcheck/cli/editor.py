"""``claimcheck check-manuscript`` and ``claimcheck what-if``, the editors' subcommands (their
descriptions below say what each does; the work is in :mod:`claimcheck.editor`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claimcheck.book import BookError, book_of, load_book, locate, project_of, registry_for_manuscript
from claimcheck.cli.main import _say, error
from claimcheck.display import json_text, printable
from claimcheck.editor import drifted_revisions, format_check, report_measured, run_what_if
from claimcheck.fileio import write_atomic
from claimcheck.manuscript import ManuscriptCheck, ManuscriptError, check_manuscript
from claimcheck.outcomes import PASSED
from claimcheck.pages import load_document, manuscript_page, manuscript_view_of, relative_href
from claimcheck.registry import Registry, load_registry
from claimcheck.results import ClaimsDoc, ResultFileError
from claimcheck.settings import stated_override

#: where the chapters' registries are looked for when --registry is not given (claimcheck.book)
CLAIMS_DIR = "claims"
DEFAULT_REPORT = "reports/claims.json"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _register_check_manuscript(subparsers)
    _register_what_if(subparsers)


def _register_check_manuscript(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "check-manuscript",
        help="check a manuscript against the registry: drift and number audit",
        description="For every claim, find its locators in the manuscript and compare the numbers printed "
        "there with the registry; list every number bound to no claim and not waived. "
        "No measurement is run. Exit 1 on drift, a missing locator, coverage below 100% or "
        "a registry problem.",
    )
    p.add_argument(
        "manuscript",
        metavar="PATH",
        nargs="*",
        help="the manuscript(s), plain text or Markdown, UTF-8: each is checked against its chapter's "
        "registry (the one whose [chapter] manuscript has its name)",
    )
    p.add_argument(
        "--book",
        metavar="DIR",
        help="check every chapter whose manuscript ([chapter] manuscript) lies in DIR",
    )
    p.add_argument(
        "--registry",
        metavar="PATH",
        help=f"the claims registry (default: found under {CLAIMS_DIR}/ from the manuscript's name)",
    )
    p.add_argument(
        "--report",
        metavar="FILE",
        help=f"a claims.json whose measured values are shown beside drift (default: {DEFAULT_REPORT} of the "
        "registry's project, if present); one that cannot be read is a warning",
    )
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the result as JSON to FILE ('-': the JSON alone on stdout, the words on stderr)",
    )
    p.add_argument(
        "--html",
        nargs="?",
        const="",
        metavar="FILE",
        help="also write the annotated manuscript: every number marked by its state, linked to its "
        "claim's row in the claims page beside --report (default FILE: NAME.annotated.html beside the "
        "manuscript NAME.EXT, never the chapter's own reports/manuscript.html)",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="list every quoted number and every number's binding"
    )
    p.set_defaults(func=_check_manuscript)


def _register_what_if(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    w = subparsers.add_parser(
        "what-if",
        help="re-run named claims with revised stated values",
        description="Re-run only the named claims with revised stated values (e.g. C05=58) and say, for each, "
        "whether this runner's measurement supports it and the figure the measurement suggests "
        "at the revised value's printed precision. Runs pytest in a subprocess from the project root.",
    )
    w.add_argument(
        "revisions",
        nargs="*",
        metavar="ID=VALUE",
        help="a claim (ch15:C05, or C05 where one chapter declares it) and its revised printed value",
    )
    w.add_argument(
        "--manuscript",
        metavar="PATH",
        help="check every figure this manuscript prints differently from the registry (its drift), "
        "as if each were given as ID=VALUE; the registry is found as check-manuscript finds it",
    )
    w.add_argument(
        "--registry",
        metavar="PATH",
        help=f"the claims registry (default: every chapter's under {CLAIMS_DIR}/)",
    )
    w.add_argument(
        "--claims", default="claims", metavar="DIR", help="the claims folder pytest runs (default: claims)"
    )
    w.add_argument(
        "--profile",
        choices=("quick", "standard", "full"),
        help="sizes of timing claims (default: the run's default, standard)",
    )
    w.add_argument("--runner", metavar="NAME", help="this machine's runner profile (default: none)")
    w.add_argument(
        "--report-dir", metavar="DIR", help="keep the run's reports here (default: a temporary folder)"
    )
    w.add_argument("--json", metavar="FILE", help="also write the answers as JSON to FILE ('-' for stdout)")
    w.set_defaults(func=_what_if)


def write_json(data: object, dest: str) -> bool:
    """Print ``data`` as indented JSON (``dest`` ``-``) or write it atomically to ``dest``; False after an
    error naming it."""
    text = json_text(data)
    if dest == "-":
        print(text)
        return True
    try:
        write_atomic(Path(dest), text + "\n")
    except OSError as exc:
        error(f"cannot write {dest}: {exc.strerror or exc}")
        return False
    return True


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]] | None:
    """(manuscript, registry) pairs to check: each named, or ``--book DIR``'s; None: said why none."""
    if not args.manuscript and not args.book:
        error("name a manuscript (or several), or --book DIR")
        return None
    pairs = []
    if args.book:
        book = load_book(locate(CLAIMS_DIR, args.book + "/x"))
        for reg in book:
            name = reg.chapter.get("manuscript")
            if isinstance(name, str) and (Path(args.book) / Path(name).name).is_file():
                pairs.append((str(Path(args.book) / Path(name).name), reg.path))
        if not pairs:
            listed = "; ".join(f"{r.chapter_id}: {r.chapter.get('manuscript') or '(none)'}" for r in book)
            error(
                f"--book {args.book}: none of the chapters' manuscripts is there ({listed or f'no registry under {CLAIMS_DIR}/'})"
            )
            return None
    for manuscript in args.manuscript:
        try:
            pairs.append((manuscript, args.registry or str(registry_for_manuscript(manuscript, CLAIMS_DIR))))
        except BookError as exc:
            error(f"{manuscript}: {exc}")
            return None
    return pairs


def _check_manuscript(args: argparse.Namespace) -> int:
    """The words go to stdout, or to stderr under ``--json -`` (stdout then carries the JSON alone)."""
    words = sys.stderr if args.json == "-" else sys.stdout
    pairs = _pairs(args)
    if pairs is None:
        return 2
    results, code = [], 0
    for manuscript, registry in pairs:
        reg = load_registry(registry)
        if not reg.claims and reg.issues:
            for issue in reg.issues:
                _say(f"error: {issue}", file=sys.stderr)
            return 2
        report = args.report or _default_report(registry)
        try:
            check = check_manuscript(manuscript, reg, book_of([reg], CLAIMS_DIR))
        except ManuscriptError as exc:
            return error(str(exc))
        if len(pairs) > 1:
            _say(f"== {reg.chapter_id}: {manuscript} against {registry}", file=words)
        measured, report_error = report_measured(
            report, given=args.report is not None, chapter=reg.chapter_id
        )
        what_if = f"claimcheck what-if --manuscript {manuscript}" + (
            f" --registry {args.registry}" if args.registry else ""
        )
        said = format_check(check, measured, verbose=args.verbose, report_error=report_error, what_if=what_if)
        print(printable(said, lines=True), file=words)
        if args.html is not None:
            # beside the text checked, so that a copy's page never replaces the chapter's own
            out = Path(args.html or Path(manuscript).with_suffix(".annotated.html"))
            if args.html and len(pairs) > 1:  # one page per chapter: m-ch15.html, m-ch16.html
                out = out.with_name(f"{out.stem}-{reg.chapter_id}{out.suffix}")
            if _manuscript_html(check, reg, report, out, readable=report_error is None) is None:
                return 2
            _say(f"annotated manuscript: {out}", file=words)
        read = report_error is None and Path(report).is_file()
        results.append(
            check.as_dict()
            | {"report": {"path": report, "error": report_error, "read": read}}
            | {"claims": {d.claim_id: [q.as_dict() for q in d.checks] for d in check.drifts}}
        )
        code = max(code, 0 if check.ok else 1)
    if args.json and not write_json(results[0] if len(results) == 1 else {"chapters": results}, args.json):
        return 2
    return code


def _what_if(args: argparse.Namespace) -> int:
    revisions = []
    for r in args.revisions:
        try:  # the "%" kept: what-if refuses a percentage for a claim that is not in percent
            cid, value = stated_override(r)
        except ValueError as exc:
            return error(f"{r}: {exc}" if "=" in str(r) else str(exc))
        revisions.append((cid, value + "%" if str(r).rstrip().endswith("%") else value))
    cwd = None
    inputs: dict[str, dict[str, str]] = {}
    unjudged = 0
    if args.manuscript:
        found, inputs, registry, unjudged = _drift_of(args.manuscript, args.registry)
        if found is None:
            return 2
        if not args.registry:  # run where the found registry's project is, from any folder
            cwd = project_of(registry, args.claims)
        named = {name for name, _ in revisions}
        revisions += [
            (key, value) for key, value in found if key not in named and key.split(":")[-1] not in named
        ]
        if not revisions and not inputs:
            if unjudged:
                return _unjudged(unjudged)
            _say(f"{args.manuscript}: no figure drifts from the registry: nothing to check")
            return 0
    elif not revisions:
        return error("name the claims to check (ID=VALUE ...), or --manuscript PATH for every drifted figure")
    try:
        answers = run_what_if(
            revisions, args.registry, args.claims, args.profile, args.runner, args.report_dir, cwd, inputs
        )
    except (KeyError, ValueError, RuntimeError) as exc:  # a KeyError's words, not their repr
        return error(f"{exc.args[0] if exc.args else exc}")
    for a in answers:
        print(printable(a.verdict, lines=True))
    if args.json:
        rows = [
            {"id": a.claim_id, "revised": a.revised, "registry": a.previous, "outcome": a.outcome}
            | {"measured": a.measured, "measured_display": a.measured_display, "unit": a.unit}
            | {"tolerance": a.tolerance, "suggested": a.suggested, "reason": a.reason, "verdict": a.verdict}
            | {"quoted_by": [{"key": c.key, "status": c.status, "words": c.words} for c in a.quoted_by]}
            for a in answers
        ]
        if not write_json(rows, args.json):
            return 2
    drifted = any(c.failed for a in answers for c in a.quoted_by)
    if unjudged:
        return _unjudged(unjudged)
    return 0 if all(a.outcome == PASSED for a in answers) and not drifted else 1


def _unjudged(n: int) -> int:
    """Say that ``n`` figures of the text were left unjudged (each named in a note above); exit 1."""
    print(f"{n} figure{'' if n == 1 else 's'} of the text not judged (see the notes above)")
    return 1


def _default_report(registry: str | Path) -> str:
    """``reports/claims.json`` of the registry's project (the folder holding ``claims/``) unless here."""
    project = project_of(registry, CLAIMS_DIR)
    if project is None or Path(DEFAULT_REPORT).is_file():
        return DEFAULT_REPORT
    return str(project / DEFAULT_REPORT)


def _drift_of(
    manuscript: str, registry: str | None
) -> tuple[list[tuple[str, str]] | None, dict[str, dict[str, str]], str, int]:
    """``(revisions, inputs, registry path, figures left unjudged)`` of a manuscript's drift, notes
    printed (one per unjudged figure, or group of unfound locators); None: said why not."""
    try:
        reg = load_registry(registry or registry_for_manuscript(manuscript, CLAIMS_DIR))
        check = check_manuscript(manuscript, reg)
    except (BookError, ManuscriptError) as exc:  # a ManuscriptError names the file itself
        error(str(exc) if isinstance(exc, ManuscriptError) else f"{manuscript}: {exc}")
        return None, {}, "", 0
    missing = [q for d in check.drifts for q in d.checks if q.status in ("not-found", "ambiguous")]
    if missing and len(missing) == sum(len(d.checks) for d in check.drifts):
        error(
            f"{manuscript}: none of the {len(missing)} locators of {reg.path} is in it: is it this "
            "chapter's manuscript? (claimcheck check-manuscript lists them)"
        )
        return None, {}, "", 0
    revisions, inputs, notes = drifted_revisions(check, reg)
    unjudged = len(notes) + len(missing)
    if missing:
        notes.append(
            f"{len(missing)} locators are not found in the text (claimcheck check-manuscript lists "
            "them): their figures are not checked"
        )
    n = len(revisions)
    _say(
        f"{manuscript}: {n} stated figure{' drifts' if n == 1 else 's drift'} from {reg.path}"
        + (": " + " ".join(f"{k}={v}" for k, v in revisions) if revisions else "")
    )
    for key, given in inputs.items():
        _say(f"  {key}: the text's inputs {', '.join(f'{k} = {v}' for k, v in given.items())} (re-judged)")
    for note in notes:
        _say(f"  note: {note}")
    return revisions, inputs, reg.path, unjudged


def _manuscript_html(
    check: ManuscriptCheck, reg: Registry, report: str, out: Path, readable: bool = True
) -> Path | None:
    """Write the annotated manuscript to ``out`` (``report``'s verdicts if ``readable``); None: not written."""
    doc = None
    if readable and report and Path(report).is_file():
        try:
            loaded, _ = load_document(report)
            doc = loaded if isinstance(loaded, ClaimsDoc) else None
        except ResultFileError as exc:
            _say(f"warning: {exc}; the manuscript is shown without verdicts", file=sys.stderr)
    claims_page = Path(report).parent / "claims.html" if report else None
    href = relative_href(claims_page, out) if claims_page is not None and claims_page.is_file() else None
    view = manuscript_view_of(
        check, doc, reg.waivers, claims_href=href or "", href=relative_href(out, claims_page or out)
    )
    if href is None:
        for m in view.marks:  # no claims page to link to: the hover text still says everything
            m.href = None
    try:
        write_atomic(out, manuscript_page(view, href, has_results=doc is not None))
    except OSError as exc:
        error(f"cannot write {out}: {exc.strerror or exc}")
        return None
    return out

"""``claimcheck report`` and ``claimcheck summary``: the pages and the CI summary from a JSON alone."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from claimcheck.cli.main import _say, error
from claimcheck.cli.runs import overwrites_input
from claimcheck.pages import load_document, manuscript_checks, publish, summary
from claimcheck.results import ClaimsDoc, ResultFileError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = subparsers.add_parser(
        "report",
        help="re-render the claims page (and the annotated manuscript) from claims.json",
        description="Render claims.html from a claims.json alone (its plot files beside it), without running "
        "anything; when the run checked a manuscript inside the JSON's folder (or the one --manuscript "
        "names), re-read it and its registry and render manuscript.html too. A results file is untrusted "
        "input: no file outside its folder is read, and only http(s) or relative links are rendered. "
        "Exit 0: written; 1: written, but a manuscript could not be read; 2: the JSON is unusable "
        "(nothing written), or a field is malformed (each named on stderr; the pages are written "
        "without it).",
    )
    r.add_argument(
        "json",
        nargs="?",
        default="reports/claims.json",
        metavar="CLAIMS.json",
        help="the run's claims.json (default: reports/claims.json)",
    )
    r.add_argument(
        "-o",
        "--output",
        metavar="HTML",
        help="the claims page to write (default: claims.html beside the JSON)",
    )
    r.add_argument(
        "--manuscript",
        metavar="PATH",
        help="the manuscript, when it moved since the run (default: the one the run checked)",
    )
    r.set_defaults(func=_report)

    s = subparsers.add_parser(
        "summary",
        help="a Markdown table of a claims.json or matrix.json (for $GITHUB_STEP_SUMMARY)",
        description="Print a Markdown summary with one row per claim (claims.json: chapter value, this runner's "
        "value, the bar, the margin, why; matrix.json: one column per runner). With --annotations, "
        "print GitHub annotations instead: drift at the manuscript line, registry problems at the "
        "registry line, failed claims at their test. Exit 0; 2 when the file is unusable, or a field is "
        "malformed (each named on stderr; the summary is printed without it; --lenient: 0).",
    )
    s.add_argument(
        "json", metavar="FILE.json", help="a claims.json or a matrix.json (claimcheck merge --json)"
    )
    s.add_argument(
        "--lenient",
        action="store_true",
        help="exit 0 although fields were malformed (each is said on stderr)",
    )
    s.add_argument(
        "--annotations",
        action="store_true",
        help="print GitHub workflow commands (::error file=...,line=...::...) instead of the table",
    )
    s.set_defaults(func=_summary)


def _report(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    page = args.output or str(Path(args.json).parent / "claims.html")
    if said := overwrites_input("report", {"-o": page}, [args.json]):
        return error(said)
    try:
        doc, problems = load_document(args.json)
    except ResultFileError as exc:
        return error(str(exc))
    if not isinstance(doc, ClaimsDoc):
        return error(f"{args.json} is a matrix (claimcheck merge --json); render it with claimcheck merge")
    checks, ms_problems = manuscript_checks(doc, args.manuscript, confine=Path(args.json).parent)
    if args.manuscript and not doc.manuscripts:
        ms_problems.append(
            f"{args.json} names no manuscript check (run pytest with --claims-manuscript), "
            f"so {args.manuscript} has no registry to be checked against"
        )
    for note in doc.notes:
        _say(f"note: {note}", sys.stderr)
    for p in problems:
        _say(f"error: {p}", sys.stderr)
    for p in ms_problems:
        _say(f"warning: {p}", sys.stderr)
    try:
        written = publish(doc, args.json, checks, args.output)
    except OSError as exc:
        return error(f"cannot write the pages: {exc}")
    took = f"{len(doc.claims)} claims, {time.perf_counter() - t0:.2f} s"
    _say(f"{'  '.join(map(str, written))} ({took})", sys.stderr)
    return 2 if problems else 1 if ms_problems else 0


def _summary(args: argparse.Namespace) -> int:
    try:
        doc, problems = load_document(args.json)
    except ResultFileError as exc:
        return error(str(exc))
    for note in doc.notes if isinstance(doc, ClaimsDoc) else []:
        _say(f"note: {note}", sys.stderr)
    for p in problems:
        _say(f"{'warning' if args.lenient else 'error'}: {p}", sys.stderr)
    if args.annotations:
        for line in summary.annotations(doc, Path.cwd()):
            print(line)
    else:
        sys.stdout.write(summary.markdown(doc))
    return 2 if problems and not args.lenient else 0

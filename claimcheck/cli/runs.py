"""``claimcheck merge`` and ``claimcheck diff`` (:mod:`claimcheck.runs`). Exit codes follow diff(1):
0 fine, 1 "yes, there is something" (a regression; an unreadable input left out), 2 trouble.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from claimcheck.cli.editor import write_json
from claimcheck.cli.main import _say, error
from claimcheck.fileio import write_atomic
from claimcheck.pages import matrix_page
from claimcheck.pages.words import listed
from claimcheck.runs import MOVED, diff, load_results, matrix_json, merge


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "merge",
        help="merge claims.json files of several runners into one claim x runner page",
        description="Merge the claims.json of several runs into one self-contained HTML page: a row per "
        "claim, a column per runner (fingerprint in the header), each cell the outcome and the "
        "measured value. Claims that pass on one runner and fail on another are highlighted; "
        "a claim missing from a file shows 'not run' there. A malformed file is named on "
        "stderr and in the page, and the others are still merged. Exit 0: all files merged; "
        "1: some file was unreadable (page still written from the others); 2: no file was readable, "
        "or a field was malformed (each named on stderr; the page is written without it; --lenient: 0).",
    )
    p.add_argument("results", nargs="+", metavar="RESULTS.json", help="claims.json files, one per run")
    p.add_argument(
        "-o",
        "--output",
        default="reports/matrix.html",
        metavar="HTML",
        help="the page to write (default: reports/matrix.html)",
    )
    p.add_argument(
        "--json",
        dest="json_out",
        metavar="FILE",
        help="also write the matrix as JSON to FILE ('-' for stdout) (default: none)",
    )
    p.add_argument("--title", default="claimcheck: claims x runners", help="page title")
    p.add_argument(
        "--lenient",
        action="store_true",
        help="exit 0 although fields were malformed (each is still said on stderr)",
    )
    p.set_defaults(func=_merge)

    d = subparsers.add_parser(
        "diff",
        help="what changed between two runs; exit 1 on a regression",
        description="List claims whose outcome changed between OLD and NEW and measured values that moved "
        "beyond the claim's tolerance (printed/exact/abs/rel/range: the tolerance applied to "
        "the move; >= and <= bars: more than --bound-move of the old value). Exit 0: no "
        "regression; 1: a claim went from passed or near-tie to failed or error (or, with "
        "--fail-on-move, a value moved); 2: an input file or entry is unusable.",
    )
    d.add_argument("old", metavar="OLD.json")
    d.add_argument("new", metavar="NEW.json")
    d.add_argument(
        "--bound-move",
        type=_fraction,
        default=0.25,
        metavar="FRACTION",
        help="for one-sided tolerances (>=X, <=X): the relative move reported (default: 0.25)",
    )
    d.add_argument(
        "--fail-on-move",
        action="store_true",
        help="exit 1 also when a measured value moved beyond tolerance (default: off)",
    )
    d.add_argument(
        "--json",
        dest="json_out",
        metavar="FILE",
        help="also write the changes as JSON to FILE ('-' for stdout) (default: none)",
    )
    d.set_defaults(func=_diff)


def _fraction(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.25 or 25%, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative fraction, got {text!r}")
    return value


def overwrites_input(command: str, outputs: dict[str, str | None], inputs: Iterable[str]) -> str | None:
    """The error when an output (``{flag: path}``; ``None`` or ``-``: none) is one of the ``inputs`` (the
    same file: a link, ``..`` or a hard link to it counts), else None."""
    for flag, target in outputs.items():
        if not target or target == "-" or not os.path.exists(target):
            continue
        for source in inputs:
            with contextlib.suppress(OSError):  # an input that cannot be read is said when it is read
                if os.path.samefile(target, source):
                    return f"{flag} {target} is one of the results files {command} reads ({source}); name another file"
    return None


def _merge(args: argparse.Namespace) -> int:
    if said := overwrites_input("merge", {"-o": args.output, "--json": args.json_out}, args.results):
        return error(said)
    runs, errors = load_results(args.results)
    for exc in errors:
        _say(f"error: {exc}", sys.stderr)
    if not runs:
        return error("no readable results file; nothing written")
    matrix = merge(runs, errors)
    for note in (n for run in runs for n in run.notes):
        _say(f"note: {note}", sys.stderr)
    issues = [i for run in runs for i in run.issues]
    for issue in issues:
        _say(f"{'warning' if args.lenient else 'error'}: {issue}", sys.stderr)
    out = Path(args.output)
    try:
        write_atomic(out, matrix_page(matrix, args.title))
    except OSError as exc:
        return error(f"cannot write {out}: {exc.strerror or exc}")
    if args.json_out and not write_json(matrix_json(matrix), args.json_out):
        return 2
    split = matrix.split_ids
    _say(
        f"{out}: {len(matrix.rows)} claims x {len(runs)} runners ({', '.join(matrix.labels)}); "
        f"pass on one runner, fail on another: {', '.join(split) or 'none'}"
        + (f"; {len(errors)} unreadable file(s) left out" if errors else "")
        + (f"; {len(issues)} entry problem(s)" if issues else ""),
        sys.stderr,
    )
    return 2 if issues and not args.lenient else 1 if errors else 0


#: the widest claim key diff aligns its lines to (a longer one overruns its own line only)
ID_WIDTH = 40


def _diff(args: argparse.Namespace) -> int:
    if said := overwrites_input("diff", {"--json": args.json_out}, (args.old, args.new)):
        return error(said)
    runs, unreadable = load_results((args.old, args.new))
    if unreadable:
        return error(str(unreadable[0]))
    old, new = runs
    d = diff(old, new, bound_move=args.bound_move)
    for issue in d.issues:
        _say(f"error: {issue}", sys.stderr)
    _say(f"claimcheck diff {old.path} -> {new.path}")
    for note in old.notes + new.notes + d.runner_notes:
        _say(f"  note: {note}")
    for side, ids in d.unselected.items():
        _say(f"  {len(ids)} claims not selected in {side} ({listed(ids, 6)}): not compared")
    if d.carried:
        _say(
            f"  {len(d.carried)} claims in NEW are kept from an earlier run (marked 'carried'), not measured by it"
        )
    width = min(max((len(c.id) for c in d.changes), default=0), ID_WIDTH)  # one long key pads only itself
    for c in d.changes:
        _say(f"  {c.kind.upper() if c.kind == 'regression' else c.kind:10} {c.id:{width}}  {c.text}")
    counts = Counter(c.kind for c in d.changes)
    _say("summary: " + (", ".join(f"{v} {k}" for k, v in counts.items()) or "no changes"))
    record: dict[str, object] = dict(old=old.path, new=new.path, notes=d.runner_notes, issues=d.issues)
    record |= {"unselected": d.unselected, "carried": d.carried, "changes": [vars(c) for c in d.changes]}
    if args.json_out and not write_json(record, args.json_out):
        return 2
    return 2 if d.issues else 1 if d.regressions or (args.fail_on_move and d.of_kind(MOVED)) else 0

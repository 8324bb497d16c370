"""``claimcheck init MANUSCRIPT``: scaffold the claims registry of a new chapter
(:mod:`claimcheck.scaffold`), then check it as ``validate`` and ``check-manuscript`` would."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from claimcheck.cli.main import error
from claimcheck.display import counted
from claimcheck.fileio import write_atomic
from claimcheck.manuscript import Manuscript, ManuscriptError, check_manuscript
from claimcheck.registry import load_registry
from claimcheck.scaffold import scaffold


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "init",
        help="scaffold the claims registry of a new chapter from its manuscript",
        description="Write claims/<name>/claims.toml: every number of the manuscript becomes a draft claim "
        "(value as printed, a locator, a guessed unit, tolerance 'printed', draft = true) or a "
        "suggested waiver (chapter numbers, dates, ordinals, code), grouped by the manuscript's "
        "headings. Exit 0 when the scaffold validates and binds or waives every number, 1 when "
        "it was written but needs hand edits (listed), 2 when nothing was written.",
    )
    p.add_argument("manuscript", metavar="MANUSCRIPT", help="the chapter (plain text or Markdown, UTF-8)")
    p.add_argument(
        "--name",
        metavar="NAME",
        help="the chapter's folder under --claims-dir and its [chapter] id "
        "(default: the manuscript's file name without suffix)",
    )
    p.add_argument(
        "--claims-dir",
        default="claims",
        metavar="DIR",
        help="where chapters' registries live (default: claims)",
    )
    p.add_argument(
        "--prefix", default="C", metavar="LETTERS", help="the claim ids' prefix (default: C, ids C01, C02...)"
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing claims.toml")
    p.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    # by default, the name the manuscript's file name suggests: "GPU Memory.md" -> "gpu-memory"
    stem = re.sub(r"[^a-z0-9_]+", "-", Path(args.manuscript).stem.lower()).strip("-")
    name = args.name or stem or "chapter"
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name):
        return error(f"--name {name!r}: use letters, digits, '_', '-' or '.' (a folder name)")
    target = Path(args.claims_dir) / name / "claims.toml"
    if target.exists() and not args.force:
        return error(f"{target} exists; not overwritten (use --force to replace it)")
    try:
        ms = Manuscript.read(args.manuscript)
        sc = scaffold(ms, name, prefix=args.prefix)
    except (ManuscriptError, ValueError) as exc:
        return error(str(exc))
    try:
        write_atomic(target, sc.to_toml())
    except OSError as exc:
        return error(f"cannot write {target}: {exc.strerror or exc}")
    reg = load_registry(target)
    check = check_manuscript(ms, reg)
    a = check.audit
    print(
        f"wrote {target}: {len(sc.claims)} draft claims, {len(sc.waivers)} suggested waivers, "
        f"{len(sc.sections)} sections"
    )
    print(
        f"validate: {len(reg.claims)} valid claims, {counted(len(reg.issues), 'problem')}; check-manuscript: "
        f"{a.total} numbers, {a.count('bound')} bound, {a.count('waived')} waived, coverage {a.coverage:.1%}, "
        f"{counted(len(check.drifted), 'drift problem')}"
    )
    todo = sc.problems + [str(i) for i in reg.issues] + [d.summary() for d in check.drifted] + a.problems
    for line in todo:
        print(f"  to fix: {line}", file=sys.stderr)
    print(
        f"next: review each draft (stated, unit, tolerance, needs), write its test, remove 'draft = true'; "
        f"pytest {target.parent}/ lists every draft as not-run: no test yet"
    )
    return 0 if check.ok and not sc.problems else 1

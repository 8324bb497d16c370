"""The one reader of ``claims.json``: every command (merge, diff, report, summary, check-manuscript,
what-if) and the partial-run merge read a results file through :func:`read_document`.

``schema`` is the file's major version. 2 (this version) keys every claim by ``chapter:id``
(:mod:`claimcheck.keys`); a schema-1 file (one chapter, written before chapter keys) is still
read: its entries get the chapter of its one registry, and the document says so in
``read_note``. A newer or unknown schema is refused by name. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

#: the ``schema`` this version writes
SCHEMA = 2
#: the schemas it reads (1: one chapter, ids without a chapter)
READS = (1, 2)


class ResultFileError(Exception):
    """A results file that cannot be used at all; ``str()`` names the file and says what is wrong."""

    def __init__(self, path, message: str):
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.message = message


def read_json(path) -> dict:
    """The JSON object of a results file, with the precise words when it cannot be read.

    Raises:
        ResultFileError: missing, unreadable, not UTF-8, empty, not JSON (truncated: the message
            gives line and column), or not a JSON object.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultFileError(p, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultFileError(p, f"cannot be read ({exc})") from None
    if not text.strip():
        raise ResultFileError(p, "is empty (an interrupted run or upload?)")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = "; the file ends early: truncated?" if not text.rstrip().endswith(("}", "]")) else ""
        raise ResultFileError(
            p, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}{hint})"
        ) from None
    if not isinstance(doc, dict):
        raise ResultFileError(
            p,
            f"top level is a JSON {type(doc).__name__}, expected an object "
            "with 'runner' and 'claims' (is it a claimcheck claims.json?)",
        )
    return doc


def check_schema(doc: dict, path) -> int:
    """The document's schema (1 when absent: files written before the field).

    Raises:
        ResultFileError: a schema that is not an integer, or newer than :data:`SCHEMA`.
    """
    schema = doc.get("schema", 1)
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise ResultFileError(
            path,
            f"field 'schema' is {schema!r}, expected an integer (this claimcheck reads "
            f"{', '.join(map(str, READS))})",
        )
    if schema not in READS:
        newer = schema > SCHEMA
        raise ResultFileError(
            path,
            f"schema {schema} is {'newer than' if newer else 'not one of'} the versions this "
            f"claimcheck reads ({', '.join(map(str, READS))})"
            + ("; upgrade claimcheck to read it" if newer else ""),
        )
    return schema


#: the words of timing verdicts in files written before every verdict spoke :mod:`claimcheck.outcomes`
OLD_VERDICT_WORDS = {
    "pass": "passed",
    "fail": "failed",
    "undecided": "inconclusive",
    "machine-bound": "skipped",
}


def upgrade_words(doc: dict) -> dict:
    """Give the verdicts inside every entry's ``details`` (a timing claim's ``conditions`` and
    ``exact`` forms) the words of :mod:`claimcheck.outcomes`, in place: older files say
    ``pass``/``fail``/``undecided``."""
    for e in doc.get("claims") or []:
        details = e.get("details") if isinstance(e, dict) else None
        for part in ("conditions", "exact"):
            forms = details.get(part) if isinstance(details, dict) else None
            for form in forms.values() if isinstance(forms, dict) else ():
                if isinstance(form, dict) and form.get("verdict") in OLD_VERDICT_WORDS:
                    form["verdict"] = OLD_VERDICT_WORDS[form["verdict"]]
    return doc


def upgrade(doc: dict, path) -> dict:
    """Give every entry of a schema-1 document its chapter and key, and every document the verdict
    words of :mod:`claimcheck.outcomes` (:func:`upgrade_words`), in place (see the module docstring)."""
    from claimcheck.keys import qualify

    upgrade_words(doc)
    if check_schema(doc, path) >= 2:
        return doc
    chapter = _single_chapter(doc)
    for e in doc.get("claims") or []:
        if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]:
            e.setdefault("chapter", chapter)
            e.setdefault("key", qualify(chapter, e["id"]))
    for s in doc.get("sections") or []:
        if isinstance(s, dict):
            s.setdefault("chapter", chapter)
    doc["read_note"] = (
        f"{path}: a schema-1 report (written before claims were keyed by chapter); its claims are "
        + (f"read as chapter {chapter}" if chapter else "read by their ids alone (it names no chapter)")
    )
    return doc


def _single_chapter(doc: dict) -> str:
    """The chapter of a schema-1 report: its registry's ``[chapter] id``, else the registry's folder;
    "" when it names no registry (its claims keep their bare ids as keys)."""
    from claimcheck.keys import CHAPTER_RE

    for reg in doc.get("registries") or []:
        if not isinstance(reg, dict):
            continue
        chapter = reg.get("chapter")
        if not isinstance(chapter, dict):
            chapter = {}
        if isinstance(chapter.get("id"), str) and CHAPTER_RE.match(chapter["id"]):
            return chapter["id"]
        folder = Path(str(reg.get("path") or "")).parent.name.lower()
        if CHAPTER_RE.match(folder):
            return folder
    return ""


def read_document(path) -> dict:
    """Read a ``claims.json``: the JSON checked for its schema and its ``claims`` list, upgraded to
    the current schema (:func:`upgrade`). Entries are not validated one by one here
    (:func:`claimcheck.runs.load_result` does, keeping the rest of the file).

    Raises:
        ResultFileError: see :func:`read_json` and :func:`check_schema`; no ``claims`` list, or a
            ``runner`` that is not an object.
    """
    return claims_document(read_json(path), path)


def claims_document(doc: dict, path) -> dict:
    """A results file's parsed JSON (from :func:`read_json`) checked as a claims report and upgraded
    to the current schema, in place (see :func:`read_document`, which reads and calls this).

    Raises:
        ResultFileError: see :func:`read_document`.
    """
    claims = doc.get("claims")
    if not isinstance(claims, list):
        what = "missing" if claims is None else f"a {type(claims).__name__}, expected a list"
        raise ResultFileError(path, f"field 'claims' is {what} (is it a claimcheck claims.json?)")
    runner = doc.get("runner", {})
    if not isinstance(runner, dict):
        raise ResultFileError(path, f"field 'runner' is a {type(runner).__name__}, expected an object")
    return upgrade(doc, path)


def chapters_of(doc: dict) -> list[dict]:
    """The document's chapters in order: ``chapters`` (schema 2), else one per registry, else one
    made of the claims' own ``chapter`` fields (every entry then belongs to one of them)."""
    out: list[dict] = [dict(c) for c in doc.get("chapters") or [] if isinstance(c, dict) and c.get("id")]
    if not out:
        for reg in doc.get("registries") or []:
            if isinstance(reg, dict):
                info = reg.get("chapter")
                if not isinstance(info, dict):
                    info = {}
                cid = reg.get("chapter_id") or info.get("id") or _single_chapter({"registries": [reg]})
                if cid:
                    out.append(
                        {"id": str(cid), "title": str(info.get("title") or cid), "registry": reg.get("path")}
                    )
    seen = {c["id"] for c in out}
    for e in doc.get("claims") or []:
        ch = e.get("chapter") if isinstance(e, dict) else None
        if ch and ch not in seen:
            out.append({"id": str(ch), "title": str(ch)})
            seen.add(ch)
    return out or [{"id": "", "title": ""}]

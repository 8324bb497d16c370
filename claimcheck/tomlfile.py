"""Read a TOML file with tomllib so that one broken table costs only itself, and say where a line is.

tomllib reads a file whole or not at all, and gives no positions. A registry must survive one
broken ``[[claims]]`` table and place an undecodable byte in its claim, so this module knows one
thing about TOML's layout: a top-level table starts at a header line (``[chapter]``,
``[[claims]]``). Every header, key and value is still read by tomllib itself, a line at a time;
no other TOML reader exists in claimcheck. A header-like line inside a multi-line string or array
is taken for a header: at worst, a broken file's recovery splits a table in two.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """A top-level table of the file as text: its header name (``""`` before the first header), its
    first and last line (1-based) and its text."""

    header: str
    first: int
    last: int
    text: str

    def key_at(self, line: int) -> str | None:
        """The top-level key that file line ``line`` assigns (``title = ...`` -> ``title``), or None."""
        lines = self.text.split("\n")
        if not self.first <= line <= self.first + len(lines) - 1:
            return None
        left, sep, _ = lines[line - self.first].partition("=")
        if not sep or left.lstrip().startswith("#"):
            return None
        parsed = _loads(f"{left.strip()} = 0")
        return next(iter(parsed)) if parsed else None

    def value(self, key: str) -> object | None:
        """The value of ``key = ...`` written on one line of this table, or None (even when the
        table as a whole is not valid TOML)."""
        for line in self.text.split("\n"):
            parsed = _loads(line) if "=" in line else None
            if parsed and key in parsed and not isinstance(parsed[key], dict):
                return parsed[key]
        return None


def _loads(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def tables(text: str) -> list[Table]:
    """Split ``text`` at its header lines (each recognised by tomllib); the preamble is ``""``."""
    lines = text.split("\n")
    starts = [(0, "")]
    for n, line in enumerate(lines):
        parsed = _loads(line) if line.lstrip().startswith("[") else None
        if parsed:
            starts.append((n, next(iter(parsed))))
    if len(starts) > 1 and starts[1][0] == 0:
        starts.pop(0)  # no preamble: the file begins with a header
    ends = [n for n, _ in starts[1:]] + [len(lines)]
    return [Table(header, n + 1, end, "\n".join(lines[n:end])) for (n, header), end in zip(starts, ends)]


def table_at(parts: list[Table], line: int) -> Table | None:
    """The table that holds file line ``line``."""
    return next((t for t in parts if t.first <= line <= t.last), None)


@dataclass(frozen=True)
class Broken:
    """A table that is not valid TOML (None: the file's error, when every table reads alone)."""

    table: Table | None
    message: str  # tomllib's message, its line numbers counted in the whole file


def read(text: str) -> tuple[dict, list[Broken]]:
    """The file's data and its broken tables (``[]`` when the file is valid TOML).

    After a syntax error, each table is read alone and the good ones are merged, so only the
    broken ones are lost. When every table reads alone (a table defined twice, say), the file's
    own error is the one :class:`Broken` and the data is empty.
    """
    try:
        return tomllib.loads(text), []
    except tomllib.TOMLDecodeError as whole:
        error = whole
    data: dict = {}
    broken = []
    for t in tables(text):
        try:
            part = tomllib.loads(t.text)
        except tomllib.TOMLDecodeError as exc:
            broken.append(Broken(t, _shift(str(exc), t.first - 1)))
            continue
        for key, value in part.items():
            if isinstance(value, list) and isinstance(data.get(key, []), list):
                data.setdefault(key, []).extend(value)
            elif isinstance(value, dict) and isinstance(data.get(key, {}), dict):
                data.setdefault(key, {}).update(value)
            else:
                data[key] = value
    return (data, broken) if broken else ({}, [Broken(None, str(error))])


def _shift(message: str, lines: int) -> str:
    """tomllib's ``(at line N, column M)``, with N counted from the file's first line."""
    return re.sub(
        r"\(at line (\d+), column (\d+)\)",
        lambda m: f"(at line {int(m.group(1)) + lines}, column {m.group(2)})",
        message,
    )

"""Reading input files safely (bounded, never blocking), the one TOML reader (one broken table costs
only itself), and writing report files so that a reader never sees half a file and a killed run
breaks nothing."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: filelock is imported late, by a write of a report
    from filelock import BaseFileLock

#: the largest input file claimcheck reads (bytes): a manuscript, a registry, a claims.json, a plot
MAX_INPUT_BYTES = 32 * 1024 * 1024
#: the deepest nesting of arrays and objects in a JSON input claimcheck uses (its own files nest 8 deep;
#: json.loads reads up to about 1,000, deeper than the code after it can walk or write back)
MAX_JSON_DEPTH = 100

_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
}


class InputFileError(OSError):
    """An input file claimcheck will not read (not a regular file, or too large); ``strerror`` says why."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EINVAL, reason)
        self.path = str(path)


def check_input_file(path: str | os.PathLike[str], *, limit: int | None = None) -> os.stat_result:
    """The ``os.stat`` of ``path``, checked without opening it (a FIFO would block the open) to be a
    regular file of at most ``limit`` bytes (default :data:`MAX_INPUT_BYTES`). Raises what ``open``
    would, or InputFileError: a device, FIFO or socket, or a file over ``limit`` bytes."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise InputFileError(path, f"{kind}, not a regular file: claimcheck reads only regular files")
    if st.st_size > limit:
        raise InputFileError(
            path, f"{st.st_size:,} bytes, over the limit of {limit:,} bytes for an input file"
        )
    return st


def read_input_file(path: str | os.PathLike[str], *, limit: int | None = None) -> bytes:
    """The bytes of a regular input file of at most ``limit`` bytes: the one way claimcheck reads its
    inputs (checked before a non-blocking open and after it). Raises OSError as :func:`check_input_file`."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    check_input_file(path, limit=limit)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise InputFileError(path, "not a regular file: claimcheck reads only regular files")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputFileError(path, f"more than {limit:,} bytes, the limit for an input file")
    return data


def too_deep(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the parsed JSON or TOML ``value`` nests arrays and objects (tables) more than ``limit`` deep
    (a scalar: 0, ``[]`` and ``{}``: 1); walked without recursion, linear in its size."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def not_ours(path: str | os.PathLike[str]) -> str | None:
    """Why the report ``path`` (a ``claims.json``) must not be overwritten: not a regular file, or JSON
    claimcheck did not write. None when missing, ours, or not JSON (a write cut short)."""
    try:
        raw = read_input_file(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    try:
        doc = json.loads(raw)
    except ValueError:  # not JSON (a write cut short by an older claimcheck): nobody's data
        return None
    except RecursionError:  # nested deeper than json.loads goes: not claimcheck's
        doc = None
    if (
        not too_deep(doc)
        and isinstance(doc, dict)
        and (
            (type(doc.get("schema")) is int and isinstance(doc.get("claims"), list))  # true is no schema
            or str(doc.get("generator", "")).startswith("claimcheck")
        )
    ):
        return None
    return (
        f"{path} was not written by claimcheck (no integer 'schema' with a 'claims' list): it is "
        "left as it is; give claimcheck another folder (--claims-report-dir)"
    )


def writes_through(path: Path) -> bool:
    """Whether an output ``path`` is written into rather than replaced: it is (or links to) a device, a
    FIFO or a socket (``/dev/null``, ``/dev/fd/63`` of ``>(...)``), or it lies in or links into
    ``/proc`` (``/dev/stdout``, a link to ``/proc/self/fd/1``, whatever standard output is)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        return True
    with contextlib.suppress(OSError):
        if os.path.islink(path) and os.readlink(path).startswith("/proc/"):
            return True
    return os.path.realpath(Path(path).parent).startswith("/proc/")


def _write_through(path: Path, raw: bytes) -> None:
    """Write ``raw`` into the device, FIFO or standard output ``path`` (:func:`writes_through`), appended
    and never truncated. Raises OSError: a FIFO no process reads (at once, not a hang), or as ``open``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader: opening it would block until one comes
            raise OSError(errno.ENXIO, "no process reads this FIFO") from None
        raise
    with os.fdopen(fd, "wb") as fh:
        os.set_blocking(fd, True)  # a pipe's reader may be slower than the write
        fh.write(raw)


def write_atomic(path: Path, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` atomically (through a fsync'd ``.<name>.<pid>.<random>.tmp`` renamed
    over it); a device, a FIFO or standard output (:func:`writes_through`) is written into, never
    replaced. Raises OSError: the folder cannot be created or written (the old file is left as it was),
    a FIFO that no process reads."""
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    if writes_through(path):
        sys.stdout.flush()  # what was printed before comes first when path is standard output
        _write_through(path, raw)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if os.name == "posix":  # fsync the folder too, so that the rename is durable
        with contextlib.suppress(OSError):
            fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


LEFTOVER_AGE_S = 600.0  # a temporary file older than this was left by a killed run
LOCK_TIMEOUT_S = 120.0  # the longest a write of a report waits for another run's


def remove_leftovers(folder: Path, names: Iterable[str]) -> list[Path]:
    """Delete the temporary files older than :data:`LEFTOVER_AGE_S` (a live write holds its own for
    milliseconds) that killed runs left beside the reports ``names`` in ``folder``; return what was
    deleted. Never raises."""
    folder = Path(folder)
    gone = []
    now = time.time()
    for name in names:
        for p in folder.glob(f".{name}.*.tmp"):
            with contextlib.suppress(OSError):
                if p.is_file() and now - p.stat().st_mtime > LEFTOVER_AGE_S:
                    p.unlink()
                    gone.append(p)
    return gone


def report_lock(path: Path) -> BaseFileLock:
    """A file lock (``.<name>.lock`` beside ``path``) for a read-merge-write of ``path``; waiting longer
    than :data:`LOCK_TIMEOUT_S` for another run's raises ``filelock.Timeout``."""
    from filelock import FileLock  # late: only a write of a report takes a lock (start-up time)

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path.parent / f".{path.name}.lock"), timeout=LOCK_TIMEOUT_S)


# --- TOML, so that one broken table costs only itself: tomllib reads each table (from a header line)
# or statement (from a line ``key = ...``) alone. A header-like line in a multi-line string splits a table.

# a line that starts a statement: a (dotted, maybe quoted) key and "=" (U+FFFD, a byte that was not
# UTF-8, is a key's character, so that a bad byte in a claim's id does not glue it to the claim above)
_KEY_START = re.compile(
    r"""^\s*(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_\ufffd-]+)(?:\s*\.\s*(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_\ufffd-]+))*\s*="""
)


@dataclass(frozen=True)
class TomlTable:
    """A table of the file as text (or one of its :meth:`statements`): its header's first key (``""``
    before any), 1-based first and last line, text, the header's ``keys``, whether it is ``[[...]]``."""

    header: str
    first: int
    last: int
    text: str
    keys: tuple[str, ...] = ()
    array: bool = False
    statement: bool = False  # one statement of its table, without the header line

    def key_at(self, line: int) -> str | None:
        """The top-level key that file line ``line`` (one of this table's) assigns (``title = ...`` ->
        ``title``), or None."""
        left, sep, _ = self.text.split("\n")[line - self.first].partition("=")
        if not sep or left.lstrip().startswith("#") or not _KEY_START.match(left + "="):
            return None
        parsed = loads_or_none(f"{left.strip()} = 0".replace("\ufffd", "_"))  # U+FFFD as _: still read
        return next(iter(parsed)) if parsed else None

    def value(self, key: str) -> object | None:
        """The value of ``key = ...`` written on one line of this table (valid TOML or not), or None."""
        for line in self.text.split("\n"):
            parsed = loads_or_none(line) if "=" in line else None
            if parsed and key in parsed and not isinstance(parsed[key], dict):
                return parsed[key]
        return None

    def statements(self) -> list[TomlTable]:
        """This table's statements after its header, each from a line ``key = ...`` to the next one."""
        lines = self.text.split("\n")
        skip = 1 if self.keys or self.array else 0  # the header line
        starts: list[int] = []
        depth = 0  # braces of an inline table left open by the lines before (TOML wants them closed)
        for n in range(skip, len(lines)):
            indented = lines[n][:1].isspace()  # an unclosed brace on an unindented line is its own error
            if (depth <= 0 or not indented) and _KEY_START.match(lines[n]):
                starts.append(n)
                depth = 0
            if starts:
                depth += _braces(lines[n])
        ends = starts[1:] + [len(lines)]
        return [
            TomlTable(
                self.header, self.first + a, self.first + b - 1, "\n".join(lines[a:b]), self.keys, False, True
            )
            for a, b in zip(starts, ends)
        ]


def _braces(line: str) -> int:
    """``{`` less ``}`` on ``line`` outside its strings and comment (a rough count, for recovery)."""
    code = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", line).split("#", 1)[0]
    return code.count("{") - code.count("}")


#: the deepest nesting of tables and arrays a registry may hold (``{a = {b = [1]}}`` is 3 deep): tomllib
#: parses an inline table or array by recursion, so a file nested hundreds deep would overflow the stack
MAX_TOML_DEPTH = 32

# what a nesting depth is counted over: strings and comments (skipped whole), brackets and braces
_NESTING = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]', re.S
)


class TomlDepthError(ValueError):
    """TOML nested deeper than :data:`MAX_TOML_DEPTH`; the message ends ``(at line N, column M)``."""


def loads(text: str) -> dict:
    """``tomllib.loads(text)``, refusing tables and arrays nested deeper than :data:`MAX_TOML_DEPTH`
    (inline ``{...}`` and ``[...]`` counted before parsing, dotted keys after). Raises
    tomllib.TOMLDecodeError (not TOML) or TomlDepthError (too deep; never a RecursionError)."""
    _check_nesting(text)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # a stack already deep (the caller's): said as for a file too deep
        raise TomlDepthError(
            f"nested too deeply to be read (at most {MAX_TOML_DEPTH} levels) (at line 1, column 1)"
        ) from None
    if too_deep(data, MAX_TOML_DEPTH):  # dotted keys (a.b.c... = 1) nest without a bracket
        line = next((n for n, ln in enumerate(text.split("\n"), 1) if ln.count(".") > MAX_TOML_DEPTH), 1)
        raise TomlDepthError(
            f"keys nested more than {MAX_TOML_DEPTH} levels deep, the most a registry may nest "
            f"(at line {line}, column 1)"
        )
    return data


def _check_nesting(text: str) -> None:
    """Raise TomlDepthError at the first ``{`` or ``[`` that opens level :data:`MAX_TOML_DEPTH` + 1."""
    depth = 0
    for m in _NESTING.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                column = m.start() - text.rfind("\n", 0, m.start())
                raise TomlDepthError(
                    f"tables or arrays nested more than {MAX_TOML_DEPTH} levels deep, the most a "
                    f"registry may nest (at line {line}, column {column})"
                )
        elif c in "]}":
            depth = max(0, depth - 1)


def loads_or_none(text: str) -> dict | None:
    """``text`` read as TOML, or None: not TOML, or nested too deep (:func:`loads`)."""
    try:
        return loads(text)
    except (tomllib.TOMLDecodeError, TomlDepthError):
        return None


def _header(line: str) -> tuple[tuple[str, ...], bool] | None:
    """``(keys, array)`` of a header line (``[claims.C05]`` -> ``(("claims", "C05"), False)``), or None."""
    stripped = line.lstrip()
    parsed = loads_or_none(line.replace("\ufffd", "_")) if stripped.startswith("[") else None
    if not parsed:
        return None
    keys: list[str] = []
    node: object = parsed
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        keys.append(key)
        node = node[-1] if isinstance(node, list) and node else node
    return tuple(keys), stripped.startswith("[[")


def toml_tables(text: str) -> list[TomlTable]:
    """Split ``text`` at its header lines (each recognised by tomllib); the preamble is ``""``."""
    lines = text.split("\n")
    starts: list[tuple[int, tuple[str, ...], bool]] = [(0, (), False)]
    starts += [(n, *found) for n, line in enumerate(lines) if (found := _header(line))]
    if len(starts) > 1 and starts[1][0] == 0:
        starts.pop(0)  # no preamble: the file begins with a header
    ends = [n for n, *_ in starts[1:]] + [len(lines)]
    return [
        TomlTable(keys[0] if keys else "", n + 1, end, "\n".join(lines[n:end]), keys, array)
        for (n, keys, array), end in zip(starts, ends)
    ]


@dataclass(frozen=True)
class Broken:
    """A table or statement that is not valid TOML or clashes with an earlier one (None: the file)."""

    table: TomlTable | None
    message: str  # tomllib's message, its line numbers counted in the whole file
    clash: bool = False  # valid alone, but it clashes with an earlier table


def read_toml(text: str, by_line: tuple[str, ...] = ()) -> tuple[dict, list[Broken]]:
    """The file's data and its broken tables (``[]`` when the file is valid TOML): after a syntax error
    each table (one whose header is in ``by_line``: each statement) is read alone and the good merged."""
    try:
        return loads(text), []
    except (tomllib.TOMLDecodeError, TomlDepthError) as whole:
        error = whole
    merged = _Merged()
    broken = []
    for t in toml_tables(text):
        if t.header not in by_line or t.array or len(t.keys) != 1:
            broken += _read_part(t, t.text, merged)
            continue
        valid = loads_or_none(t.text) is not None
        if valid and t.keys in merged.defined:  # a second such table: each statement clashes as it does
            broken += [
                Broken(s, b.message, clash=True)
                for b in _read_part(t, t.text, merged)
                for s in t.statements()
            ]
            continue
        if valid:  # only its statements may clash: each alone
            merged.defined.add(t.keys)
        header = t.text.split("\n", 1)[0]
        for statement in t.statements():
            broken += _read_part(statement, header + "\n" + statement.text, merged)
    return (merged.data, broken) if broken else ({}, [Broken(None, str(error))])


def _read_part(t: TomlTable, text: str, merged: _Merged) -> list[Broken]:
    """Read ``text``, the table or statement ``t`` (a statement under its header line), into ``merged``;
    ``[]``, or the Broken it is: not valid TOML, or a clash with what was merged before."""
    try:
        clash = merged.add(t, loads(text))
    except (tomllib.TOMLDecodeError, TomlDepthError) as exc:
        message = _shift(str(exc), t.first - 1 - t.statement)  # a statement's header line is not the file's
        if t.statement:  # tomllib's "end of document" is the statement's end
            message = message.replace("(at end of document)", f"(at line {t.last}, its end)")
            if t.last > t.first and "{" in t.text:
                message += " (an inline table { ... } must be written on one line)"
        return [Broken(t, message)]
    return [Broken(t, clash, clash=True)] if clash else []


@dataclass
class _Merged:
    """The data of the tables read so far and the key paths they defined (one defined twice clashes)."""

    data: dict = field(default_factory=dict)
    defined: set[tuple[str, ...]] = field(default_factory=set)

    def add(self, t: TomlTable, part: dict) -> str | None:
        """Merge the data ``part`` of table ``t``; return why it clashes (nothing merged), or None."""
        node: object = self.data
        src: object = part
        for key in t.keys[:-1]:  # down to the table's parent (an array's last element, as TOML does)
            node, src = _child(node, key), _child(src, key)
        where = f"[[{'.'.join(t.keys)}]]" if t.array else f"[{'.'.join(t.keys)}]" if t.keys else "the top"
        target = node
        if t.keys:  # the table itself (a new element of an array of tables)
            target = node.setdefault(t.keys[-1], [] if t.array else {}) if isinstance(node, dict) else None
            src = _child(src, t.keys[-1])
        if t.array:
            if not isinstance(target, list):
                return f"{where} at line {t.first}: '{t.keys[-1]}' is already a table, not an array of tables"
            target.append(src)
            self.defined = {p for p in self.defined if p[: len(t.keys)] != t.keys}
            return None
        if not isinstance(target, dict) or not isinstance(src, dict):
            return f"{where} at line {t.first}: '{t.keys[-1]}' is already an array of tables ([[...]])"
        paths = ([t.keys] if t.keys and not t.statement else []) + [t.keys + (k,) for k in src]
        twice = [p for p in paths if p in self.defined]
        if twice:
            return f"{where} at line {t.first}: '{'.'.join(twice[0])}' is defined twice"
        self.defined.update(paths)
        target.update(src)
        return None


def _child(node: object, key: str) -> object:
    """``node[key]`` (a new table when missing), or the last element of an array of tables."""
    if not isinstance(node, dict):
        return {}
    child = node.setdefault(key, {})
    return child[-1] if isinstance(child, list) and child else child


def _shift(message: str, lines: int) -> str:
    """tomllib's ``(at line N, column M)``, with N counted from the file's first line."""
    return re.sub(
        r"\(at line (\d+), column (\d+)\)",
        lambda m: f"(at line {int(m.group(1)) + lines}, column {m.group(2)})",
        message,
    )

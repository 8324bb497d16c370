"""Writing report files so that a reader never sees half a file and a killed run breaks nothing."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

#: a temporary file older than this is a leftover of a killed run (a live write holds its
#: temporary file for the milliseconds between creating and renaming it)
LEFTOVER_AGE_S = 600.0


def _temp_prefix(name: str) -> str:
    return f".{name}."


def write_atomic(path: Path, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` atomically: a temporary file unique to this call in the same
    folder (``.<name>.<pid>.<random>.tmp``), flushed and fsync'd, then renamed over the old file,
    and the folder synced so that the rename survives a crash.

    A reader sees the old file or the new one, never a mixture; a run killed half-way leaves at
    most a ``.<name>.*.tmp`` file behind, which no later run reads or trips over (each write has
    its own temporary name; :func:`remove_leftovers` deletes old ones). The folder is created
    when missing.

    Raises:
        OSError: the folder cannot be created or written (the old file is then left as it was).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(
        prefix=f"{_temp_prefix(path.name)}{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """fsync a folder (POSIX), so that a rename in it is durable; a no-op where unsupported."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_leftovers(folder: Path, names, older_than_s: float = LEFTOVER_AGE_S) -> list[Path]:
    """Delete the temporary files that killed runs left beside the reports ``names`` in ``folder``
    (``.claims.json.*.tmp``...), when older than ``older_than_s``; return what was deleted.

    Never raises: a leftover that cannot be deleted is left (it breaks nothing, see :func:`write_atomic`).
    """
    folder = Path(folder)
    gone = []
    now = time.time()
    for name in names:
        for p in folder.glob(f"{_temp_prefix(name)}*.tmp"):
            try:
                if p.is_file() and now - p.stat().st_mtime > older_than_s:
                    p.unlink()
                    gone.append(p)
            except OSError:
                continue
    return gone


#: how long a run waits for another run's read-merge-write of the same report (seconds)
LOCK_TIMEOUT_S = 120.0


def report_lock(path: Path, timeout: float = LOCK_TIMEOUT_S):
    """A file lock (``.<name>.lock`` beside ``path``) held around a read-merge-write of ``path``.

    Two runs of one checkout that both keep the other's rows (:mod:`claimcheck.partial`) would
    otherwise read the same old report and the later write would drop the earlier run's rows.
    The critical section is milliseconds; waiting longer than ``timeout`` raises
    ``filelock.Timeout`` (a run stuck while holding it).
    """
    from filelock import FileLock

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path.parent / f".{path.name}.lock"), timeout=timeout)

"""Writing report files so that a reader never sees half a file and a killed run breaks nothing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` atomically: a temporary file unique to this call in the same
    folder, flushed and fsync'd, then renamed over the old file.

    A reader sees the old file or the new one, never a mixture; a run killed half-way leaves at
    most a ``.<name>.*.tmp`` file behind, which no later run reads or trips over (each run writes
    its own temporary name). The folder is created when missing.

    Raises:
        OSError: the folder cannot be created or written (the old file is then left as it was).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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

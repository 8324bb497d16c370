"""Runs a listing as ``__main__`` and records its warnings, library log warnings and errors.

``python listing_shim.py EVENTS LISTING [MAX_NEW_TOKENS]`` (by path: it imports nothing of claimcheck)
writes one JSON line per event to EVENTS (the fields of :class:`claimcheck.llm.listing.ListingEvent`).
Warnings show once per location, as a reader would see them; stdout and stderr are untouched. With
MAX_NEW_TOKENS, ``generate`` is capped (a ``size`` event) right after transformers defines it (an
import hook), so the listing's own import of transformers keeps its import-time warnings.
"""

import functools
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import runpy
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType
from typing import Any, TextIO

GENERATION_MODULE = "transformers.generation.utils"


class AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``then(module)`` once the module named ``name`` has been executed (first import)."""

    def __init__(self, name: str, then: Callable[[ModuleType], object]) -> None:
        self.name, self.then = name, then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # the real finders find it; this hook's work is done after this
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader, then = spec.loader, self.then
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            then(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]  # this loader's, for this module
        return spec


def cap_generation(
    module: ModuleType, cap: int, emit: Callable[..., None], listing_line: Callable[[], int | None]
) -> None:
    """Wrap ``GenerationMixin.generate``: a ``max_new_tokens`` (and ``min_new_tokens``) above ``cap``
    becomes ``cap``, recorded as a ``size`` event at the listing's line."""
    mixin = getattr(module, "GenerationMixin", None)
    if mixin is None:
        return
    generate = mixin.generate

    @functools.wraps(generate)
    def capped(self: Any, *args: Any, **kwargs: Any) -> Any:
        asked = kwargs.get("max_new_tokens")
        if isinstance(asked, int) and not isinstance(asked, bool) and asked > cap:
            kwargs["max_new_tokens"] = cap
            least = kwargs.get("min_new_tokens")
            if isinstance(least, int) and least > cap:  # at least as many as it may write
                kwargs["min_new_tokens"] = cap
            emit("size", "max_new_tokens", f"{asked} -> {cap}", at=listing_line())
        return generate(self, *args, **kwargs)

    mixin.generate = capped


def main(events_path: str, listing: str, max_new_tokens: int | None = None) -> None:
    listing_abs = os.path.abspath(listing)
    out = open(events_path, "a", encoding="utf-8")

    def listing_line() -> int | None:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if os.path.abspath(frame.f_code.co_filename) == listing_abs:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def emit(
        kind: str,
        category: str,
        message: object,
        filename: str | None = None,
        lineno: int | None = None,
        at: int | None = None,
    ) -> None:
        at = at if at is not None else listing_line()
        event = {"kind": kind, "category": category, "message": str(message)[:2000], "file": filename}
        out.write(json.dumps({**event, "line": lineno, "listing_line": at}) + "\n")
        out.flush()

    shown = warnings.showwarning

    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        emit("warning", category.__name__, message, filename, lineno)
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    warnings.simplefilter("default")

    class LibraryLog(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            emit("log", record.levelname, record.getMessage(), record.pathname, record.lineno)

    for name in ("transformers", "torch", "huggingface_hub"):
        logging.getLogger(name).addHandler(LibraryLog(level=logging.WARNING))

    if max_new_tokens is not None:
        then = functools.partial(cap_generation, cap=max_new_tokens, emit=emit, listing_line=listing_line)
        if GENERATION_MODULE in sys.modules:
            then(sys.modules[GENERATION_MODULE])
        else:
            sys.meta_path.insert(0, AfterImport(GENERATION_MODULE, then))

    sys.argv = [listing]
    sys.path.insert(0, os.path.dirname(listing_abs))
    try:
        runpy.run_path(listing, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        at = next((f.lineno for f in reversed(frames) if os.path.abspath(f.filename) == listing_abs), None)
        file, line = (frames[-1].filename, frames[-1].lineno) if frames else (None, None)
        emit("error", type(exc).__name__, exc, file, line, at)
        raise


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)

"""Runs a listing as ``__main__`` and records its warnings, library log warnings and errors.

Started by :func:`claimcheck.llm.listing.run_listing` as ``python listing_shim.py EVENTS LISTING``
(by path, so the listing's process imports nothing of claimcheck). Each event is one JSON line in
EVENTS: ``{"kind": "warning"|"log"|"error", "category", "message", "file", "line",
"listing_line"}``, where ``listing_line`` is the line of the listing whose call led to the event
(found on the call stack), or null. Warnings are shown once per location (the ``default`` action,
DeprecationWarning included), as a reader running the listing would see them; the listing's
stdout and stderr are untouched.
"""

import json
import logging
import os
import runpy
import sys
import traceback
import warnings


def main(events_path: str, listing: str) -> None:
    listing_abs = os.path.abspath(listing)
    out = open(events_path, "a", encoding="utf-8")

    def listing_line():
        frame = sys._getframe(1)
        while frame is not None:
            if os.path.abspath(frame.f_code.co_filename) == listing_abs:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def emit(kind, category, message, filename=None, lineno=None, at=None):
        out.write(
            json.dumps(
                {
                    "kind": kind,
                    "category": category,
                    "message": str(message)[:2000],
                    "file": filename,
                    "line": lineno,
                    "listing_line": at if at is not None else listing_line(),
                }
            )
            + "\n"
        )
        out.flush()

    shown = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        emit("warning", category.__name__, message, filename, lineno)
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    warnings.simplefilter("default")

    class LibraryLog(logging.Handler):
        def emit(self, record):
            emit("log", record.levelname, record.getMessage(), record.pathname, record.lineno)

    for name in ("transformers", "torch", "huggingface_hub"):
        logging.getLogger(name).addHandler(LibraryLog(level=logging.WARNING))

    sys.argv = [listing]
    sys.path.insert(0, os.path.dirname(listing_abs))
    try:
        runpy.run_path(listing, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        at = next((f.lineno for f in reversed(frames) if os.path.abspath(f.filename) == listing_abs), None)
        last = frames[-1] if frames else None
        emit(
            "error",
            type(exc).__name__,
            exc,
            last.filename if last else None,
            last.lineno if last else None,
            at,
        )
        raise


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

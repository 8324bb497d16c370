"""Run the chapter's code listing as a reader would (claim C33), and read what it prints.

:func:`run_listing` runs it in a subprocess, offline, with a time limit, under
:mod:`claimcheck.llm.listing_shim`, recording its exit, output, wall time and every warning, log
warning and error with the listing line that led to it; deprecations and errors are **API drift**.
The models it ``from_pretrained``s get the real GPT-2 weights where the run has them, else a
**stand-in** (seeded random-init GPT-2 small, real tokenizer, in a private Hugging Face cache): real
shapes, so its timings count, not its probabilities. The files it ``open``s come from beside it,
else are ``claimcheck/llm/data/sample.txt`` repeated. ``max_new_tokens`` caps its ``generate`` calls.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck.fingerprint import version
from claimcheck.llm.models import gpt2_tokenizer, random_gpt2, sample_text
from claimcheck.manuscript import Manuscript, QuoteCheck, check_quote
from claimcheck.registry import Claim

if TYPE_CHECKING:  # types only: transformers is imported where a stand-in is saved
    from transformers import GPT2Config

    from claimcheck.llm.weights import WeightsResolution

STAND_IN_REVISION = "0" * 40
STAND_IN_TEXT_CHARS = 20_000
DRIFT_CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")


class ListingError(RuntimeError):
    """The listing cannot be prepared (unreadable, not Python, loads a model with no stand-in)."""


@dataclass(frozen=True)
class ListingEvent:
    """A warning, a library log warning, or the error that stopped the listing."""

    kind: str  # warning | log | error | size (a generate call cut to the profile's length)
    category: str  # FutureWarning, WARNING, AttributeError, ...
    message: str
    file: str | None = None  # where the library raised it
    line: int | None = None
    listing_line: int | None = None

    @property
    def is_api_drift(self) -> bool:
        """Deprecations (warnings or log messages) and errors: the listing's API no longer fits."""
        if self.kind == "warning" and self.category in DRIFT_CATEGORIES:
            return True
        return self.kind == "error" or (self.kind != "size" and "deprecat" in self.message.lower())

    def describe(self, source_lines: list[str] | None = None) -> str:
        first = self.message.splitlines()[0][:240] if self.message else ""
        return f"{_where(self.listing_line, source_lines)}: {self.category}: {first}"


def _where(at: int | None, source_lines: list[str] | None) -> str:
    if not at:
        return "the listing"
    code = f" ({source_lines[at - 1].strip()[:70]})" if source_lines and 0 < at <= len(source_lines) else ""
    return f"listing line {at}{code}"


@dataclass
class ListingRun:
    """What running the listing did, and what stood in (``models``/``inputs``: id or file -> what it was)."""

    listing: str
    source: str
    timeout_s: float
    returncode: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    events: list[ListingEvent] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    stand_in: bool = False
    versions: dict[str, str | None] = field(default_factory=dict)
    max_new_tokens: int | None = None  # the cap on its generate calls (None: as written)
    threads: int | None = None  # torch's threads in its process (None: torch's default)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def api_drift(self) -> list[ListingEvent]:
        return [e for e in self.events if e.is_api_drift]

    @property
    def resized(self) -> list[ListingEvent]:
        """The ``generate`` calls cut to the cap (``size`` events, message ``"ASKED -> CAP"``)."""
        return [e for e in self.events if e.kind == "size"]

    def resized_lines(self) -> list[str]:
        """``listing line 11 (model.generate(...)): max_new_tokens 256 -> 16 tokens (2 calls)``, per line."""
        lines = self.source.splitlines()
        counts = Counter((e.listing_line, e.category, e.message) for e in self.resized)
        return [
            f"{_where(at, lines)}: {category} {message} tokens" + (f" ({n} calls)" if n > 1 else "")
            for (at, category, message), n in counts.items()
        ]

    @property
    def failure(self) -> str:
        """Why the listing did not complete ("" when it did)."""
        if self.timed_out:
            return f"ran past its time limit of {self.timeout_s:g} s (--claims-listing-timeout)"
        if self.returncode != 0:
            errors = [e for e in self.events if e.kind == "error"]
            if errors:
                return f"exit status {self.returncode}: " + errors[-1].describe(self.source.splitlines())
            tail = self.stderr.strip().splitlines()[-1:] or ["(no output)"]
            return f"exit status {self.returncode}: {tail[0][:300]}"
        return ""

    def drift_lines(self) -> list[str]:
        return [e.describe(self.source.splitlines()) for e in self.api_drift]

    def printed(self, claim: Claim) -> dict[str, QuoteCheck]:
        """The numbers the listing printed for ``claim``'s bindings: name -> :class:`QuoteCheck` (the
        first locator found in stdout, ``ok`` or ``drift``, wins; else ``not-found``/``ambiguous``)."""
        out_text = Manuscript.from_text(self.stdout, f"{self.listing} (stdout)")
        found: dict[str, QuoteCheck] = {}
        hit = ("ok", "drift")
        for name, locator in claim.bindings():
            for q in check_quote(out_text, claim.id, name, locator, claim.printed(name)):
                if name not in found or (found[name].status not in hit and q.status in hit):
                    found[name] = q
        return found

    def summary(self) -> dict[str, Any]:
        lines = self.source.splitlines()
        others = [e.describe(lines) for e in self.events if not e.is_api_drift and e.kind != "size"]
        return {
            "listing": self.listing,
            "exit_status": self.returncode,
            "timed_out": self.timed_out,
            "seconds": round(self.seconds, 2),
            "time_limit_s": self.timeout_s,
            "models": self.models,
            "inputs": self.inputs,
            "stand_in": self.stand_in,
            "api_drift": self.drift_lines(),
            "versions": self.versions,
            "max_new_tokens": self.max_new_tokens,
            "threads": self.threads,
            "resized": self.resized_lines(),
            "other_warnings": others,
            "stdout": self.stdout[-4000:],
        }


def scan_listing(source: str, filename: str = "<listing>") -> tuple[list[str], list[str]]:
    """Return (model ids passed to ``from_pretrained``, relative files passed to ``open``).

    Raises:
        ListingError: the source is not valid Python (the message names the file and line).
    """
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise ListingError(f"{filename}: not valid Python: line {exc.lineno}: {exc.msg}") from None
    models: dict[str, None] = {}  # dicts as ordered sets: each name once, in order of appearance
    files: dict[str, None] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first, f = node.args[0], node.func
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        if isinstance(f, ast.Attribute) and f.attr == "from_pretrained":
            models[first.value] = None
        elif isinstance(f, ast.Name) and f.id == "open" and not os.path.isabs(first.value):
            files[first.value] = None
    return list(models), list(files)


def _snapshot(hf_home: Path, model_id: str) -> Path:
    """``model_id``'s snapshot folder in the Hugging Face cache layout, written by hand (no public API)."""
    repo = hf_home / "hub" / ("models--" + model_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(STAND_IN_REVISION, encoding="utf-8")
    snap = repo / "snapshots" / STAND_IN_REVISION
    snap.mkdir(parents=True, exist_ok=True)
    return snap


def save_stand_in(hf_home: Path, model_id: str, config: GPT2Config | None = None) -> str:
    """Save a random GPT-2 (seed 0; small unless ``config``) and the real tokenizer under ``model_id`` in
    the Hugging Face cache at ``hf_home``; return a one-line description for the report."""
    from transformers.utils import logging as hf_logging

    snap = _snapshot(Path(hf_home), model_id)
    model = random_gpt2(config, seed=0)
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        model.save_pretrained(snap)
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    gpt2_tokenizer().save_pretrained(snap)
    c = model.config
    return (
        f"stand-in: randomly initialised GPT-2 (seed 0; {c.n_layer} layers, d_model {c.n_embd}, "
        f"vocabulary {c.vocab_size}) with the real GPT-2 tokenizer"
    )


def link_real_weights(hf_home: Path, model_id: str, folder: str | Path) -> str:
    """Place the files of a ``save_pretrained`` folder under ``model_id`` in the cache (symlinks)."""
    snap = _snapshot(Path(hf_home), model_id)
    folder = Path(folder)
    for f in folder.iterdir():
        if f.is_file():
            (snap / f.name).symlink_to(f.resolve())
    if not any((snap / n).exists() for n in ("tokenizer.json", "vocab.json")):
        gpt2_tokenizer().save_pretrained(snap)
    return f"real weights from {folder}"


def run_listing(
    listing: str | Path,
    workdir: str | Path,
    *,
    timeout: float = 900.0,
    weights: WeightsResolution | None = None,
    stand_in_config: GPT2Config | None = None,
    max_new_tokens: int | None = None,
    threads: int | None = None,
) -> ListingRun:
    """Run ``listing`` in a subprocess, offline, killed after ``timeout`` s; return a :class:`ListingRun`.

    ``workdir``: an empty folder, its working directory and Hugging Face cache. ``weights``: a
    :class:`~claimcheck.llm.weights.WeightsResolution` (real GPT-2 when it has it, else a stand-in of
    ``stand_in_config``). ``max_new_tokens``: the most tokens one ``generate`` call writes. ``threads``:
    torch's threads in its process; None: every core, which a busy machine oversubscribes.

    Raises:
        ListingError: the listing cannot be read or parsed, or loads a model other than GPT-2 with no
            real weights.
        ValueError: ``max_new_tokens`` or ``threads`` is not a positive integer.
    """
    for name, value in (("max_new_tokens", max_new_tokens), ("threads", threads)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    path = Path(listing).resolve()
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ListingError(f"{listing}: cannot read the listing: {exc}") from None
    models, files = scan_listing(source, str(listing))
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    hf_home = work / "hf-home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"} | _OFFLINE
    run = ListingRun(str(listing), source, timeout, max_new_tokens=max_new_tokens, threads=threads)
    _stage_models(run, env, models, weights, hf_home, stand_in_config)
    _stage_inputs(run, path, work, files)
    if threads is not None:
        env.update({"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)})
    _execute(run, path, work, env)
    return run


#: the listing's environment beside the caller's: offline, UTF-8, quiet
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
_OFFLINE |= {"PYTHONIOENCODING": "utf-8", "TOKENIZERS_PARALLELISM": "false"}


def _stage_models(
    run: ListingRun,
    env: dict[str, str],
    models: Iterable[str],
    weights: WeightsResolution | None,
    hf_home: Path,
    stand_in_config: GPT2Config | None,
) -> None:
    """Give each model the listing loads the cache's real weights, else a private ``HF_HOME`` with them
    linked in or a stand-in saved (GPT-2 only)."""
    real = weights.source if weights is not None else None  # None: no usable weights (not available)
    kind = weights.kind if weights is not None else None
    # "hub": downloaded into the cache when the run decided
    if real is not None and kind in ("hf-cache", "hub"):
        run.models = {m: f"real weights from the Hugging Face cache ({real})" for m in models}
        return
    env["HF_HOME"] = str(hf_home)
    env.pop("HF_HUB_CACHE", None), env.pop("TRANSFORMERS_CACHE", None)
    for m in models:
        if m.split("/")[-1] != "gpt2":
            raise ListingError(
                f"{run.listing}: loads {m!r}; the harness has a stand-in for GPT-2 small ('gpt2') only"
            )
        if real is not None and kind == "folder":
            run.models[m] = link_real_weights(hf_home, m, real)
        else:
            run.models[m] = save_stand_in(hf_home, m, stand_in_config)
            run.stand_in = True


def _stage_inputs(run: ListingRun, path: Path, work: Path, files: Iterable[str]) -> None:
    for name in files:
        beside, target = path.parent / name, work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if beside.is_file():
            shutil.copyfile(beside, target)
            run.inputs[name] = f"the editor's file beside the listing ({beside})"
        else:
            sample = sample_text()
            text = (sample.strip() + "\n\n") * (STAND_IN_TEXT_CHARS // max(1, len(sample)) + 1)
            target.write_text(text, encoding="utf-8")
            run.inputs[name] = (
                "stand-in text: this project's claimcheck/llm/data/sample.txt repeated "
                f"(~{STAND_IN_TEXT_CHARS} characters); {name} was not beside the listing"
            )
            run.stand_in = True


def _execute(run: ListingRun, path: Path, work: Path, env: dict[str, str]) -> None:
    run.versions = {p: version(p) for p in ("torch", "transformers")}
    events_path = work / "listing-events.jsonl"
    shim = Path(__file__).resolve().parent / "listing_shim.py"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-P", str(shim), str(events_path), str(path)]
            + ([str(run.max_new_tokens)] if run.max_new_tokens is not None else []),
            cwd=work,
            env=env,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=run.timeout_s,
        )
        run.returncode, run.stdout, run.stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        run.timed_out = True
        run.stdout, run.stderr = _output_text(exc.stdout), _output_text(exc.stderr)
    run.seconds = time.perf_counter() - t0
    if events_path.is_file():
        for line in events_path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError, TypeError):  # a line cut short by the time limit
                run.events.append(ListingEvent(**json.loads(line)))


def _output_text(out: bytes | str | None) -> str:
    """A timed-out process's captured output as text (bytes decoded; None: nothing)."""
    return out.decode("utf-8", "replace") if isinstance(out, bytes) else (out or "")

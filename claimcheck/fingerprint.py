"""The runner (``claims.json`` ``runner``): a hardware and software fingerprint without host or user
names, read locally (a kit adds fields: :mod:`claimcheck.llm.fingerprint`), and how busy the machine is.

Every page and message says a runner from one ordered table of (label, value) rows (:func:`table`):
the matrix's column header and full fingerprint, the claims page's and summary's runner line, a
failure's hardware line, pytest-html's header, and the notes of ``claimcheck diff``."""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from importlib import metadata
from typing import Any

from claimcheck.display import counted, is_number, json_object

#: how far the 1-min load average may exceed the usable cores (a quiet run reads ~cores) before "busy"
BUSY_LOAD_OVER_CORES = 1.0


def _cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    if sys.platform == "darwin":
        with contextlib.suppress(Exception):
            brand = ["sysctl", "-n", "machdep.cpu.brand_string"]
            out = subprocess.run(brand, capture_output=True, text=True, timeout=2).stdout.strip()
            return out or platform.processor()
    return platform.processor() or platform.machine()


def _ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _usable_cores() -> int | None:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def runner_fingerprint(profile: str | None = None) -> dict:
    """The core's runner fingerprint, a JSON-ready dict without host or user names: cpu, cores (usable
    by this process), ram_bytes, os, machine, python, runner_profile; gpu, torch, transformers and
    torch_threads are None (the LLM kit fills them)."""
    return {
        "cpu": _cpu_model(),
        "cores": _usable_cores(),
        "ram_bytes": _ram_bytes(),
        "gpu": None,
        "os": platform.platform(terse=True),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "torch": None,
        "transformers": None,
        "torch_threads": None,
        "runner_profile": profile,
    }


def version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or None when it is not installed."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def settings_size_profile(settings: Mapping[str, Any] | None) -> str | None:
    """The size profile of a claims.json ``settings`` (``size_profile``; ``profile`` in older files)."""
    settings = settings or {}
    return settings.get("size_profile", settings.get("profile"))


#: the fields whose change ``claimcheck diff`` notes (the core's and the kit's)
DIFF_NOTES = ("cpu", "cores", "gpu", "torch", "transformers", "torch_threads")
#: the fields the table says in words (:data:`LABELS`); every other field follows by its dotted name
_SAID = "cpu cores ram_bytes gpu python torch transformers torch_threads os machine runner_profile".split()
#: the labels of the rows in words, in the table's order; the core's and the kit's fields
LABELS = "CPU machine ISA cores RAM GPU VRAM GPUs driver CUDA OS Python torch transformers threads".split()
LABELS += ["profile", "runner", "weights", "busy"]


def table(runner: Mapping[str, Any] | None, settings: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The runner fingerprint (``claims.json`` ``runner``, free-form: the core's fields and those the
    kits' hook ``pytest_claimcheck_runner_fingerprint`` adds) and its run's ``settings`` as one
    ordered table, label -> value in words, empty fields left out: the rows of :data:`LABELS`
    (``cores``: ``"2 cores"``, ``RAM``/``VRAM``: ``"24 GiB"``, ``GPUs``: ``"x2"``, ``torch``: ``"torch
    2.13.0"``, ``threads``: ``"1 thread"``...), then each other field by its dotted name
    (``load.probe_s``), floats to four significant digits, lists joined. Every place that shows a
    runner says it from this table (:func:`runner_line`, :func:`runner_brief`,
    :func:`fingerprint_lines`, :func:`describe`, :func:`describe_long`)."""
    r, s = runner or {}, settings or {}
    gpu, w = json_object(r.get("gpu")), json_object(r.get("weights"))
    gpu = gpu if gpu.get("name") else {}  # a GPU without a name: none
    ram, mem, n = r.get("ram_bytes"), gpu.get("memory_bytes"), gpu.get("count")
    rows = {
        "CPU": r.get("cpu"),
        "machine": r.get("machine"),
        "ISA": r.get("cpu_capability"),
        "cores": r.get("cores") and f"{r['cores']} cores",
        "RAM": is_number(ram) and f"{ram / 2**30:.0f} GiB",
        "GPU": gpu.get("name"),
        "VRAM": is_number(mem) and f"{mem / 2**30:.0f} GiB",
        "GPUs": is_number(n) and n > 1 and f"x{n}",
        "driver": gpu.get("driver") and f"driver {gpu['driver']}",
        "CUDA": gpu.get("cuda") and f"CUDA {gpu['cuda']}",
        "OS": r.get("os"),
        **{name: r.get(key) and f"{name} {r[key]}" for key, name in _LIBS},
        "threads": r.get("torch_threads") and counted(r["torch_threads"], "thread"),
        "profile": settings_size_profile(s),
        "runner": r.get("runner_profile") or s.get("runner_profile") or s.get("runner"),
        "weights": w and (HAS_WEIGHTS if w.get("available") else "no weights"),
        "busy": json_object(r.get("load")).get("busy") and "busy",
    }
    rest = {k: v for k, v in r.items() if k not in _SAID}
    return {k: str(v) for k, v in rows.items() if v} | dict(_flatten(rest))


#: the ``weights`` row of a run that had the pretrained weights
HAS_WEIGHTS = "GPT-2 weights"
_LIBS = (("python", "Python"), ("torch", "torch"), ("transformers", "transformers"))


def _flatten(d: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted key, value)`` of a nested fingerprint: empty fields left out, floats to four
    significant digits, lists joined."""
    for k, v in d.items():
        if v is None or v == {} or v == [] or v == "":
            continue
        if sub := json_object(v):
            yield from _flatten(sub, f"{prefix}{k}.")
        elif isinstance(v, float):
            yield f"{prefix}{k}", f"{v:.4g}"
        else:
            yield f"{prefix}{k}", ", ".join(map(str, v)) if isinstance(v, list) else str(v)


def _rows(t: Mapping[str, str], labels: str, sep: str = ", ") -> str:
    """The values of the table ``t``'s rows ``labels`` (space-separated) that it has, joined by ``sep``."""
    return sep.join(t[k] for k in labels.split() if k in t)


def _parts(*texts: str | bool | None) -> str:
    """The ``texts`` that are not empty (or False), joined by commas."""
    return ", ".join(str(t) for t in texts if t)


def _gpu_words(t: Mapping[str, str]) -> str:
    return f"GPU {_rows(t, 'GPU VRAM GPUs', ' ')}" if "GPU" in t else "no GPU"


def runner_line(runner: Mapping[str, Any] | None) -> str:
    """The runner in one line (the claims page and the summary): CPU (machine, ISA), cores, RAM, GPU;
    libraries and threads."""
    t = table(runner)
    isa = _rows(t, "machine ISA")
    cpu = t.get("CPU", "unknown CPU") + (f" ({isa})" if isa else "")
    ram = f"{t['RAM']} RAM" if "RAM" in t else ""
    libs = _rows(t, "Python torch transformers threads")
    return _parts(cpu, t.get("cores"), ram, _gpu_words(t)) + (f"; {libs}" if libs else "")


def runner_brief(runner: Mapping[str, Any] | None, settings: Mapping[str, Any] | None = None) -> list[str]:
    """The matrix's column header: the hardware and torch, then (when any) how the run was set up."""
    t = table(runner, settings)
    cpu = t.get("CPU", "unknown CPU") + (f" ({t['ISA']})" if "ISA" in t else "")
    run = _parts(
        t.get("threads"),
        "profile" in t and f"profile {t['profile']}",
        "runner" in t and f"runner {t['runner']}",
        _rows(t, "weights busy"),  # timings from a busy machine compare badly
    )
    return [_parts(cpu, t.get("cores"), _gpu_words(t), t.get("torch"))] + ([run] if run else [])


def fingerprint_lines(
    runner: Mapping[str, Any] | None, settings: Mapping[str, Any] | None = None
) -> list[str]:
    """The whole fingerprint as short lines (the matrix's "full fingerprint"): CPU, GPU, libraries, OS,
    profile, then every other field as ``key: value``."""
    t = table(runner, settings)
    lines = []
    if "CPU" in t or "cores" in t:
        ram = f", {t['RAM']} RAM" if "RAM" in t else ""
        lines.append(f"CPU: {t.get('CPU', '?')} ({t.get('cores', '? cores')}{ram})")
    lines.append("GPU: " + (_rows(t, "GPU VRAM driver CUDA GPUs") or "none"))
    lines += [libs] if (libs := _rows(t, "Python torch transformers threads")) else []
    lines += [f"OS: {t['OS']}"] if "OS" in t else []
    if "profile" in t or "runner" in t:
        lines.append(
            f"profile: {t.get('profile', '?')}" + (f", runner: {t['runner']}" if "runner" in t else "")
        )
    return lines + [f"{k}: {v}" for k, v in t.items() if k not in LABELS]


def describe_long(fp: Mapping[str, Any]) -> str:
    """The fingerprint in one line for a report's header."""
    t = table(fp)
    ram = f"{fp['ram_bytes'] / 2**30:.1f} GiB" if fp.get("ram_bytes") else "?"
    cpu = f"{t.get('CPU')}" + (f" [{t['ISA']}]" if "ISA" in t else "")
    gpu, libs = f"GPU {t.get('GPU', 'none')}", _rows(t, "Python torch transformers")
    threads = f" ({t['threads']})" if "threads" in t else ""
    return _parts(cpu, t.get("cores"), f"{ram} RAM", gpu, t.get("OS"), libs) + threads


def describe(fp: Mapping[str, Any]) -> str:
    """One line for failure messages: ``'Intel Xeon ... (2 cores, 24 GiB, no GPU, torch 2.13.0)'``."""
    t = table(fp)
    what = _parts(t.get("cores"), t.get("ISA"), t.get("RAM", "? GiB"), t.get("GPU", "no GPU"))
    return f"{t.get('CPU')} ({_parts(what, _rows(t, 'torch threads'))})"


def load_average() -> tuple[float | None, int]:
    """(1-minute load average, or None where the OS has none; usable cores)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return load, _usable_cores() or 1


def busy_by_load(load: float | None, cores: int) -> str:
    """Why the machine counts as busy by its load average (``""`` when it does not, or is unknown)."""
    if load is not None and load > cores + BUSY_LOAD_OVER_CORES:
        return f"1-min load average {load:.1f} on {cores} cores"
    return ""


def runnable_others(samples: int = 5, interval_s: float = 0.05) -> int | None:
    """How many other tasks are runnable now (the median of ``/proc/loadavg``'s running count less this
    process, sampled), or None where the OS does not say. Unlike the load average it does not lag."""
    counts = []
    for n in range(samples):
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                running = int(f.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return None
        counts.append(max(0, running - 1))
        if n + 1 < samples:
            time.sleep(interval_s)
    return int(statistics.median(counts))


def choose_threads(setting: str, cores: int, others: int | None, load: float | None) -> tuple[int, str]:
    """(torch threads for ``--claims-threads``, why). ``auto``: the cores other work leaves free
    (``others``, else the load average), at least 1: on a 2-core EPYC with 2 busy processes a GPT-2
    small prefill + 16 decode steps took 13.4 s with 2 threads, 7.5 s with 1; idle, 2 were 1.4x
    faster (docs/timing.md#threads)."""
    if setting != "auto":
        return int(setting), f"--claims-threads {setting}"
    busy = others if others is not None else (int(load) if load is not None else 0)
    n = max(1, cores - busy)
    where = f"{busy} other runnable task(s)" if others is not None else f"1-min load average {load}"
    return n, f"auto: {cores} cores, {where} at the start: {n} thread(s)"

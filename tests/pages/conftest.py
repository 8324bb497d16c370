"""A realistic ``claims.json`` of the whole chapter, built by hand from the shipped registry.

It is what ``pytest claims/`` writes on a 2-core CPU runner without GPT-2's weights, a GPU or the
chapter's listing (outcomes and magnitudes as measured on this project's CI machine), plus one
failed timing claim (through ``claim.require``, with its headline value), one inconclusive one
with a confidence interval, and the four plots the timing claims draw. The page tests render it
without running a single claim.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "claims" / "ch15" / "claims.toml"
DATA = ROOT / "tests" / "data"

NO_WEIGHTS = (
    "needs the pretrained GPT-2 weights, which this runner does not have: no folder or hub id given "
    "(--claims-weights / CLAIMCHECK_WEIGHTS); 'gpt2' is not in the Hugging Face cache (looked up offline). "
    "Provide them with --claims-weights DIR."
)
NO_GPU = "needs a CUDA GPU; torch 2.13.0+cpu sees none (a CPU-only build of torch)"


def _bound(cid, stated, unit, here):
    return (
        f"machine-bound: the chapter's {stated} {unit} was measured on runner 'author-laptop'; this runner "
        f"has no runner profile (--claims-runner NAME), measured here {here}. Its portable form is checked by another "
        f"claim; enforce this one with --claims-runner author-laptop."
    )


# id -> (outcome, measured, extra fields)
RESULTS = {
    "C01": ("skipped", 1893.2, {"reason": _bound("C01", "5947", "token/s", "1893.2 token/s")}),
    "C02": ("skipped", 81.4, {"reason": _bound("C02", "98", "token/s", "81.4 token/s")}),
    "C03": ("passed", 36.0, {}),
    "C04": ("passed", [5.0, 5.0], {}),
    "C05": (
        "passed",
        23.26,
        {
            "plot": "read_write",
            "details": {"ci": {"low": 21.9, "high": 24.7, "level": 0.95, "bar": "at least 10", "rounds": 7}},
        },
    ),
    "C06": ("passed", 0.0, {}),
    "C07": ("passed", 1023, {}),
    "C08": ("passed", 511, {}),
    "C09": ("passed", 1.9854101992828532, {}),
    "C10": ("passed", 497.759232, {}),
    "C11.text": ("passed", [60.370558375634516, 61.0], {}),
    "C11.time": ("skipped", 0.2705, {"reason": _bound("C11.time", "0.086", "s", "0.2705 s")}),
    "C12": ("passed", 3.71, {"plot": "bandwidth"}),
    "C13": ("passed", 9.8, {}),
    "C14": ("passed", 0, {}),
    "C15.text": ("passed", [5.617876424715057, 5.625825825825826], {}),
    "C15.time": ("passed", 2.41, {}),
    "C15.laptop": (
        "skipped",
        None,
        {
            "reason": "the chapter's absolute times are for 256 and 768 new tokens; profile "
            "'standard' measured 64, 128, 256: run --claims-profile full to compare"
        },
    ),
    "C16": (
        "failed",
        1.38,
        {
            "plot": "forward_pass",
            "verdict_reason": "uncached total time grows no faster than cached: n^1.21 vs n^1.02",
            "details": {
                "failed_conditions": ["uncached total time grows no faster than cached: n^1.21 vs n^1.02"]
            },
        },
    ),
    "C17": ("passed", 2.86102294921875e-06, {}),
    "C18": ("passed", 36864.0, {}),
    "C19": ("passed", 128.0, {}),
    "C20": (
        "inconclusive",
        1.07,
        {
            "details": {
                "ci": {"low": 0.99, "high": 1.16, "level": 0.95, "bar": "at least 1.05", "rounds": 12}
            },
            "reason": "the 95% confidence interval [0.99, 1.16] straddles the bar 1.05 "
            "after 12 rounds (the time budget of profile standard)",
        },
    ),
    "C21": ("passed", 8505.6, {}),
    "C22": ("passed", 1.70112, {}),
    "C23": ("passed", 2.6618112000000003, {}),
    "C24": ("passed", 1.0, {}),
    "C25": (
        "skipped",
        None,
        {
            "reason": "external data: the price list (as of 2026-10) cannot be verified "
            "offline; its internal arithmetic is checked by C04, C26 and C27",
            "cause": "external",
        },
    ),
    "C26": ("passed", [5.0, 5.0], {}),
    "C27": ("passed", [20.0, 20.0], {}),
    "C28": ("passed", 1.7881393432617188e-06, {}),
    "C29": ("passed", 3, {}),
    "C30.text": ("passed", [0.0877500251569554, 0.12784042499211407], {}),
    "C30.model": ("skipped", None, {"reason": NO_WEIGHTS, "cause": "weights"}),
    "C31": ("skipped", None, {"reason": NO_WEIGHTS, "cause": "weights"}),
    "C32": ("passed", 0, {}),
    "C33.output": (
        "skipped",
        None,
        {
            "reason": "needs the chapter's listing: pass --claims-listing FILE "
            "(your copy of the chapter's code)",
            "cause": "listing",
        },
    ),
    "C33.api": (
        "skipped",
        None,
        {
            "reason": "needs the chapter's listing: pass --claims-listing FILE "
            "(your copy of the chapter's code)",
            "cause": "listing",
        },
    ),
    "C34": ("skipped", None, {"reason": NO_GPU, "cause": "gpu"}),
    "C35": ("passed", 11.3, {"plot": "batch"}),
    "C36": ("passed", 9.8, {}),
    "C37": ("skipped", None, {"reason": NO_WEIGHTS, "cause": "weights"}),
}


def _plot_png(kind: str) -> bytes:
    from claimcheck.llm import plots
    from claimcheck.llm.speed import fit_power_law

    if kind == "read_write":
        return plots.read_write_plot([1801.0, 1893.2, 1910.5], [78.2, 81.4, 83.0])
    if kind == "bandwidth":
        return plots.bandwidth_plot([3.9e10, 4.1e10, 4.0e10], [1.1e10, 1.2e10, 1.15e10])
    if kind == "batch":
        return plots.batch_plot({1: [0.012, 0.013], 8: [0.018, 0.019], 32: [0.041, 0.043]})
    lengths = [64, 128, 256]
    samples = {n: [0.0002 * n * n, 0.00021 * n * n] for n in lengths}
    fit = fit_power_law(lengths, [samples[n][0] for n in lengths])
    return plots.forward_pass_plot(lengths, samples, fit)


def build_run(folder: Path, with_plots: bool = True, registry: Path = REGISTRY, results=None) -> Path:
    """Write a realistic ``claims.json`` (and its plot files) of a full run into ``folder``; return its path."""
    from claimcheck.pages.words import measured_value
    from claimcheck.registry import claim_lines, load_registry
    from claimcheck.results import ClaimEntry

    reg = load_registry(registry)
    assert reg.issues == [], reg.issues
    lines = claim_lines(registry)
    results = RESULTS if results is None else results
    folder.mkdir(parents=True, exist_ok=True)
    claims = []
    for c in reg.claims.values():
        outcome, measured, extra = results.get(c.id, ("passed", float(c.stated) if c.stated else 0.0, {}))
        extra = dict(extra)
        entry = {
            "id": c.id,
            "outcome": outcome,
            "title": c.title,
            "stated": c.stated,
            "measured": measured,
            "measured_display": None,
            "unit": c.unit,
            "tolerance": c.tolerance_text,
            "reason": extra.pop("reason", ""),
            **({"cause": extra.pop("cause")} if "cause" in extra else {}),  # as a run writes a skip's
            **{k: extra.pop(k) for k in ("hardware", "next_step") if k in extra},  # and a failure's facts
            "needs": list(c.needs),
            "locator": c.locator,
            "runner_bound": c.runner,
            "details": extra.pop("details", {}),
            "tests": [f"claims/ch15/test_x.py::test_{c.id}"],
            "duration_s": 0.4,
            "section": c.section,
            "note": c.note,
            "verdict_reason": extra.pop("verdict_reason", None),
            "selected": True,
            "locations": [
                {
                    "test": f"claims/ch15/test_x.py::test_{c.id}",
                    "file": "claims/ch15/test_x.py",
                    "line": 10 + len(claims),
                }
            ],
            "registry_line": lines.get(c.id),
            "plots": [],
            **({"formula": c.formula} if c.formula else {}),  # as a run writes them
            **({"cites": c.cites} if c.cites else {}),
        }
        entry["measured_display"] = measured_value(ClaimEntry.from_dict(entry)) or None
        kind = extra.pop("plot", None)
        if kind and with_plots:
            rel = f"plots/{c.id}-1.png"
            (folder / "plots").mkdir(exist_ok=True)
            (folder / rel).write_bytes(_plot_png(kind))
            entry["plots"] = [{"name": kind.replace("_", " "), "file": rel}]
        claims.append(entry)
    from claimcheck.outcomes import count

    doc = {
        "schema": 1,
        "generated": "2026-12-01T09:40:00Z",
        "wall_s": 171.4,
        "runner": {
            "cpu": "AMD EPYC",
            "cores": 2,
            "ram_bytes": 25276502016,
            "gpu": None,
            "os": "Linux-6.18-x86_64-with-glibc2.36",
            "machine": "x86_64",
            "python": "3.11.7",
            "torch": "2.13.0+cpu",
            "transformers": "5.24.0",
            "torch_threads": 2,
            "cpu_capability": "AVX512",
            "runner_profile": None,
            "weights": {"available": False, "reason": NO_WEIGHTS},
        },
        "settings": {"size_profile": "standard", "runner_profile": None, "device": "auto", "sources": {}},
        "profile": {
            "name": "standard",
            "description": "standard (reduced sizes, not the chapter's): read 512 tokens, write 96 tokens",
        },
        "registries": [
            {
                "path": str(registry),
                "chapter": reg.chapter,
                "runners": reg.runners,
                "issues": [],
                "problems": [],
            }
        ],
        "sections": [{"id": s.id, "title": s.title, "heading": s.heading} for s in reg.sections],
        "counts": count(e["outcome"] for e in claims),
        "claims": claims,
        "test_log": "tests.html",
        "deselected": [
            {
                "kind": "lane",
                "tests": 5,
                "claims": [reg.key(c) for c in ("C06", "C14", "C18", "C28", "C30.model")],
                "why": "the portable-LM lane's, which runs only when asked for (--claims-lm NAME) and then "
                "alone, into its own report (reports/portable-smollm2/)",
                "run": "pytest claims/ --claims-lm smollm2",
            }
        ],
    }
    path = folder / "claims.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    (folder / "tests.html").write_text("<!DOCTYPE html><title>test log</title>", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def full_run(tmp_path_factory) -> Path:
    """A realistic claims.json of the whole chapter, with its plot files (do not modify it)."""
    return build_run(tmp_path_factory.mktemp("full-run") / "reports")


@pytest.fixture
def run_copy(full_run, tmp_path) -> Path:
    """A copy of :func:`full_run`'s report folder that a test may change."""
    import shutil

    dest = tmp_path / "reports"
    shutil.copytree(full_run.parent, dest)
    return dest / "claims.json"


class _Elements:
    """Every start tag of an HTML page as ``(tag, attrs dict)``, and the text, via the standard library."""

    def __init__(self, page: str):
        from html.parser import HTMLParser

        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        outer = self

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                outer.tags.append((tag, dict(attrs)))

            def handle_data(self, data):
                outer.text.append(data)

        P(convert_charrefs=True).feed(page)

    def find(self, tag: str, **attrs) -> list[dict]:
        """Attributes of every ``tag`` whose attributes include ``attrs`` (``class_`` matches one class)."""
        want_class = attrs.pop("class_", None)
        out = []
        for t, a in self.tags:
            if t != tag or any(a.get(k) != v for k, v in attrs.items()):
                continue
            if want_class and want_class not in (a.get("class") or "").split():
                continue
            out.append(a)
        return out


@pytest.fixture
def parse():
    """``parse(html)`` -> an object with ``.find(tag, **attrs)`` and ``.text`` (the page's text nodes)."""
    return _Elements


@pytest.fixture(scope="session")
def shipped_registry():
    """The chapter's registry, claims/ch15/claims.toml, loaded."""
    from claimcheck.registry import load_registry

    return load_registry(REGISTRY)


@pytest.fixture(scope="session")
def make_run():
    """``make_run(folder, with_plots=True, registry=..., results=...)``: :func:`build_run` for a test's own run."""
    return build_run


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: our own manuscript (manuscript_zh.md) and its registry (ms_registry.toml)."""
    return DATA


@pytest.fixture
def ms_run(tmp_path, make_run, data_dir):
    """A run over our own test manuscript (tests/data): claims.json naming the manuscript and its registry."""
    ms = tmp_path / "chapter.md"
    ms.write_text((data_dir / "manuscript_zh.md").read_text(encoding="utf-8"), encoding="utf-8")
    results = {
        "T01": ("skipped", 180.2, {"reason": "machine-bound: ..."}),
        "T03": ("failed", 4.2, {}),
        "T02": ("passed", 40.0, {}),
    }
    path = make_run(
        tmp_path / "reports", with_plots=False, registry=data_dir / "ms_registry.toml", results=results
    )
    from claimcheck.manuscript import check_manuscript
    from claimcheck.registry import load_registry

    doc = json.loads(path.read_text(encoding="utf-8"))
    reg = load_registry(data_dir / "ms_registry.toml")
    doc["manuscripts"] = [check_manuscript(ms, reg).as_dict()]
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path, ms


BOOK_CH90 = DATA / "book" / "ch90"

#: ch90's rows in the book run: C03 (a claim the chapter states without a number) fails
CH90_RESULTS = {
    "C01": ("passed", [36.0, 36.0], {}),
    "C02": ("passed", 36864, {}),
    "C03": ("failed", 3, {"verdict_reason": "3 of 8 tokens differ with the cache"}),
    "C04": ("passed", 2.0, {}),
}

#: the size profile of each chapter, as the kit records it (``chapters[].profile``)
BOOK_PROFILES = {
    "ch15": {
        "name": "standard",
        "description": "standard (reduced sizes, not the chapter's): read 512 tokens, write 96 tokens, "
        "batches 1/8/32",
    },
    "ch90": {"name": "standard", "description": "standard: read 512 tokens"},
}


def build_book(folder: Path, ch90_results=None, ch90_tolerances=None) -> Path:
    """A ``claims.json`` of a book of two chapters whose claim ids overlap: ch15 (as
    :func:`build_run` writes it) and our toy chapter tests/data/book/ch90 (``ch90_results``,
    default :data:`CH90_RESULTS`; ``ch90_tolerances``: ``{id: tolerance}`` replacing the
    registry's), each chapter with its own profile (:data:`BOOK_PROFILES`) and ch90's manuscript
    checked (copied beside the report). Returns the path of the JSON."""
    from claimcheck.manuscript import check_manuscript
    from claimcheck.registry import load_registry

    one = build_run(folder / "ch15-part", with_plots=False)
    doc = json.loads(one.read_text(encoding="utf-8"))
    ch90 = json.loads(
        build_run(
            folder / "ch90-part",
            with_plots=False,
            registry=BOOK_CH90 / "claims.toml",
            results=CH90_RESULTS if ch90_results is None else ch90_results,
        ).read_text(encoding="utf-8")
    )
    for part, chapter in ((doc, "ch15"), (ch90, "ch90")):
        for e in part["claims"]:
            e["chapter"], e["key"] = chapter, f"{chapter}:{e['id']}"
            e["tolerance"] = (
                (ch90_tolerances or {}).get(e["id"], e["tolerance"]) if chapter == "ch90" else e["tolerance"]
            )
        for s in part["sections"]:
            s["chapter"] = chapter
    doc["schema"] = 2  # claims keyed by chapter:id
    doc["claims"] += ch90["claims"]
    doc["sections"] += ch90["sections"]
    doc["registries"] += ch90["registries"]
    doc["chapters"] = [
        {
            "id": reg["chapter"]["id"],
            "title": reg["chapter"]["title"],
            "registry": reg["path"],
            "profile": BOOK_PROFILES[reg["chapter"]["id"]],
        }
        for reg in doc["registries"]
    ]
    from claimcheck.outcomes import count

    doc["counts"] = count(e["outcome"] for e in doc["claims"])
    ms = folder / "ch90.md"
    ms.write_text((BOOK_CH90 / "ch90.md").read_text(encoding="utf-8"), encoding="utf-8")
    doc["manuscripts"] = [check_manuscript(ms, load_registry(BOOK_CH90 / "claims.toml")).as_dict()]
    path = folder / "claims.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    (folder / "tests.html").write_text("<!DOCTYPE html><title>test log</title>", encoding="utf-8")
    return path


@pytest.fixture
def book_run(tmp_path) -> Path:
    """A two-chapter book's ``claims.json`` (:func:`build_book`), in a test's own folder."""
    return build_book(tmp_path / "reports")

"""Benchmarks of the harness itself (not tests): profile wall times, slowest claims, ratio spread.

Each run is `pytest` in its own process, reports under reports/bench/; --avx2 runs torch as on an
AVX2-only CPU; --load K starts K busy processes during each run (and stops them).

profiles [--profiles quick standard] [--runs 3] [--avx2] [--test-command]
    Each profile's wall time (or the README's whole test command's) against its budget (claims:
    quick 90 s, standard 240 s, full 1200 s; test command 240 s), the ten costliest claims, the
    spread of the read/write ratio (C05); exit 1 when a run is over.
stability [--profile quick] [--runs 10] [--load K] [--avx2]
    Per claim, the outcomes seen and the spread of its measured value; exit 1 when a claim moved
    between passed and failed.
tests [--runs 3] [--load K] [--avx2]
    The README's test command (two xdist workers) N times: each run's wall time, min / median / max against the loop's
    budget (180 s idle, 360 s beside 2 busy processes, on a 2-core runner) and the ten slowest tests
    of the last run; exit 1 when the median is over.
bare [--read 512] [--write 96] [--rounds 3]
    In ONE process, alternates the harness's read/write measurement (claimcheck.llm.speed.read_write_rounds)
    with a bare script written like the chapter's listing (perf_counter around one prefill and one
    decode loop) and prints both ratios per round.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


# torch as on an AVX2-only runner: ATen's and oneDNN's kernels, and MKL's, which dispatches by itself
AVX2_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}
BUDGETS_S = {"quick": 90, "standard": 240, "full": 1200}  # claims only, on a 2-core AVX2 runner
TEST_COMMAND_BUDGET_S = 240  # the README's whole test command: harness tests + quick claims
TESTS_BUDGET_S = {0: 180, 2: 360}  # the test command's median on a 2-core runner, idle and beside load
TEST_COMMAND_WORKERS = ["-n", "2", "--dist", "loadgroup"]  # as the README's test command (docs/ci.md)


def _pytest_run(
    profile: str, out: Path, extra: list[str], env: dict[str, str], whole_suite: bool = False
) -> tuple[float, subprocess.CompletedProcess[str], dict[str, Any]]:
    """One pytest run in its own process; returns (wall seconds, the process, the claims.json document)."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--claims-profile", profile]
    cmd += TEST_COMMAND_WORKERS if whole_suite else ["claims/"]
    cmd += ["--claims-report-dir", str(out.relative_to(ROOT)), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **env})
    wall = time.perf_counter() - t0
    path = out / "claims.json"
    doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"claims": [], "counts": {}}
    if proc.returncode not in (0, 1) or not doc["claims"]:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
    return wall, proc, doc


def run_profiles(
    profiles: Iterable[str], runs: int, extra: list[str], env: dict[str, str], whole_suite: bool = False
) -> int:
    """Wall time of each profile against its budget, and the ten costliest claims of each run."""
    ratios: dict[str, list[float]] = {}
    over = 0
    for profile in profiles:
        for i in range(runs):
            out = ROOT / "reports" / "bench" / f"{profile}-{i + 1}"
            wall, proc, doc = _pytest_run(profile, out, extra, env, whole_suite)
            claims = doc["claims"]
            budget = TEST_COMMAND_BUDGET_S if whole_suite else BUDGETS_S[profile]
            in_pytest = doc.get("wall_s", wall)
            verdict = "within" if in_pytest <= budget else "OVER"
            over += in_pytest > budget
            what = "test command (tests + claims)" if whole_suite else "claims"
            print(
                f"{profile} run {i + 1}: {what} {in_pytest:.0f} s in pytest ({wall:.0f} s wall), {verdict} "
                f"the {budget} s budget; exit {proc.returncode}; {doc['counts']}; ISA {doc.get('runner', {}).get('cpu_capability')}"
            )
            slow = sorted(claims, key=lambda c: c["duration_s"], reverse=True)[:10]
            print("  ten costliest: " + ", ".join(f"{c['id']} {c['duration_s']:.1f} s" for c in slow))
            print("  verdicts: " + " ".join(f"{c['id']}={c['outcome']}" for c in claims))
            c05: dict[str, Any] = next((c for c in claims if c["id"] == "C05"), {})
            if isinstance(c05.get("measured"), (int, float)):
                ratios.setdefault(profile, []).append(c05["measured"])
    for profile, rs in ratios.items():
        spread = f"min {min(rs):.1f}, median {statistics.median(rs):.1f}, max {max(rs):.1f}"
        print(f"read/write ratio (C05) over {len(rs)} {profile} runs: {spread} x")
    return 1 if over else 0


@contextlib.contextmanager
def busy_load(k: int, seconds: float) -> Iterator[None]:
    """``k`` busy processes (spin loops) that stop by themselves after ``seconds``, killed on exit."""
    # a SIGTERM to the benchmark (timeout, kill) must stop the load too: SystemExit runs the finally
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(k)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def run_stability(
    profile: str, runs: int, load: int, extra: list[str], env: dict[str, str], load_seconds: float
) -> int:
    """Per claim, the outcomes seen and the spread of the measured value; 1 when a claim flipped."""
    seen: defaultdict[str, list[str]] = defaultdict(list)  # claim id -> outcomes
    values: defaultdict[str, list[float]] = defaultdict(list)  # claim id -> measured values
    for i in range(runs):
        out = ROOT / "reports" / "bench" / f"stability-{profile}-load{load}-{i + 1}"
        with busy_load(load, load_seconds) if load else contextlib.nullcontext():
            wall, proc, doc = _pytest_run(profile, out, extra, env)
        print(
            f"run {i + 1}/{runs} (load {load}): {wall:.0f} s, exit {proc.returncode}, {doc['counts']}",
            flush=True,
        )
        for c in doc["claims"]:
            seen[c["id"]].append(c["outcome"])
            if isinstance(c.get("measured"), (int, float)) and not isinstance(c.get("measured"), bool):
                values[c["id"]].append(float(c["measured"]))
    flipped = []
    print(f"\n{'claim':<12} {'outcomes':<44} measured (min / median / max)")
    for cid, outs in seen.items():
        v = values.get(cid, [])
        spread = f"{min(v):.4g} / {statistics.median(v):.4g} / {max(v):.4g}" if v else "-"
        moved = "passed" in outs and "failed" in outs
        flipped += [cid] if moved else []
        text = ", ".join(f"{n} {o}" for o, n in Counter(outs).items())
        print(f"{cid:<12} {text:<44} {spread}{'   <- moved between passed and failed' if moved else ''}")
    names = f": {', '.join(flipped)}" if flipped else ""
    print(f"\n{len(flipped)} claims moved between passed and failed{names}")
    return 1 if flipped else 0


def run_tests(runs: int, load: int, extra: list[str], env: dict[str, str], load_seconds: float) -> int:
    """The README's test command ``runs`` times: each run's wall time, then min / median / max and the
    ten slowest tests of the last run; 1 when the median is over ``TESTS_BUDGET_S`` for that load."""
    walls: list[float] = []
    durations = ""
    for i in range(runs):
        out = ROOT / "reports" / "bench" / f"tests-load{load}-{i + 1}"
        with busy_load(load, load_seconds) if load else contextlib.nullcontext():
            wall, proc, _ = _pytest_run("quick", out, ["--durations=10", *extra], env, whole_suite=True)
            walls.append(wall)
        lines = proc.stdout.strip().splitlines()
        closing = lines[-1] if lines else proc.stderr.strip()[-300:]
        print(
            f"run {i + 1}/{runs} (load {load}): {walls[-1]:.0f} s, exit {proc.returncode}: {closing}",
            flush=True,
        )
        # the list ends at a blank line, a "(... hidden)" note or pytest's next rule (pytest-html's line)
        found = re.search(r"=+ slowest 10 durations =+\n(.*?)\n(?=\n|\(|-{3,}|={3,})", proc.stdout, re.S)
        durations = found.group(1) if found else durations
    budget = TESTS_BUDGET_S.get(load)
    median = statistics.median(walls)
    print(
        f"\ntest command over {runs} runs (load {load}): min {min(walls):.0f} s, median {median:.0f} s, "
        f"max {max(walls):.0f} s" + (f"; budget {budget} s (median)" if budget else "")
    )
    if durations:
        print("slowest tests of the last run:\n" + durations)
    return 1 if budget is not None and median > budget else 0


def run_bare(read_tokens: int, write_tokens: int, rounds: int) -> int:
    """The harness's read/write ratio against a bare script's, alternating, ``rounds`` times."""
    import torch

    from claimcheck.llm.models import forward_cached, gpt2_tokenizer, output_cache, prompt_ids, random_gpt2
    from claimcheck.llm.speed import read_write_rounds

    model = random_gpt2(seed=0)
    x = prompt_ids(max(read_tokens, write_tokens + 1), gpt2_tokenizer())

    def bare() -> float:
        # written like the chapter's listing: one warm-up forward, then one timed read and one timed write
        with torch.no_grad():
            model(x[:, :read_tokens])
            t = time.perf_counter()
            model(x[:, :read_tokens])
            read = time.perf_counter() - t
            cache = output_cache(forward_cached(model, x[:, :1]))
            t = time.perf_counter()
            for i in range(1, write_tokens + 1):
                cache = output_cache(forward_cached(model, x[:, i : i + 1], cache))
            write = time.perf_counter() - t
        return (read_tokens / read) / (write_tokens / write)

    print(f"torch threads {torch.get_num_threads()}, read {read_tokens} tokens, write {write_tokens} tokens")
    harness_r, bare_r = [], []
    for r in range(rounds):
        h = read_write_rounds(model, x, read_tokens, write_tokens, warmup=1).run(3)
        harness_r.append(h.stats("write").median / h.stats("read").median * read_tokens / write_tokens)
        bare_r.append(bare())
        print(f"round {r + 1}: harness {harness_r[-1]:.1f}x  bare script {bare_r[-1]:.1f}x")
    print(
        f"median: harness {statistics.median(harness_r):.1f}x, bare {statistics.median(bare_r):.1f}x, "
        f"harness/bare {statistics.median(harness_r) / statistics.median(bare_r):.3f}"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="mode", required=True)
    profiles = ["quick", "standard", "full"]
    p = sub.add_parser("profiles", help="wall time per profile against its budget, ten costliest claims")
    p.add_argument("--profiles", nargs="+", default=["quick", "standard"], choices=profiles)
    p.add_argument("--runs", type=int, default=1)
    what = "time the README's whole test command (harness tests + claims) instead of claims/"
    p.add_argument("--test-command", action="store_true", help=what)
    what = "outcomes and measured spread per claim over N runs, optionally under load"
    st = sub.add_parser("stability", help=what)
    st.add_argument("--profile", default="quick", choices=profiles)
    st.add_argument("--runs", type=int, default=10)
    t = sub.add_parser("tests", help="the README's test command N times: min / median / max wall time")
    t.add_argument("--runs", type=int, default=3)
    for q in (st, t):
        q.add_argument(
            "--load", type=int, default=0, metavar="K", help="busy processes to start during each run"
        )
        q.add_argument(
            "--load-seconds", type=float, default=900.0, help="a busy process stops by itself after this"
        )
    avx2 = "run torch as on an AVX2-only CPU (" + ", ".join(f"{k}={v}" for k, v in AVX2_ENV.items()) + ")"
    for q in (p, st, t):
        q.add_argument("--avx2", action="store_true", help=avx2)
        q.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    b = sub.add_parser("bare")
    b.add_argument("--read", type=int, default=512)
    b.add_argument("--write", type=int, default=96)
    b.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    env = AVX2_ENV if getattr(args, "avx2", False) else {}
    if args.mode == "profiles":
        return run_profiles(args.profiles, args.runs, args.pytest_args, env, args.test_command)
    if args.mode == "tests":
        return run_tests(args.runs, args.load, args.pytest_args, env, args.load_seconds)
    if args.mode == "stability":
        return run_stability(args.profile, args.runs, args.load, args.pytest_args, env, args.load_seconds)
    return run_bare(args.read, args.write, args.rounds)


if __name__ == "__main__":
    sys.exit(main())

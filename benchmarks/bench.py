"""Benchmarks of the harness itself (not tests): profile wall times, slowest claims, ratio spread.

    python benchmarks/bench.py profiles [--profiles quick standard] [--runs 3]
        Runs `pytest claims/ --claims-profile P` --runs times per profile (each in its own process,
        reports under reports/bench/), and prints each run's wall time, the slowest claims, and the
        spread of the read/write ratio (C05) across runs.

    python benchmarks/bench.py bare [--read 512] [--write 96] [--rounds 3]
        In ONE process, alternates the harness's read/write measurement (claimcheck.llm.speed.read_write,
        interleaved, warmed up) with a bare script written like the chapter's listing (perf_counter
        around one prefill and one decode loop), and prints both ratios per round, so that the
        harness's number can be compared with what a reader's own script would print.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_profiles(profiles, runs: int, extra: list[str]) -> int:
    ratios: dict[str, list[float]] = {}
    for profile in profiles:
        for i in range(runs):
            out = ROOT / "reports" / "bench" / f"{profile}-{i + 1}"
            cmd = [sys.executable, "-m", "pytest", "claims/", "-q", "-p", "no:cacheprovider",
                   "--claims-profile", profile, "--claims-report-dir", str(out.relative_to(ROOT)), *extra]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            doc = json.loads((out / "claims.json").read_text(encoding="utf-8"))
            claims = doc["claims"]
            slow = sorted(claims, key=lambda c: c["duration_s"], reverse=True)[:5]
            c05 = next((c for c in claims if c["id"] == "C05"), {})
            if isinstance(c05.get("measured"), (int, float)):
                ratios.setdefault(profile, []).append(c05["measured"])
            print(f"{profile} run {i + 1}: {wall:.0f} s wall, exit {proc.returncode}, {doc['counts']}")
            print("  slowest: " + ", ".join(f"{c['id']} {c['duration_s']:.1f} s" for c in slow))
            print("  verdicts: " + " ".join(f"{c['id']}={c['outcome']}" for c in claims))
    for profile, rs in ratios.items():
        spread = f"min {min(rs):.1f}, median {statistics.median(rs):.1f}, max {max(rs):.1f}"
        print(f"read/write ratio (C05) over {len(rs)} {profile} runs: {spread} x")
    return 0


def run_bare(read_tokens: int, write_tokens: int, rounds: int) -> int:
    import torch

    from claimcheck.llm.models import forward_cached, gpt2_tokenizer, output_cache, prompt_ids, random_gpt2
    from claimcheck.llm.speed import read_write

    model = random_gpt2(seed=0)
    x = prompt_ids(max(read_tokens, write_tokens + 1), gpt2_tokenizer())

    def bare():
        # written like the chapter's listing: one warm-up forward, then one timed read and one timed write
        with torch.no_grad():
            model(x[:, :read_tokens])
            t = time.perf_counter()
            model(x[:, :read_tokens])
            read = time.perf_counter() - t
            cache = output_cache(forward_cached(model, x[:, :1]))
            t = time.perf_counter()
            for i in range(1, write_tokens + 1):
                cache = output_cache(forward_cached(model, x[:, i:i + 1], cache))
            write = time.perf_counter() - t
        return (read_tokens / read) / (write_tokens / write)

    print(f"torch threads {torch.get_num_threads()}, read {read_tokens} tokens, write {write_tokens} tokens")
    harness_r, bare_r = [], []
    for r in range(rounds):
        h = read_write(model, x, read_tokens, write_tokens, repeats=3, warmup=1)
        ratio_h = statistics.median(h.samples["write"]) / statistics.median(h.samples["read"]) * read_tokens / write_tokens
        ratio_b = bare()
        harness_r.append(ratio_h)
        bare_r.append(ratio_b)
        print(f"round {r + 1}: harness {ratio_h:.1f}x  bare script {ratio_b:.1f}x")
    print(f"median: harness {statistics.median(harness_r):.1f}x, bare {statistics.median(bare_r):.1f}x, "
          f"harness/bare {statistics.median(harness_r) / statistics.median(bare_r):.3f}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("profiles")
    p.add_argument("--profiles", nargs="+", default=["quick", "standard"], choices=["quick", "standard", "full"])
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    b = sub.add_parser("bare")
    b.add_argument("--read", type=int, default=512)
    b.add_argument("--write", type=int, default=96)
    b.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.mode == "profiles":
        return run_profiles(args.profiles, args.runs, args.pytest_args)
    return run_bare(args.read, args.write, args.rounds)


if __name__ == "__main__":
    sys.exit(main())

"""C33: the chapter's "run it yourself" listing, run as a reader runs it (``--claims-listing FILE``).

The listing is the editor's file (the chapter's code is not ours to ship): without one, both parts
are skipped with that reason. With one, it runs once per session in a subprocess with a time
limit (:func:`claimcheck.llm.listing.run_listing`), offline: on real GPT-2 where this runner has the
weights, else on a stand-in (random-init GPT-2 small + the real tokenizer in a temporary Hugging
Face cache, and a stand-in text for the file it opens). The report says which.

* ``C33.api``: the listing runs under the installed torch/transformers without API drift (errors,
  deprecations such as ``past_key_values`` in transformers 5), each reported with its listing line.
* ``C33.output``: the numbers it prints, read with the same locators as the chapter's printed
  output, checked like C05 (read/write >= 10x), C15 (cache speedup > 1) and beside C01/C02
  (read and write token/s: machine-bound, shown, not enforced).

Sizes: the chapter's listing writes 256 tokens with and without the cache and 511 tokens one at a
time on GPT-2 small; as written, on this project's 2-core CPU machine it took 702-756 s under load
(other jobs), most of it the uncached generation (416 s), of a 900 s limit
(``--claims-listing-timeout``). It runs on the run's torch threads (``--claims-threads``): with
torch's default of every core, a busy 2-core machine wrote 1 token/s one at a time, with the run's
1 thread 13 token/s (one run each); in ``quick`` the listing then took 62 s (docs/editors.md). Below
``--claims-profile full`` its two ``generate`` calls write the profile's ``greedy_new`` tokens
instead (C14's cached/uncached comparison: 16 in quick, 48 in standard;
:func:`claimcheck.llm.listing.run_listing`'s ``max_new_tokens``); its read (512) and write (511)
run as written. What is judged follows: the read/write ratio and the listing's own arithmetic at
every profile; the cache speedup (like C15) only where the generations ran at the listing's own
256 tokens, else shown and not judged, with the reason (the report lists each cut call).
"""

import pytest

from claimcheck.interval import Interval
from claimcheck.plugin.phases import Unchecked
from claimcheck.printed import locator_plain, same_printed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def listing_run(pytestconfig, claims_settings, claims_weights, claims_profile, tmp_path_factory):
    """The :class:`claimcheck.llm.listing.ListingRun` of the editor's listing (once per session), its
    generations at the size profile's length below ``full``."""
    if not claims_settings.listing:
        raise Unchecked("no listing given: pass the chapter's listing with --claims-listing FILE (or "
                        "CLAIMCHECK_LISTING); the chapter's code is the editor's file, not shipped with the "
                        "harness", "listing", _use_item_location=False)
    from claimcheck.llm.listing import run_listing
    from claimcheck.plugin.state import setting_path

    cap = None if claims_profile.chapter_sizes else claims_profile.greedy_new
    threads = None
    try:  # the run's torch threads (--claims-threads), set before the first test: timed like every claim
        import torch
        threads = torch.get_num_threads()
    except ImportError:
        pass
    return run_listing(setting_path(pytestconfig, "listing"), tmp_path_factory.mktemp("listing"),
                       timeout=claims_settings.listing_timeout, weights=claims_weights, max_new_tokens=cap,
                       threads=threads)


def _resized(run) -> str | None:
    if not run.resized:
        return None
    return (f"its generations wrote {run.max_new_tokens} tokens (the size profile's), not the number it asks for "
            f"({'; '.join(run.resized_lines())}): the cache speedup is shown, not judged "
            "(--claims-profile full runs them as written)")


def _caveat(run) -> str | None:
    parts = []
    if run.stand_in:
        parts.append("the listing ran on a stand-in (" + "; ".join(f"{k}: {v}" for k, v in {**run.models, **run.inputs}.items())
                     + "): its timings count, its probabilities and generated text do not")
    if run.resized:
        parts.append(_resized(run))
    return "; ".join(parts) or None


@pytest.mark.claim("C33.api")
def test_listing_runs_without_api_drift(claim, listing_run):
    run = listing_run
    drift = run.drift_lines()
    claim.detail(listing=run.summary(), caveat=_caveat(run), api_drift=drift)
    if run.timed_out and not drift:
        claim.skip(f"the listing {run.failure}; no API drift seen before that", cause="listing")
    versions = ", ".join(f"{k} {v}" for k, v in run.versions.items())
    claim.require(not drift, f"API drift: the listing uses APIs the installed libraries ({versions}) deprecate or "
                             "no longer have:\n  " + "\n  ".join(drift)
                  + "\n  next: update the chapter's listing (e.g. transformers 5: pass cache= and read out.cache "
                    "instead of past_key_values), or pin the library versions it was written for.", measured=len(drift))
    claim.check(len(drift), "")


@pytest.mark.claim("C33.output")
def test_listing_prints_the_chapters_figures(claim, listing_run):
    """The chapter's listing, run as printed: each number its output prints is read with the
    locators of the chapter's output and judged like C05 and C15 (longer: one check per figure)."""
    run = listing_run
    c = claim.claim
    claim.detail(listing=run.summary(), caveat=_caveat(run))
    claim.require(run.ok, f"the listing did not run to the end: {run.failure}")
    quotes = run.printed(c)
    missing = [f"{name} (a line like {locator_plain(q.locator)!r})" for name, q in quotes.items()
               if q.status not in ("ok", "drift")]
    claim.require(not missing, "the listing printed no line for " + ", ".join(missing))
    got = {name: q.manuscript for name, q in quotes.items()}
    printed = {name: {"listing": got[name], "chapter": c.printed(name)} for name in got}
    claim.detail(printed=printed)
    for size in ("gen_tokens", "read_tokens", "write_tokens"):
        if size in got:
            claim.require(same_printed(c.printed(size), got[size]),
                          f"the listing's {size} is {got[size]}, the chapter's output says {c.printed(size)}")
    # like C15: the KV cache makes writing faster, judged where the listing wrote its own lengths (a
    # 16-token generation after a 16-token prompt is not the 256 tokens the chapter's times are about)
    cache, nocache = Interval.printed(got["cache_s"]), Interval.printed(got["nocache_s"])
    speedup = nocache / cache
    if run.resized:
        claim.detail(not_judged={"cache speedup": _resized(run)})
    else:
        claim.require(speedup.hi > 1,
                      f"without cache {got['nocache_s']} s vs with cache {got['cache_s']} s: no speedup")
    # the listing's own arithmetic: its printed ratio agrees with its printed rates
    read_tps, write_tps = Interval.printed(got["read_tps"]), Interval.printed(got["write_tps"])
    claim.require((read_tps / write_tps).overlaps(Interval.printed(got["stated"])),
                  f"the listing prints a ratio of {got['stated']}, but {got['read_tps']} / {got['write_tps']} "
                  f"= {read_tps / write_tps}")
    # like C05: read/write per token >= 10x, as the listing computed it from its unrounded times (its
    # printed rates are rounded to whole token/s); C01/C02's absolute rates are machine-bound: shown above
    claim.check(float(got["stated"]), "x", cache_speedup=[speedup.lo, speedup.hi],
                ratio_from_printed_rates=[(read_tps / write_tps).lo, (read_tps / write_tps).hi])

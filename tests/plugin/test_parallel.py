"""pytest-xdist: complete reports written once by the controller; timing tests never overlap others.

The xdist runs are subprocesses (xdist starts worker processes), about 5-10 s each on 2 cores; the
serial run they are compared with runs in this process.
"""

import pytest

from tests.claimkit import claim_toml, claims_project, lean

pytest.importorskip("xdist")


def claim(id, stated, tolerance, needs='["arch"]'):
    return claim_toml(id, title=f"claim {id}", stated=stated, unit="x", tolerance=tolerance, needs=needs)


REGISTRY = "".join(
    [
        claim("C01", "2", "printed"),
        claim("C02", "5", ">=10"),
        claim("C03", "7", "exact"),  # no test: placeholder
        claim("C04", "1", "printed", needs='["weights"]'),  # skipped: no weights
        claim("C05", "10", ">=10", needs='["arch", "time"]'),  # timing
        claim("C06", "3", "printed").replace("tolerance =", "tolerence ="),
    ]
)

TESTS = """
import pytest

@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(2.04)

@pytest.mark.claim("C01")
def test_c01_twice(claim):  # deselected (-k): the report says so, whoever collected it
    claim.check(2.04)

@pytest.mark.claim("C02")
def test_c02(claim):
    claim.check(4.2)

@pytest.mark.claim("C04")
def test_c04(claim):
    raise AssertionError("skipped before it runs")

@pytest.mark.claim("C05")
def test_c05(claim):
    claim.check(12.5, ratio_per_round=[12.0, 13.0])

@pytest.mark.claim("C06")
def test_c06(claim):
    claim.check(3)
"""

# Every process logs who wrote claims.json: the controller must be the only one.
CONFTEST = """
import os
import claimcheck.report as report

_write = report.write_claims_json

def _logged(doc, path):
    with open(os.environ["WRITES_LOG"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "controller") + "\\n")
    _write(doc, path)

report.write_claims_json = _logged
"""


@pytest.fixture
def project(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("WRITES_LOG", str(tmp_path / "writes.log"))
    tests = {"test_claims.py": TESTS, "conftest.py": CONFTEST}
    return claims_project(pytester, REGISTRY, tests, monkeypatch=monkeypatch)


def _writers(tmp_path) -> list[str]:
    log = tmp_path / "writes.log"
    lines = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return lines


def test_xdist_report_equals_serial_report(project, tmp_path, monkeypatch):
    # threads pinned: "auto" counts the machine's other work, which may change between the two runs,
    # and the thread count is part of every failure's hardware line. The serial run is in this
    # process: its conftest's logging write_claims_json is undone after the test (monkeypatch)
    import claimcheck.report

    monkeypatch.setattr(claimcheck.report, "write_claims_json", claimcheck.report.write_claims_json)
    project.run("--claims-threads=1", "-k", "not twice")
    report = project.report()
    serial = report.claims
    serial_threads = report.doc["runner"]["threads"]
    serial_deselected = report.doc["deselected"]
    assert _writers(tmp_path) == ["controller"]
    report.path.unlink()

    result = project.run("-n", "2", "--claims-threads=1", "-k", "not twice", subprocess=True)
    result.stdout.fnmatch_lines(
        ["*2 workers*", "claimcheck xdist: without --dist loadgroup *: use --dist loadgroup"]
    )
    parallel = project.report().claims
    assert _writers(tmp_path) == ["controller"]  # written once, by the controller
    # the controller collects nothing: the deselected test is learnt from one worker, counted once
    assert project.report().doc["deselected"] == serial_deselected
    assert [(g["tests"], g["claims"]) for g in serial_deselected] == [(1, ["claims:C01"])]
    result.stdout.fnmatch_lines(["1 test deselected *C01*"])
    # the workers set the threads; the controller, which writes the runner, learns them from one
    assert project.report().doc["runner"]["threads"] == serial_threads and serial_threads["threads"] == 1

    assert (
        {k: v["outcome"] for k, v in parallel.items()}
        == {k: v["outcome"] for k, v in serial.items()}
        == {
            "C01": "passed",
            "C02": "failed",
            "C03": "not-run",
            "C04": "skipped",
            "C05": "passed",
            "C06": "error",
        }
    )
    for cid in serial:  # the results travelled from the workers on their reports
        for key in ("measured", "stated", "unit", "tolerance", "details", "title", "reason"):
            assert parallel[cid][key] == serial[cid][key], (cid, key)
    assert parallel["C05"]["details"]["ratio_per_round"] == [12.0, 13.0]
    assert "tolerence" in parallel["C06"]["reason"]  # registry problem, loaded by the controller
    assert parallel["C03"]["reason"] == "not-run: no test yet"  # placeholder ran on a worker
    assert "4.2 < 10" in parallel["C02"]["reason"]


TIMING_TESTS = """
import os, time
import pytest

def _log(kind):
    start = time.monotonic()
    time.sleep(0.4)
    with open(os.environ["SPANS_LOG"], "a") as f:
        f.write(f"{kind} {start} {time.monotonic()}\\n")

@pytest.mark.parametrize("n", range(6))
def test_plain(n):
    _log("plain")

@pytest.mark.timing
@pytest.mark.parametrize("n", range(3))
def test_timed(n):
    _log("timing")
"""


def test_timing_tests_never_overlap_other_tests(project, tmp_path, monkeypatch):
    log = tmp_path / "spans.log"
    monkeypatch.setenv("SPANS_LOG", str(log))
    project.write("test_spans.py", TIMING_TESTS)
    # plugins load in the controller and in each worker: only those these plain tests use
    result = project.runpytest_subprocess(
        "claims/test_spans.py", "-p", "no:cacheprovider", *lean(kit=False), "-n", "2"
    )
    result.assert_outcomes(passed=9)
    result.stdout.fnmatch_lines(
        ["claimcheck xdist: each of the 3 timing tests ran alone (no other of the 6 tests overlapped it)"]
    )
    spans = [
        (kind, float(a), float(b)) for kind, a, b in (line.split() for line in log.read_text().splitlines())
    ]
    assert len(spans) == 9

    def overlap(x, y):
        return x[1] < y[2] and y[1] < x[2]

    plain = [s for s in spans if s[0] == "plain"]
    # the check can fail: the plain tests really do run at the same time on the two workers
    assert any(overlap(a, b) for i, a in enumerate(plain) for b in plain[i + 1 :])
    for t in (s for s in spans if s[0] == "timing"):
        others = [s for s in spans if s is not t]
        assert not any(overlap(t, s) for s in others), (t, [s for s in others if overlap(t, s)])


def test_timing_overlaps():
    from claimcheck.plugin.parallel import timing_overlaps

    spans = {
        "t1": (0.0, 1.0, True),
        "a": (1.0, 2.0, False),
        "b": (1.5, 3.0, False),
        "t2": (2.5, 4.0, True),
        "c": (4.0, 5.0, False),
    }
    assert timing_overlaps(spans) == [("t2", "b")]  # a and b overlap each other: allowed
    assert timing_overlaps({"t": (0.0, 2.0, True), "x": (0.5, 0.6, False), "y": (1.9, 3.0, False)}) == [
        ("t", "x"),
        ("t", "y"),
    ]
    assert timing_overlaps({}) == []


def test_drift_record_gets_the_measurement_of_a_test_that_ran_on_another_worker():
    """Under xdist the drift check of C18 can run before (or beside) C18's own test; the controller's
    row still shows the measured value in the drift record, as a serial run does."""
    import json
    from types import SimpleNamespace

    from claimcheck.plugin.phases import PHASE_ATTR, phase_on
    from claimcheck.report import ResultCollector
    from claimcheck.results import ClaimEntry

    def report(phase):  # as the controller gets it from a worker
        return SimpleNamespace(**{PHASE_ATTR: json.loads(json.dumps(phase.sent()))})

    drift = report(
        ClaimEntry(
            "C18",
            "C18",
            outcome="passed",
            kind="drift",
            tests=["claims.toml::C18 [drift]"],
            details={"drift": {"status": "ok", "measured": None}},
        )
    )
    measured = report(
        ClaimEntry(
            "C18",
            "C18",
            outcome="passed",
            tests=["test_kv.py::test_c18"],
            measured=36864.0,
            measured_display="36864 B/token",
            details={"device": "cpu"},
        )
    )
    c = ResultCollector()
    for r in (drift, measured):  # the drift check's report arrives first
        c.add(phase_on(r))
    (row,) = c.rows([])
    assert row.outcome == "passed"
    assert row.details == {"drift": {"status": "ok", "measured": "36864 B/token"}, "device": "cpu"}

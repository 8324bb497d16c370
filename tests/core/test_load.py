"""The one busy-by-load rule shared by the recorder's messages and the kit's fingerprint."""

from claimcheck import load


def test_busy_by_load_at_the_boundary():
    assert load.busy_by_load(None, 2) == ""
    assert load.busy_by_load(2.0 + load.BUSY_LOAD_OVER_CORES, 2) == ""  # at the margin: not yet busy
    assert load.busy_by_load(3.2, 2) == "1-min load average 3.2 on 2 cores"


def test_load_average_reads_the_os(monkeypatch):
    monkeypatch.setattr(load.os, "getloadavg", lambda: (1.25, 1.0, 1.0))
    monkeypatch.setattr(load.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert load.load_average() == (1.25, 3)

    def no_loadavg():
        raise OSError("no load average here")

    monkeypatch.setattr(load.os, "getloadavg", no_loadavg)
    assert load.load_average() == (None, 3)

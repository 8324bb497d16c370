"""The one busy-by-load rule shared by the recorder's messages and the kit's fingerprint."""

from claimcheck import fingerprint as machine


def test_busy_by_load_at_the_boundary():
    assert machine.busy_by_load(None, 2) == ""
    assert machine.busy_by_load(2.0 + machine.BUSY_LOAD_OVER_CORES, 2) == ""  # at the margin: not yet busy
    assert machine.busy_by_load(3.2, 2) == "1-min load average 3.2 on 2 cores"


def test_load_average_reads_the_os(monkeypatch):
    monkeypatch.setattr(machine.os, "getloadavg", lambda: (1.25, 1.0, 1.0))
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert machine.load_average() == (1.25, 3)

    def no_loadavg():
        raise OSError("no load average here")

    monkeypatch.setattr(machine.os, "getloadavg", no_loadavg)
    assert machine.load_average() == (None, 3)

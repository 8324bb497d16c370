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


def test_runnable_others_is_the_median_of_spaced_samples(monkeypatch):
    """Five reads of /proc/loadavg's running count, 50 ms apart, less this process; None where the
    OS has no such file. (The tests' in-process claims runs read it without the gaps: tests/conftest.py.)"""
    import builtins
    import io

    running = iter([3, 1, 2, 9, 2])  # this process counts itself: 2, 0, 1, 8, 1 others
    real_open = builtins.open

    def fake_open(path, *args, **kwargs):
        if path == "/proc/loadavg":
            return io.StringIO(f"0.50 0.40 0.30 {next(running)}/345 6789\n")
        return real_open(path, *args, **kwargs)

    naps = []
    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr("time.sleep", naps.append)
    assert machine.runnable_others() == 1
    assert naps == [0.05] * 4  # spaced: a burst of other work is not caught in one instant

    def no_file(path, *args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(builtins, "open", no_file)
    assert machine.runnable_others() is None


def test_usable_cores_and_cpu_model_without_the_linux_sources(monkeypatch):
    monkeypatch.delattr(machine.os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 6)
    assert machine.load_average()[1] == 6

    def no_cpuinfo(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr("builtins.open", no_cpuinfo)
    monkeypatch.setattr(machine.sys, "platform", "win32")
    monkeypatch.setattr(machine.platform, "processor", lambda: "")
    monkeypatch.setattr(machine.platform, "machine", lambda: "AMD64")
    assert machine.runner_fingerprint()["cpu"] == "AMD64"  # an unreadable /proc/cpuinfo is no error


def test_the_fingerprint_is_one_table_of_labelled_rows():
    """Every page reads a runner from one ordered (label, value) table: the fields in words first, a
    GPU without a name as none, then every other field by its dotted name (empty ones left out)."""
    fp = {
        "cpu": "AMD EPYC",
        "cores": 2,
        "gpu": {"name": "NVIDIA H100", "memory_bytes": 80 * 2**30, "count": 2, "driver": ""},
        "torch_threads": 1,
        "load": {"busy": True, "probe_s": 0.0013913990001128695, "why": ""},
    }
    assert list(machine.table(fp, {"size_profile": "quick"}).items()) == [
        ("CPU", "AMD EPYC"),
        ("cores", "2 cores"),
        ("GPU", "NVIDIA H100"),
        ("VRAM", "80 GiB"),
        ("GPUs", "x2"),
        ("threads", "1 thread"),
        ("profile", "quick"),
        ("busy", "busy"),
        ("load.busy", "True"),
        ("load.probe_s", "0.001391"),
    ]
    assert "GPU" not in machine.table({"gpu": {"memory_bytes": 1}})
    assert machine.describe(fp) == "AMD EPYC (2 cores, ? GiB, NVIDIA H100, 1 thread)"

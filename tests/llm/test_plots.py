"""Plots are drawn with matplotlib's object API: the host process keeps its backend and pyplot state."""

import subprocess
import sys
import textwrap


def test_drawing_a_plot_leaves_the_hosts_backend_and_pyplot_alone():
    code = textwrap.dedent("""
        import sys
        import matplotlib
        matplotlib.use("svg")                     # the host's choice (a notebook, a GUI, a CI script...)
        from claimcheck.llm import plots
        from claimcheck.llm.speed import fit_power_law
        pngs = [plots.read_write_plot([100.0, 120.0], [10.0, 11.0]),
                plots.bandwidth_plot([3e10, 4e10], [1e10, 1.2e10]),
                plots.batch_plot({1: [0.01, 0.011], 8: [0.02, 0.021]}),
                plots.forward_pass_plot([64, 128], {64: [0.5], 128: [1.0, 1.1]},
                                        fit_power_law([64, 128], [0.5, 1.0]))]
        assert all(p[:8] == b"\\x89PNG\\r\\n\\x1a\\n" for p in pngs)
        assert "matplotlib.pyplot" not in sys.modules, "a plot imported pyplot"
        assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr

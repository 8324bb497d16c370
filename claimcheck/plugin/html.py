"""pytest-html's hooks, in a class registered only when pytest-html is active (``-p no:html``
must not break a run: pytest rejects a plugin that implements hooks no plugin declares)."""

from __future__ import annotations

import html

import pytest

from claimcheck.plugin.state import fingerprint_of, run_state
from claimcheck.recorder import CLAIM_ID_KEY, RECORD_KEY, decode_record

COLUMNS = ("Claim", "Chapter", "Measured", "Tolerance", "Verdict")


class HtmlReport:
    """Adds the claim columns and the runner summary to pytest-html's report."""

    def __init__(self, config):
        self.config = config

    def pytest_html_results_table_header(self, cells):
        cells.insert(1, "".join(f'<th class="claim-{c.lower()}">{c}</th>' for c in COLUMNS))

    def pytest_html_results_table_row(self, report, cells):
        from claimcheck.report import verdict_text

        props = {k: v for k, v in getattr(report, "user_properties", [])}
        cid = props.get(CLAIM_ID_KEY, "")
        rec = decode_record(props.get(RECORD_KEY) or {})
        stated = f"{rec.get('stated', '')} {rec.get('unit', '')}".strip()
        verdict = verdict_text(report, rec)
        if rec.get("model"):  # a portable-LM lane row: name the model; "stated" is the portable form's expectation
            cid = f"{cid} [{rec['model']}]"
            stated = f"{stated} (for this model)" if stated else "(property of any causal LM)"
        values = (cid, stated, rec.get("measured_display", ""), rec.get("tolerance", ""), verdict)
        cells.insert(1, "".join(f'<td class="claim-col">{html.escape(str(v))}</td>' for v in values))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        atomic_html_writes(session.config)

    def pytest_html_report_title(self, report):
        report.title = "claimcheck: claims report"

    def pytest_html_results_summary(self, prefix, summary, postfix, session):
        from claimcheck.fingerprint import describe_long
        from claimcheck.outcomes import count

        config = session.config
        state = run_state(config)
        fp = fingerprint_of(config)
        s = state.settings
        rows = state.rows
        counts = count(r.outcome for r in rows)
        profile = (state.json_doc or {}).get("profile") or {}
        prefix.append(
            "<p><b>Runner</b>: " + html.escape(describe_long(fp))
            + f"<br><b>Size profile</b>: {html.escape(profile.get('description') or s.size_profile)} &nbsp; <b>Runner profile</b>: "
            + html.escape(s.runner_profile or "unnamed (machine-bound figures are shown, not enforced)")
            + "<br><b>Weights</b>: " + html.escape(_weights_line(fp.get("weights") or {}, rows))
            + "<br><b>Claims</b>: " + html.escape(", ".join(f"{v} {k}" for k, v in counts.items()))
            + "</p>")
        unselected = [r.id for r in rows if r.outcome == "not-run" and not r.tests]
        if unselected:  # -k/-m left them out: they have no row below, but every registry id is listed
            prefix.append("<p><b>Not run in this run</b> (not selected by -k/-m, or no test collected): "
                          + html.escape(", ".join(unselected)) + "</p>")
        issues = [str(i) for reg in state.registries.values() for i in reg.issues]
        if issues:
            prefix.append("<p><b>Registry problems</b>:</p><ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in issues) + "</ul>")


def _weights_line(w: dict, rows=()) -> str:
    models = sorted({r.record["model"] for r in rows if r.record.get("model")})
    if models:
        return f"portable-LM lane on {', '.join(models)}: its own numbers, never compared with GPT-2's"
    if not w.get("available"):
        return "none (weight-bound claims skipped)"
    return f"{w.get('source')} ({w.get('kind')}), {w.get('file', '?')} sha256 {w.get('sha256', '?')}"


def atomic_html_writes(config) -> bool:
    """Make pytest-html write its report atomically (:func:`claimcheck.fileio.write_atomic`): a
    run killed while writing leaves the previous claims.html whole, never half a page.

    pytest-html writes through one method of its report object (``_write_report``); it is
    replaced on that object only. Returns False, changing nothing, when this pytest-html has no
    such method.
    """
    try:
        from pytest_html.basereport import BaseReport
    except ImportError:
        return False
    from claimcheck.fileio import write_atomic

    done = False
    for _name, plugin in config.pluginmanager.list_name_plugin():  # (get_plugins() hashes them)
        if isinstance(plugin, BaseReport) and callable(getattr(plugin, "_write_report", None)) \
                and hasattr(plugin, "_report_path"):
            plugin._write_report = lambda rendered, _p=plugin: write_atomic(_p._report_path, rendered)
            done = True
    return done

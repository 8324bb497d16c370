"""The pages in a real browser: headless Chromium, the DOM after the page's scripts ran.

Driven with Selenium over Debian's ``chromium`` and ``chromium-driver`` packages (``.ci/run``
installs them with apt). Selenium rather than Chromium's own command line (``--dump-dom``,
``--screenshot``) because these checks need to click the filters and sort headers and to ask the
layout engine whether an image is displayed and how wide it is; ``--dump-dom`` only gives the
markup of a page that nobody touched. Selenium is given the driver's path, so it downloads nothing.
``CHROME_BIN`` and ``CHROMEDRIVER`` name another browser and driver (default: found on the PATH).

Where Chromium, its driver or Selenium is missing these tests skip with that reason; in CI (``CI=true``)
they fail instead, so a CI machine cannot pass them by not having a browser.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from claimcheck.pages import load_document, manuscript_checks, publish
from tests.ci import required
from tests.claimkit import claim_toml, claims_project

CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH = 1280


_missing = required("the browser tests", "apt-get install chromium chromium-driver; pip install selenium")


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Selenium WebDriver), 1280 px wide, for the whole session."""
    binary = shutil.which(os.environ.get("CHROME_BIN", "")) or next(
        filter(None, map(shutil.which, CHROMIUM)), None
    )
    driver_path = shutil.which(os.environ.get("CHROMEDRIVER", "")) or shutil.which("chromedriver")
    if not binary:
        _missing(
            "no Chromium on this machine (looked for " + ", ".join(CHROMIUM) + "): Debian/Ubuntu: "
            "apt-get install chromium chromium-driver, or CHROME_BIN=PATH"
        )
    if not driver_path:
        _missing(
            "no chromedriver on this machine: Debian/Ubuntu: apt-get install chromium-driver, "
            "or CHROMEDRIVER=PATH"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (pip install selenium; it is in the test extra)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--lang=en-US",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_window_size(WIDTH, 900)
    yield driver
    driver.quit()


def test_without_a_browser_ci_fails_and_elsewhere_it_skips(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: the browser tests must run, but no Chromium"):
        _missing("no Chromium here")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Chromium here"):
        _missing("no Chromium here")


def open_page(browser, path, fragment: str = ""):
    browser.get(path.resolve().as_uri() + fragment)
    assert browser.execute_script("return document.documentElement.getAttribute('data-ready')") in ("1", None)
    return browser


@pytest.fixture
def claims_html(run_copy):
    doc, _ = load_document(run_copy)
    publish(doc, run_copy)
    return run_copy.parent / "claims.html"


def shown_ids(browser) -> list[str]:
    """The claim ids of the rows shown (a row's data-id is its key, ch15:C16: the page has one chapter)."""
    return [
        key.split(":", 1)[-1]
        for key in browser.execute_script(
            "return [...document.querySelectorAll('tbody.claim')].filter(t => t.offsetParent !== null)"
            ".map(t => t.dataset.id)"
        )
    ]


def test_every_registry_id_has_exactly_one_row(browser, claims_html, shipped_registry):
    open_page(browser, claims_html)
    ids = browser.execute_script(
        "return [...document.querySelectorAll('tbody.claim')].map(t => t.dataset.id)"
    )
    assert sorted(ids) == sorted(shipped_registry.key(c) for c in shipped_registry.claims) and len(
        ids
    ) == len(set(ids))
    assert sorted(shown_ids(browser)) == sorted(shipped_registry.claims)  # all shown at first
    assert browser.find_element("id", "shown").text == f"all {len(ids)} claims shown"


def test_plots_are_visible_images_without_a_click(browser, claims_html):
    open_page(browser, claims_html)
    imgs = browser.find_elements("css selector", "tbody.claim img")
    assert len(imgs) == 4
    for img in imgs:
        browser.execute_script("arguments[0].scrollIntoView()", img)
        facts = browser.execute_script(
            "const i = arguments[0], r = i.getBoundingClientRect();"
            "return {w: r.width, h: r.height, natural: i.naturalWidth, complete: i.complete,"
            "        closed: !!i.closest('details:not([open])')}",
            img,
        )
        assert img.is_displayed() and facts["complete"] and facts["natural"] > 0, facts
        assert facts["w"] >= 400 and facts["h"] >= 200 and not facts["closed"], facts


def test_filters_hide_and_show_rows(browser, claims_html):
    from selenium.webdriver.common.by import By

    open_page(browser, claims_html)
    every = shown_ids(browser)
    outcome = {
        key.split(":", 1)[-1]: o
        for key, o in browser.execute_script(
            "return [...document.querySelectorAll('tbody.claim')].map(t => [t.dataset.id, t.dataset.outcome])"
        )
    }
    browser.find_element(By.CSS_SELECTOR, "input[name=outcome][value=passed]").click()
    rest = shown_ids(browser)
    assert rest and set(rest) == {i for i in every if outcome[i] != "passed"}
    assert browser.find_element("id", "shown").text == f"{len(rest)} of {len(every)} claims shown"
    browser.find_element(By.CSS_SELECTOR, "input[name=need][value=weights]").click()
    assert set(shown_ids(browser)) == {"C30.model", "C31", "C37"}  # skipped for want of the weights
    browser.find_element(By.CSS_SELECTOR, "input[name=need][value=timing]").click()
    timing = set(shown_ids(browser))
    assert "C16" in timing and "C20" in timing and "C05" not in timing  # C05 passed: still filtered out
    # a section whose rows are all hidden hides its heading too
    visible_sections = browser.execute_script(
        "return [...document.querySelectorAll('tbody.section')].filter(t => t.offsetParent !== null).map(t => t.dataset.section)"
    )
    assert "read" not in visible_sections and "write" in visible_sections
    browser.find_element("id", "show-all").click()
    assert shown_ids(browser) == every
    open_page(browser, claims_html, "#show=failed,inconclusive")  # a filter given in the address
    assert sorted(shown_ids(browser)) == ["C16", "C20"]


def test_a_malformed_address_neither_stops_the_page_nor_loses_the_rest_of_it(browser, claims_html):
    """``decodeURIComponent`` throws on ``%E0%A4%A``: the page's set-up stopped there (no count, no
    filter from the address). A part that cannot be decoded is now read as written."""
    open_page(browser, claims_html, "#%E0%A4%A")
    assert browser.execute_script("return document.documentElement.getAttribute('data-ready')") == "1"
    total = len(shown_ids(browser))
    assert browser.find_element("id", "shown").text == f"all {total} claims shown"
    open_page(browser, claims_html, "#show=failed,inconclusive&need=%E0%A4%A")  # a hashchange
    assert sorted(shown_ids(browser)) == ["C16", "C20"]
    assert browser.find_element("id", "shown").text == f"2 of {total} claims shown"


def test_columns_sort_and_the_claim_header_restores_the_chapters_order(browser, claims_html):
    from selenium.webdriver.common.by import By

    open_page(browser, claims_html)
    order = shown_ids(browser)
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=margin]").click()
    scores = browser.execute_script(
        "return [...document.querySelectorAll('tbody.claim')].map(t => t.dataset.margin).filter(x => x !== '')"
        ".map(Number)"
    )
    assert scores == sorted(scores) and scores[0] < 0  # the failed claim's negative margin first
    assert not browser.find_element(By.CSS_SELECTOR, "tbody.section").is_displayed()
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=severity]").click()
    assert shown_ids(browser)[0] == "C16"  # failed before inconclusive, passed, skipped
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=order]").click()
    assert (
        shown_ids(browser) == order and browser.find_element(By.CSS_SELECTOR, "tbody.section").is_displayed()
    )
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=order]").click()
    assert shown_ids(browser) == order[::-1]  # clicked again: the other way round


def test_the_first_screen_answers_and_is_not_blank(browser, claims_html, tmp_path):
    from PIL import Image

    browser.set_window_size(WIDTH, 900)
    open_page(browser, claims_html)
    facts = browser.execute_script(
        "const b = id => document.getElementById(id).getBoundingClientRect().bottom;"
        "return {vh: innerHeight, vw: innerWidth, sentences: b('sentences'), counts: b('counts'),"
        "        first_row: document.querySelector('tbody.claim').getBoundingClientRect().top,"
        "        scroll_w: document.documentElement.scrollWidth}"
    )
    assert facts["vw"] == WIDTH and facts["scroll_w"] <= WIDTH  # no horizontal scrolling at 1280 px
    assert (
        facts["counts"] < facts["vh"]
        and facts["sentences"] < facts["vh"]
        and facts["first_row"] < facts["vh"]
    )
    png = browser.get_screenshot_as_png()
    (tmp_path / "first-screen.png").write_bytes(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.width == WIDTH
    colors = img.getcolors(maxcolors=1 << 20)
    white = max(n for n, c in colors if sum(c) > 740)
    assert len(colors) > 200 and white < 0.9 * img.width * img.height  # text and badges, not a blank page


def test_printed_the_filters_go_and_the_rows_shown_stay(browser, claims_html):
    from selenium.webdriver.common.by import By

    open_page(browser, claims_html, "#show=failed,skipped")
    shown = shown_ids(browser)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert not browser.find_element(By.CSS_SELECTOR, "form.filters").is_displayed()
        assert shown_ids(browser) == shown and "C16" in shown  # what the editor filtered is what prints
        assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH
        pdf = browser.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})
        assert len(pdf["data"]) > 10000
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


#: a cell's content (its text and inline boxes) against its own box and the next cell's, as the
#: layout engine places them: [text, content right, cell right, next cell left] of each cell whose
#: content runs past its own right edge or into the next cell (1 px of rounding allowed)
OVERRUNS = """
const out = [];
for (const cell of document.querySelectorAll(arguments[0])) {
  if (cell.offsetParent === null) continue;
  const range = document.createRange();
  range.selectNodeContents(cell);
  const boxes = [...range.getClientRects()].filter(r => r.width > 0);
  if (!boxes.length) continue;
  const right = Math.max(...boxes.map(r => r.right));
  const own = cell.getBoundingClientRect().right;
  const next = cell.nextElementSibling ? cell.nextElementSibling.getBoundingClientRect().left : Infinity;
  if (right > own + 1 || right > next + 1) out.push([cell.textContent.trim(), right, own, next]);
}
return out;
"""


def overruns(browser, selector: str) -> list:
    """The cells matching ``selector`` whose content overlaps the next column (:data:`OVERRUNS`)."""
    return browser.execute_script(OVERRUNS, selector)


def test_long_ids_stay_in_their_column_at_1280_px(browser, claims_html):
    """C15.laptop, C30.model and C33.output (the longest ids) once ran into the title beside them."""
    browser.set_window_size(WIDTH, 900)
    open_page(browser, claims_html)
    cells = browser.execute_script(
        "return [...document.querySelectorAll('tbody.claim th.id')].map(c => c.textContent.trim())"
    )
    assert {"C15.laptop", "C30.model", "C33.output"} <= set(cells)
    assert overruns(browser, "tbody.claim th.id") == []
    # and the box itself: the id's link ends inside the cell, before the title's text begins
    gaps = browser.execute_script(
        "return [...document.querySelectorAll('tbody.claim th.id > a')].map(a => "
        "[a.textContent, a.closest('tr').querySelector('td.title').getBoundingClientRect().left + 6 - a.getBoundingClientRect().right])"
    )
    assert min(gap for _, gap in gaps) >= 6, sorted(gaps, key=lambda g: g[1])[:3]


#: the words of each header cell of ``arguments[0]`` that the layout breaks across lines: [[cell, word]]
BROKEN_WORDS = """
const out = [];
for (const th of document.querySelectorAll(arguments[0])) {
  const text = th.firstChild;
  if (!text || text.nodeType !== Node.TEXT_NODE) continue;
  for (const m of text.data.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) out.push([th.textContent.trim(), m[0]]);
  }
}
return out;
"""


def test_header_cells_break_only_between_words_at_1280_px(browser, run_copy):
    """A chapter of short ids ("C01") made the id column too narrow for its header: "Claim ▲" read
    "Cla / im / ▲"."""
    doc, _ = load_document(run_copy)
    doc.claims = [e for e in doc.claims if len(e.id) == 3]
    publish(doc, run_copy)
    browser.set_window_size(WIDTH, 900)
    open_page(browser, run_copy.parent / "claims.html")
    assert (
        browser.execute_script(
            "return getComputedStyle(document.getElementById('claims')).getPropertyValue('--id-chars')"
        ).strip()
        == "3"
    )
    assert browser.execute_script(BROKEN_WORDS, "table.claims thead th") == []


def test_an_id_with_its_chapter_and_a_lane_model_stays_in_its_column(browser, make_run, tmp_path):
    """The longest names a row can carry: a chapter-qualified key on the matrix, a model name under
    the id on the portable-LM lane's page."""
    path = make_run(
        tmp_path / "reports",
        with_plots=False,
        results={
            "C30.model": ("passed", 0.09, {"details": {"model": {"name": "SmolLM2-135M-Instruct-converted"}}})
        },
    )
    doc, _ = load_document(path)
    publish(doc, path)
    open_page(browser, path.parent / "claims.html")
    assert (
        "SmolLM2-135M-Instruct-converted"
        in browser.find_element("css selector", "[data-id='ch15:C30.model'] th.id").text
    )
    assert overruns(browser, "tbody.claim th.id") == []


def test_the_test_log_shows_each_skip_reason_as_text(browser, pytester):
    """pytest-html's log of a skipped test: the reason and where, not ``('/path/test.py', 6, 'Skipped: ...')``."""
    registry = claim_toml("C01", title="a GPU claim", stated="2", unit="x", tolerance=">=1")
    test = (
        'import pytest\n\n\n@pytest.mark.claim("C01")\ndef test_c01(claim):\n'
        '    pytest.skip("needs a CUDA GPU; this runner has none")\n'
    )
    project = claims_project(pytester, registry, {"test_gpu.py": test})
    project.run().assert_outcomes(skipped=1)
    open_page(browser, project.report().file("tests.html"))
    logs = browser.execute_script(
        "return [...document.querySelectorAll('#results-table tbody')].map(t => [t.className, "
        "(t.querySelector('.log') || {}).innerText || ''])"
    )
    skipped = [text for cls, text in logs if "skipped" in cls.lower()]
    assert skipped and skipped[0].startswith(
        "Skipped at claims/test_gpu.py:6: needs a CUDA GPU; this runner has none"
    ), logs
    assert not any(text.lstrip().startswith("('") for _, text in logs)


#: the width a page is laid out at when printed: A4 upright, and Letter across (the claims page and
#: the matrix ask for landscape), less Chromium's default margins of 0.4 in
PRINTED = {"upright": 718, "across": 980}


def printed_facts(browser, width: int) -> dict:
    """The page as printed at ``width`` px: how wide it lays out, whether every "more" disclosure's
    text shows, and the matrix's fingerprint disclosure."""
    browser.set_window_size(width, 900)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    return browser.execute_script(
        "const t = document.querySelector('table.claims, table.matrix');"
        "return {vw: innerWidth, scroll: document.documentElement.scrollWidth, right: t.getBoundingClientRect().right,"
        "  more: [...document.querySelectorAll('details.more')].map(d => d.querySelector('div, .reason').checkVisibility()),"
        "  fingerprints: [...document.querySelectorAll('details.fp')].map(d => d.checkVisibility())}"
    )


def test_printed_nothing_is_cut_and_every_reason_prints_in_full(browser, claims_html, run_copy, tmp_path):
    import base64
    import re

    from claimcheck.cli import main

    matrix = tmp_path / "matrix.html"
    main(["merge", str(run_copy), str(run_copy), "-o", str(matrix)])
    try:
        for page in (claims_html, matrix):
            for width in PRINTED.values():
                open_page(browser, page)
                facts = printed_facts(browser, width)
                assert facts["scroll"] <= facts["vw"] and facts["right"] <= facts["vw"], (
                    page.name,
                    width,
                    facts,
                )
                assert facts["more"] and all(facts["more"]), (page.name, width, facts)  # open, not "more"
                assert not any(
                    facts["fingerprints"]
                )  # the matrix prints its runner's two lines, not the dump
                assert overruns(browser, "tbody.claim th.id, table.matrix th.id") == []
                browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
            pdf = base64.b64decode(
                browser.execute_cdp_cmd(
                    "Page.printToPDF", {"printBackground": True, "preferCSSPageSize": True}
                )["data"]
            )
            width, height = map(float, re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", pdf).groups())
            assert width > height, page.name  # across the paper: the wide tables get their columns
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.set_window_size(WIDTH, 900)


def test_every_manuscript_highlight_links_to_an_existing_row(browser, ms_run):
    path, _ = ms_run
    doc, _ = load_document(path)
    checks, problems = manuscript_checks(doc)
    assert problems == []
    publish(doc, path, checks)
    open_page(browser, path.parent / "manuscript.html")
    marks = browser.execute_script(
        "return [...document.querySelectorAll('.text .num')].map(a => [a.id, a.getAttribute('href'), a.dataset.state])"
    )
    audit = json.loads(path.read_text(encoding="utf-8"))["manuscripts"][0]["audit"]
    assert len(marks) == audit["numbers"]
    links = [(anchor, href) for anchor, href, state in marks if href]
    assert len(links) == audit["bound"]
    open_page(browser, path.parent / "claims.html")
    rows = set(browser.execute_script("return [...document.querySelectorAll('tbody.claim')].map(t => t.id)"))
    assert {href.split("#")[1] for _, href in links} <= rows
    # and back: a row's link lands on its number, a number's link on its row
    open_page(browser, path.parent / "manuscript.html")
    first = browser.find_element("id", links[0][0])
    first.click()
    assert browser.current_url.endswith(links[0][1].split("/")[-1])
    target = browser.execute_script("return document.querySelector(':target').id")
    assert target == links[0][1].split("#")[1]


# --- accessibility: axe-core over every page -------------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]
#: where .ci/run (and the workflow's tests job) install axe-core: npm, into git-ignored .node/
AXE_PATHS = (
    ROOT / ".node" / "node_modules" / "axe-core" / "axe.min.js",
    ROOT / "node_modules" / "axe-core" / "axe.min.js",
)
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core 4.x (``AXE_JS`` names another copy), read from disk: nothing is fetched here."""
    path = (
        Path(os.environ["AXE_JS"])
        if os.environ.get("AXE_JS")
        else next((p for p in AXE_PATHS if p.is_file()), None)
    )
    if path is None or not path.is_file():
        _missing("axe-core is not installed (npm ci --prefix .node, as .ci/run does)")
    text = path.read_text(encoding="utf-8")
    version = re.search(r'version\s*[:=]\s*"(\d+)\.', text[:5000]) or re.search(r"axe v(\d+)\.", text[:500])
    assert version is None or int(version.group(1)) >= 4, (
        f"{path}: axe-core {version.group(1)}.x, expected 4.x"
    )
    return text


def axe_violations(browser, axe_source) -> list[str]:
    """Run axe-core's WCAG 2.1 A and AA rules over the page; one line per violated rule."""
    browser.execute_script(axe_source)
    result = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
        ".then(r => done(r.violations.map(v => [v.id, v.impact, v.help, v.nodes.length,"
        " v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1, 2).join(''))])),"
        " e => done([['axe-error', 'critical', String(e), 0, []]]));",
        WCAG_21_AA,
    )
    return [
        f"{rule} ({impact}, {n} nodes): {text}; e.g. {examples}" for rule, impact, text, n, examples in result
    ]


def pseudo(browser, selector: str, which: str) -> dict:
    """class -> the CSS generated content (``::before``/``::after``) of the elements ``selector`` matches."""
    return browser.execute_script(
        "return Object.fromEntries([...document.querySelectorAll(arguments[0])].map(e => "
        "[e.className, getComputedStyle(e, arguments[1]).content]))",
        selector,
        which,
    )


def test_the_claims_page_has_no_wcag_violations(browser, claims_html, axe_source):
    open_page(browser, claims_html)
    assert axe_violations(browser, axe_source) == []
    # what axe cannot see: an outcome told by colour alone, ids that are not row headers, alt text
    # that names a file, the chapter's Chinese read as English
    chips = pseudo(browser, ".glance a", "::before")
    badges = pseudo(browser, ".badge", "::before")
    assert len(chips) >= 4 and all(c not in ("none", "normal", "") for c in {**chips, **badges}.values())
    # one symbol per outcome (a chip held in another form, or drifted, keeps its outcome's symbol)
    assert len(set(chips.values())) == len({k.split()[0] for k in chips})
    heads = browser.execute_script(
        "return [...document.querySelectorAll('tbody.claim tr.main > :first-child')]"
        ".map(c => c.tagName + ':' + c.getAttribute('scope'))"
    )
    assert set(heads) == {"TH:row"}
    alts = browser.execute_script("return [...document.querySelectorAll('tbody.claim img')].map(i => i.alt)")
    assert alts and all(a.startswith("Plot of ") and "measured on this runner for claim C" in a for a in alts)
    langs = browser.execute_script("return [...document.querySelectorAll('.statement')].map(e => e.lang)")
    assert set(langs) <= {"zh"}


def test_the_manuscript_page_has_no_wcag_violations(browser, ms_run, axe_source):
    path, _ = ms_run
    doc, _ = load_document(path)
    checks, _ = manuscript_checks(doc)
    publish(doc, path, checks)
    open_page(browser, path.parent / "manuscript.html")
    assert browser.execute_script("return document.documentElement.lang") == "zh"  # the chapter's language
    assert axe_violations(browser, axe_source) == []
    marks = pseudo(browser, ".text .num, .legend .num", "::after")  # each state: its own symbol, legend too
    assert len(marks) >= 3 and all(c not in ("none", "normal", "") for c in marks.values())
    assert len(set(marks.values())) == len(marks)


def test_the_matrix_page_has_no_wcag_violations(browser, run_copy, tmp_path, axe_source):
    from claimcheck.cli import main

    runs = tmp_path / "runs"
    for name, change in (("cpu", None), ("gpu", "failed")):
        (runs / name).mkdir(parents=True)
        doc = json.loads(run_copy.read_text(encoding="utf-8"))
        if change:  # one claim that differs between the runners, so the page shows its marks
            doc["claims"][0]["outcome"] = change
        (runs / name / "claims.json").write_text(json.dumps(doc), encoding="utf-8")
    page = tmp_path / "matrix.html"
    assert main(
        ["merge", str(runs / "cpu" / "claims.json"), str(runs / "gpu" / "claims.json"), "-o", str(page)]
    ) in (0, None)
    open_page(browser, page)
    assert axe_violations(browser, axe_source) == []


def test_the_matrix_header_says_the_runner_in_two_lines(browser, run_copy, tmp_path):
    """The runner's header: at most two lines of runner, its counts and a disclosure with the
    whole fingerprint; once a raw dump of ~480 px (``load.probe_s: 0.0013913990001128695``)."""
    from claimcheck.cli import main

    runs = tmp_path / "runs"
    for name, threads in (("cpu-1", 1), ("cpu-2", 2)):
        (runs / name).mkdir(parents=True)
        doc = json.loads(run_copy.read_text(encoding="utf-8"))
        doc["runner"].update(
            torch_threads=threads,
            load={
                "loadavg_1m": 3.43,
                "cores": 2,
                "busy": True,
                "why": "",
                "probe_s": 0.0013913990001128695,
                "probe_spread": 2.276,
            },
        )
        (runs / name / "claims.json").write_text(json.dumps(doc), encoding="utf-8")
    page = tmp_path / "matrix.html"
    main(["merge", str(runs / "cpu-1" / "claims.json"), str(runs / "cpu-2" / "claims.json"), "-o", str(page)])
    browser.set_window_size(WIDTH, 900)
    open_page(browser, page)
    facts = browser.execute_script(
        "const h = document.querySelector('table.matrix thead');"
        "return {height: h.getBoundingClientRect().height,"
        "  briefs: [...h.querySelectorAll('th.run')].map(th => [...th.querySelectorAll('.brief')].map(b => b.innerText)),"
        "  lines: [...h.querySelectorAll('th.run .brief')].map(b => Math.round(b.getBoundingClientRect().height /"
        "         parseFloat(getComputedStyle(b).lineHeight))),"
        "  shown: h.innerText, fingerprint: [...h.querySelectorAll('details.fp')].map(d => [d.open, d.textContent])}"
    )
    assert facts["height"] < 120, facts
    assert facts["briefs"][0] == [
        "AMD EPYC (AVX512), 2 cores, no GPU, torch 2.13.0+cpu",
        "1 thread, profile standard, no weights, busy",
    ]
    assert facts["briefs"][1][1].startswith("2 threads, profile standard")
    assert max(facts["lines"]) == 1  # each line on one line at 1280 px
    assert "probe_s" not in facts["shown"] and "load.why" not in facts["shown"]
    assert all(not is_open for is_open, _ in facts["fingerprint"])
    text = facts["fingerprint"][0][1]
    assert (
        "load.probe_s: 0.001391" in text
        and "load.why" not in text
        and "weights.reason: needs the pretrained GPT-2" in text
    )
    assert overruns(browser, "table.matrix th.id") == []


def test_a_books_pages_have_no_wcag_violations(browser, book_run, axe_source):
    """A book of two chapters (tests/pages/conftest.py build_book): its chips on one line per
    chapter, led by the chapter's id; ch90's failing claim stated without a number marked at its
    words with the failing state's symbol."""
    doc, _ = load_document(book_run)
    checks, _ = manuscript_checks(doc)
    publish(doc, book_run, checks)
    open_page(browser, book_run.parent / "claims.html")
    assert axe_violations(browser, axe_source) == []
    groups = browser.execute_script(
        "return [...document.querySelectorAll('.glance-group')].map(g => [g.querySelector('.glance-chapter')"
        ".textContent, g.querySelectorAll('a').length, g.getBoundingClientRect().top])"
    )
    assert [(mark, n) for mark, n, _ in groups] == [("ch15", 42), ("ch90", 5)]
    assert groups[0][2] < groups[1][2]  # ch90's chips start on a line of their own, below ch15's
    open_page(browser, book_run.parent / "manuscript.html")
    assert axe_violations(browser, axe_source) == []
    said = pseudo(browser, ".text .said", "::after")
    failed = pseudo(browser, ".legend .st-failed", "::after")
    assert list(said.values()) == list(failed.values()) and list(said.values())[0] not in ("none", "")


# --- every width: a laptop's 1024 px and a phone's 390 px ------------------------------------------
#: the widths an editor reads on besides the desktop's 1280 px: a laptop or half a wide screen, a phone
NARROW_WIDTHS = (1024, 390)

#: [what, its text, width] of every visible cell with text narrower than arguments[1] px (a cell
#: hidden for the eye but kept for a screen reader, in a box of 1 px square, is not read on screen)
NARROW_CELLS = """
const out = [];
for (const c of document.querySelectorAll(arguments[0])) {
  if (!c.checkVisibility() || !c.innerText.trim()) continue;
  let srOnly = false;
  for (let e = c; e && !srOnly; e = e.parentElement) {
    const b = e.getBoundingClientRect();
    srOnly = b.width <= 1 && b.height <= 1;
  }
  if (srOnly) continue;
  const r = c.getBoundingClientRect();
  if (r.width < arguments[1]) out.push([c.tagName + '.' + c.className, c.innerText.trim().slice(0, 30), r.width]);
}
return out;
"""


@pytest.fixture
def every_page(full_run, ms_run, tmp_path) -> dict[str, Path]:
    """The claims page of the chapter and of a book of two, the annotated manuscript, the matrix of
    two runners that differ in a claim and of six, each in its own folder of ``tmp_path``."""
    from claimcheck.cli import main
    from tests.pages.conftest import build_book

    chapter = tmp_path / "chapter" / "claims.json"
    shutil.copytree(full_run.parent, chapter.parent)
    pages = {}
    for name, path in (("claims", chapter), ("book", build_book(tmp_path / "book"))):
        doc, _ = load_document(path)
        publish(doc, path, manuscript_checks(doc)[0] if name == "book" else ())
        pages[name] = path.parent / "claims.html"
    ms_path, _ = ms_run
    doc, _ = load_document(ms_path)
    publish(doc, ms_path, manuscript_checks(doc)[0])
    pages["manuscript"] = ms_path.parent / "manuscript.html"
    runs = []
    for name, change in (("cpu", None), ("gpu", "failed")):
        doc = json.loads(chapter.read_text(encoding="utf-8"))
        if change:
            doc["claims"][0]["outcome"] = change
        (tmp_path / name).mkdir()
        runs.append(tmp_path / name / "claims.json")
        runs[-1].write_text(json.dumps(doc), encoding="utf-8")
    pages["matrix"] = tmp_path / "matrix.html"
    main(["merge", *map(str, runs), "-o", str(pages["matrix"])])
    pages["matrix of six runners"] = tmp_path / "matrix-6.html"  # too many columns: cards below 1200 px
    main(["merge", *map(str, runs * 3), "-o", str(pages["matrix of six runners"])])
    return pages


@pytest.mark.parametrize("width", NARROW_WIDTHS)
def test_every_page_reads_at_a_laptops_and_a_phones_width(browser, every_page, axe_source, width, tmp_path):
    """No sideways scrolling, no text cell narrower than 48 px (at 1024 px the claims table's "Why"
    column was once 16 px, a reason one letter a line; at 390 px the page scrolled 494 px sideways),
    and axe's WCAG 2.1 AA rules hold at this width too."""
    try:
        for name, page in every_page.items():
            browser.set_window_size(width, 900)
            open_page(browser, page)
            facts = browser.execute_script(
                "return {vw: innerWidth, scroll: document.documentElement.scrollWidth}"
            )
            assert facts["vw"] == width and facts["scroll"] <= width, (name, facts)
            cells = "table th, table td, .text .tx, .attention li, .legend li, dl.run dd, ul.sentences li"
            assert browser.execute_script(NARROW_CELLS, cells, 48) == [], (name, width)
            assert axe_violations(browser, axe_source) == [], (name, width)
            (tmp_path / f"{name}-{width}.png").write_bytes(browser.get_screenshot_as_png())
    finally:
        browser.set_window_size(WIDTH, 900)


def test_at_a_phones_width_a_claim_is_a_card_with_its_columns_named(browser, claims_html):
    """Below the table's width each row is a card: the verdict beside the id, every value under its
    column's name, the sort headers still there; the filters still hide rows."""
    from selenium.webdriver.common.by import By

    try:
        browser.set_window_size(390, 900)
        open_page(browser, claims_html)
        row = browser.find_element(By.CSS_SELECTOR, "[data-id='ch15:C16'] tr.main")
        place = browser.execute_script(
            "const r = arguments[0], box = s => r.querySelector(s).getBoundingClientRect();"
            "return {id: box('th.id').top, verdict: box('td.verdict').top, title: box('td.title').top,"
            " why: box('td.why').top, label: getComputedStyle(r.querySelector('td.why'), '::before').content}",
            row,
        )
        assert place["verdict"] == place["id"] < place["title"] < place["why"], place
        assert place["label"] == '"Why"'
        sorts = [
            th.text
            for th in browser.find_elements(By.CSS_SELECTOR, "table.claims thead th")
            if th.is_displayed()
        ]
        assert sorts == ["Claim", "Here", "Margin", "Verdict"]
        browser.find_element(By.CSS_SELECTOR, "input[name=outcome][value=passed]").click()
        assert "C03" not in shown_ids(browser) and "C16" in shown_ids(
            browser
        )  # [hidden] beats display: block
    finally:
        browser.set_window_size(WIDTH, 900)


def test_the_drift_filter_shows_the_drifted_claims_alone(browser, run_copy):
    from selenium.webdriver.common.by import By

    from tests.pages.test_claims_page import _drifted_c03

    doc, _ = load_document(_drifted_c03(run_copy))
    publish(doc, run_copy)
    page = run_copy.parent / "claims.html"
    open_page(browser, page)
    every = shown_ids(browser)
    browser.find_element(By.CSS_SELECTOR, "input[name=drift]").click()
    assert shown_ids(browser) == ["C03"]
    browser.find_element("id", "show-all").click()
    assert shown_ids(browser) == every
    open_page(browser, page, "#drift=only")  # the same filter given in the address
    assert shown_ids(browser) == ["C03"]

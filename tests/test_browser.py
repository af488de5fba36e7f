"""The report's HTML and the documentation site, opened in headless Chromium.

A page passes when it loads without console errors or uncaught exceptions,
asks nothing of another origin (the site and the report work offline), every
``<img>`` decodes, and every same-origin link (and ``#anchor``) resolves; the
checker is :mod:`tests.browser`. Skipped where Debian's Chromium or
Playwright is missing.

The documentation site: ``test_docs_site_in_a_browser`` builds it itself
(``slow``: the build runs the notebooks); ``HYBRIDSCHED_DOCS_SITE=build/site``
checks a site already built instead, in about 40 s. ``HYBRIDSCHED_SCREENSHOTS=DIR``
also saves a PNG of the report and of the pages named in :data:`DOCS_SCREENSHOTS`.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import CrawlReport, open_browser, serve, skip_reason

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

#: A 1x1 PNG: an image that decodes.
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                         "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

#: Docs pages (site-relative, as built) saved when HYBRIDSCHED_SCREENSHOTS is set.
DOCS_SCREENSHOTS = {"home": "", "family": "families/hybrid-deadline/"}

#: A campaign small enough for a test (18 runs, about a second), with costs
#: that differ between methods so that every plot has something to draw.
SPEC = """[campaign]
name = "browser"
time_limit = 10.0
record = ["solution"]

[[instances]]
generator = "hybrid-deadline"
seeds = { start = 0, stop = 3 }
[instances.options]
tasks = [20, 40]

[[methods]]
name = "cdf"
[[methods]]
name = "cdf+ra"
[[methods]]
name = "ffd"
"""


def screenshot(page, name: str) -> None:
    folder = os.environ.get("HYBRIDSCHED_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"screenshot_{name}.png"), full_page=True)


def assert_no_problems(crawl: CrawlReport) -> None:
    """Fail naming each problem once, with the pages that have it."""
    if crawl.problems():
        pytest.fail(f"{len(crawl.problems())} problems:\n{crawl.summary()}", pytrace=False)


def test_checker_finds_what_is_broken(tmp_path):
    """The checker itself: a clean page passes, each kind of breakage is named."""
    (tmp_path / "pixel.png").write_bytes(PIXEL)
    (tmp_path / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\nnot an image")
    (tmp_path / "folder").mkdir()
    (tmp_path / "notes.txt").write_text("plain text")
    (tmp_path / "clean.html").write_text(
        '<!DOCTYPE html><html><head><title>c</title><link rel="icon" href="data:,"></head>'
        '<body><h1 id="top">ok</h1><img src="pixel.png" alt=""><a href="index.html">back</a>'
        '<a href="#top">top</a><a href="notes.txt">notes</a></body></html>')
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html><head><title>i</title><link rel="icon" href="data:,"></head><body>'
        '<img src="pixel.png" alt=""><img src="corrupt.png" alt=""><img src="gone.png" alt="">'
        '<img src="http://example.invalid/x.png" alt="">'
        '<a href="clean.html#top">fine</a><a href="clean.html#nowhere">bad anchor</a>'
        '<a href="missing.html">missing</a><a href="folder/">folder</a>'
        '<a href="notes.txt#line">anchor in text</a><a href="https://example.org/">outside</a>'
        '<script>console.error("boom"); throw new Error("uncaught thing");</script>'
        "</body></html>")
    with serve(tmp_path) as base, open_browser(base) as checker:
        crawl = checker.crawl(base + "index.html")
    assert set(crawl.pages) == {base + "index.html", base + "clean.html"}
    assert crawl.pages[base + "clean.html"].problems() == []
    index = crawl.pages[base + "index.html"]
    assert "boom" in index.console_errors
    assert any("uncaught thing" in e for e in index.page_errors)
    assert sorted(i.rsplit("/", 1)[1] for i in index.broken_images) == [
        "corrupt.png", "gone.png", "x.png"]
    assert index.external_requests == ["http://example.invalid/x.png"]
    assert any("gone.png (HTTP 404)" in r for r in index.failed_requests)
    broken = "\n".join(index.broken_links)
    for fragment in ("clean.html#nowhere (no element id='nowhere')", "missing.html (not found)",
                     "folder/ (not found)", "notes.txt#line (no element"):
        assert fragment in broken
    assert "clean.html#top" not in broken and "example.org" not in broken
    assert index.images == 4


def test_report_html_renders(tmp_path, cli):
    spec = tmp_path / "browser.toml"
    spec.write_text(SPEC)
    code, _, err = cli("campaign", spec, "-o", tmp_path / "store", "--serial")
    assert code == 0, err
    code, _, err = cli("report", tmp_path / "store", "-o", tmp_path / "report", "--gantt")
    assert code == 0, err
    plots = sorted((tmp_path / "report").glob("*.png"))
    assert len(plots) == 6  # profiles x2, gaps, scaling, pareto, gantt
    with serve(tmp_path / "report") as base, open_browser(base) as checker:
        crawl = checker.crawl(base + "report.html")
        screenshot(checker.page, "report")
        title = checker.page.title()
        # A plot that decodes but is drawn squashed is not seen by naturalWidth.
        sizes = checker.page.evaluate(
            "() => [...document.images].map(i => [i.clientWidth, i.clientHeight])")
    assert_no_problems(crawl)
    assert title == "Campaign report: store"
    assert crawl.pages[base + "report.html"].images == len(plots)
    assert all(width >= 200 and height >= 150 for width, height in sizes), sizes


def _page_url(base: str, html: Path, site: Path) -> str:
    """The URL a link uses for a built page (``a/index.html`` is ``a/``)."""
    relative = html.relative_to(site).as_posix()
    return base + (relative.removesuffix("index.html") if html.name == "index.html"
                   else relative)


def check_docs_site(site: Path) -> None:
    """Every page reachable from the home page passes, and every built page is reachable."""
    with serve(site) as base, open_browser(base) as checker:
        crawl = checker.crawl(base)
        for name, page in DOCS_SCREENSHOTS.items():
            if os.environ.get("HYBRIDSCHED_SCREENSHOTS") and (site / page).exists():
                checker.page.goto(base + page)
                screenshot(checker.page, f"docs_{name}")
    assert_no_problems(crawl)
    # 404.html is what a server sends for a missing page, never linked.
    built = {_page_url(base, p, site) for p in site.rglob("*.html") if p.name != "404.html"}
    visited = {url.removesuffix("index.html") for url in crawl.pages}
    assert sorted(built - visited) == [], "pages no link leads to"
    assert len(visited) > 1


@pytest.mark.slow  # the build runs the notebooks: 2.5 to 3.5 minutes on 2 loaded cores
def test_docs_site_in_a_browser(tmp_path):
    if not (ROOT / "mkdocs.yml").is_file():
        pytest.skip("no mkdocs.yml: the documentation site is not set up")
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                            "-d", str(site)], cwd=ROOT, capture_output=True, text=True, timeout=900,
                           env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stderr[-4000:]}"
    check_docs_site(site)


def test_built_docs_site_in_a_browser():
    """The same checks on a site already built: ``HYBRIDSCHED_DOCS_SITE``, else the
    ``build/site`` that ``python -m mkdocs build --strict`` writes (CI builds it before the
    tests), so the default run checks the site without building it a second time."""
    folder = os.environ.get("HYBRIDSCHED_DOCS_SITE")
    if folder:
        site = Path(folder)
    else:
        site = ROOT / "build" / "site"
        if not (site / "index.html").is_file():
            pytest.skip("no built site: run 'python -m mkdocs build --strict' (build/site) or "
                        "set HYBRIDSCHED_DOCS_SITE")
        sources = [ROOT / "mkdocs.yml", *(p for p in (ROOT / "docs").rglob("*") if p.is_file())]
        built = (site / "index.html").stat().st_mtime
        if any(p.stat().st_mtime > built for p in sources):
            pytest.skip("build/site is older than docs/ or mkdocs.yml: run "
                        "'python -m mkdocs build --strict' again")
    assert (site / "index.html").is_file(), f"{site}: no index.html (HYBRIDSCHED_DOCS_SITE)"
    check_docs_site(site)

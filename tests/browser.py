"""Open a folder of HTML pages in headless Chromium and say what is broken.

:func:`serve` puts a folder on ``http://127.0.0.1:PORT`` (a threaded
``http.server``; a folder without ``index.html`` is a 404, not a listing, so a
link to it is broken), :func:`open_browser` starts Chromium through
Playwright, and :meth:`Checker.crawl` visits every page reachable from a
start page over same-origin links. Per page it records console errors,
uncaught exceptions, failed or >= 400 same-origin requests, images that did
not decode (``naturalWidth == 0``), requests to other origins (a page must
work offline: they are aborted and listed), and links whose target is not
200 or whose ``#anchor`` names no element of the target.

One browser, one context, one page for the whole crawl, not a browser start
per page: the 45 pages (5,000 links) of the docs take about 35 s. A link
target is first asked for with a HEAD through ``page.request`` (status,
type): only HTML pages are rendered; a PNG or a notebook download is checked
by its status alone.

Chromium is Debian's (``/usr/bin/chromium``, or ``HYBRIDSCHED_CHROMIUM``),
never Playwright's downloaded build: :func:`skip_reason` says why the browser
tests cannot run on a machine without it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

#: Where Debian's ``chromium`` package puts the browser.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: Without the background-networking flags Chromium phones home (updates,
#: sync, QUIC probes); on a closed network those connections are refused and
#: the launch stalls or logs errors that are not the page's.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

#: Waits until every ``<img>`` has loaded or failed (lazy ones are made eager
#: first: a headless viewport never scrolls to them).
_SETTLE_IMAGES = """() => Promise.all([...document.images].map(img => {
    img.loading = "eager";
    return img.complete ? null
        : new Promise(done => { img.addEventListener("load", done);
                                img.addEventListener("error", done); });
}))"""

#: What a page holds that the crawl needs: broken images, links, element ids.
_READ_PAGE = """() => ({
    broken: [...document.images].filter(img => img.naturalWidth === 0)
        .map(img => (img.currentSrc || img.src || img.outerHTML).slice(0, 120)),
    links: [...document.querySelectorAll("a[href]")].map(a => a.href),
    ids: [...document.querySelectorAll("[id]")].map(e => e.id)
        .concat([...document.querySelectorAll("a[name]")].map(a => a.name)),
})"""


def chromium_path() -> str | None:
    """The Chromium executable to use, or ``None`` if there is none."""
    return shutil.which(os.environ.get("HYBRIDSCHED_CHROMIUM") or DEFAULT_CHROMIUM)


def skip_reason() -> str | None:
    """Why the browser checks cannot run here (``None``: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; no browser download needed)"
    if chromium_path() is None:
        wanted = os.environ.get("HYBRIDSCHED_CHROMIUM") or DEFAULT_CHROMIUM
        return f"no Chromium at {wanted} (apt-get install chromium, or set HYBRIDSCHED_CHROMIUM)"
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files; no access log on stderr, and no directory listings."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # A listing would answer 200 for a link to a folder without index.html:
        # a web server in front of the site would say 404 (or 403).
        self.send_error(404, "no index.html in this folder")
        return None


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on a free port of 127.0.0.1; yields the base URL (ends with ``/``)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass
class PageReport:
    """What went wrong on one page (empty lists: nothing)."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    broken_links: list[str] = field(default_factory=list)
    images: int = 0

    def problems(self) -> list[str]:
        """One line per problem, naming the page."""
        kinds = [("console error", self.console_errors), ("uncaught error", self.page_errors),
                 ("failed request", self.failed_requests),
                 ("request outside the site", self.external_requests),
                 ("image not rendered", self.broken_images), ("broken link", self.broken_links)]
        return [f"{self.url}: {kind}: {item}" for kind, items in kinds for item in items]


@dataclass
class CrawlReport:
    """Every page visited, and every problem found on them."""

    pages: dict[str, PageReport] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """Every problem of every page, one line each."""
        return [line for page in self.pages.values() for line in page.problems()]

    def summary(self) -> str:
        """The problems, each said once with how many pages have it (a theme's font request
        is on every page: 40 lines would hide the one that is not)."""
        pages: dict[str, list[str]] = {}
        for page in self.pages.values():
            for line in page.problems():
                pages.setdefault(line.removeprefix(f"{page.url}: "), []).append(page.url)
        return "\n".join(f"{problem} [{urls[0]}" + (f" and {len(urls) - 1} more pages]"
                                                    if len(urls) > 1 else "]")
                         for problem, urls in pages.items())


class Checker:
    """One Chromium page, listened to; visit pages and crawl a site with it."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page = page
        self.origin = _origin(origin)
        self._current = PageReport(url="")
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self._current.page_errors.append(str(error)))
        page.on("requestfailed", self._on_failed)
        page.on("response", self._on_response)
        # Other origins are aborted, not waited for: the site must work offline,
        # and on a closed network a font or CDN request would hang the load.
        page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("data:", "blob:")) or _origin(url) == self.origin:
            route.continue_()
        else:
            self._current.external_requests.append(url)
            route.abort()

    def _on_console(self, message: Any) -> None:
        if message.type != "error":
            return
        where = message.location.get("url", "") if message.location else ""
        # A request outside the site is reported once, as such, not again
        # as the console line Chromium prints for its abort.
        if where and _origin(where) != self.origin and not where.startswith("data:"):
            return
        self._current.console_errors.append(message.text)

    def _on_failed(self, request: Any) -> None:
        if _origin(request.url) != self.origin:
            return
        failure = request.failure or ""
        # ERR_ABORTED: a fetch still running when the crawl navigates to the
        # next page (the search index of a docs site). A missing file is a
        # 404 response, caught by _on_response, not a failure.
        if "ERR_ABORTED" not in failure:
            self._current.failed_requests.append(f"{request.url} ({failure})")

    def _on_response(self, response: Any) -> None:
        if response.status >= 400 and _origin(response.url) == self.origin:
            self._current.failed_requests.append(f"{response.url} (HTTP {response.status})")

    def visit(self, url: str) -> tuple[PageReport, list[str], set[str]]:
        """Load ``url``; returns its report, its links (absolute) and its element ids."""
        report = self._current = PageReport(url=url)
        response = self.page.goto(url, wait_until="load")
        if response is None or response.status >= 400:
            status = "no response" if response is None else f"HTTP {response.status}"
            report.failed_requests.append(f"{url} ({status})")
            return report, [], set()
        self.page.evaluate(_SETTLE_IMAGES)
        found = self.page.evaluate(_READ_PAGE)
        report.images = len(self.page.query_selector_all("img"))
        report.broken_images += found["broken"]
        return report, found["links"], set(found["ids"])

    def crawl(self, start: str) -> CrawlReport:
        """Visit every HTML page reachable from ``start`` over same-origin links.

        A link is broken when its target does not answer 200 or when its
        ``#anchor`` is not an element id of the target page. Links to other
        origins are not followed (nor checked: the network may be closed).
        """
        crawl = CrawlReport()
        ids: dict[str, set[str] | None] = {}  # page -> its ids (None: not HTML)
        links: list[tuple[str, str]] = []  # (page it is on, target)
        start = urldefrag(start).url
        queue, seen = deque([start]), {start}
        while queue:
            url = queue.popleft()
            report, found, ids[url] = self.visit(url)
            crawl.pages[url] = report
            for link in found:
                if urlsplit(link).scheme not in ("http", "https") or _origin(link) != self.origin:
                    continue
                links.append((url, link))
                target = urldefrag(link).url
                if target not in seen:
                    seen.add(target)
                    if self._is_html(target, ids):
                        queue.append(target)
        for page, link in links:
            target, anchor = urldefrag(link)
            known = ids[target]
            if target not in crawl.pages and known is not None:
                crawl.pages[page].broken_links.append(f"{link} (not found)")
            elif anchor and (known is None or anchor not in known):
                crawl.pages[page].broken_links.append(f"{link} (no element id={anchor!r})")
        # What the page does after the crawl (a screenshot's navigation) is no
        # page's problem: it must not land in the last page's report.
        self._current = PageReport(url="")
        return crawl

    def _is_html(self, url: str, ids: dict[str, set[str] | None]) -> bool:
        """Whether ``url`` is a page to visit; a non-HTML target is checked here, once."""
        response = self.page.request.head(url, fail_on_status_code=False)
        kind = response.headers.get("content-type", "")
        if response.status != 200:
            ids[url] = set()  # never visited: its links are reported as not found
            return False
        if kind.startswith("text/html"):
            return True
        ids[url] = None
        return False


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@contextlib.contextmanager
def open_browser(base_url: str, *, width: int = 1280, height: int = 900) -> Iterator[Checker]:
    """Headless Chromium (Debian's) with one page listened to by a :class:`Checker`."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise RuntimeError(skip_reason())
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.set_default_timeout(30_000)
            yield Checker(page, base_url)
        finally:
            browser.close()

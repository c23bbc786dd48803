"""The documentation site as built: every internal link and anchor resolves, each tutorial page
links its notebook on Binder and for download, every public name has its API page, every picture
of the tutorials opens in Chromium, and the search page answers.

``make test`` builds the site first (``make docs``: warnings are errors) and names it in
``STRIDELAB_DOCS_HTML``; elsewhere the site is built here, into a temporary folder, where the docs
extra is installed, and these tests skip, saying so, where it is not. The Chromium tests skip where
Playwright or Chromium is missing, as tests/test_browser.py's do.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from test_browser import CHROMIUM_ARGS, find_chromium

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from public_api import PUBLIC_MODULES, public_names
from stridelab_benchmarks import latest

BINDER = "https://mybinder.org/v2/gh/stridelab/stridelab/HEAD"
DOCS_TOOLS = ("sphinx", "myst_nb", "numpydoc", "sphinx_book_theme", "sphinxarg")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site's folder: ``make test``'s, or one built here with warnings as errors."""
    built = os.environ.get("STRIDELAB_DOCS_HTML")
    if built:
        assert (Path(built) / "index.html").is_file(), f"STRIDELAB_DOCS_HTML={built} holds no built site"
        return Path(built)
    for module in DOCS_TOOLS:
        pytest.importorskip(
            module, reason=f"the docs extra is not installed ({module} is missing; make docs installs it)"
        )
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees")]
    result = subprocess.run(
        [*command, str(DOCS), str(out / "html")], env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return out / "html"


class _Page(HTMLParser):
    """The anchors (``id`` and ``name``) of a page and the addresses it links to or loads."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("id", "name") if tag != "meta" else ():
            if values.get(name):
                self.anchors.add(str(values[name]))
        for name in ("href", "src"):
            if values.get(name) and tag in ("a", "link", "img", "script", "iframe", "source"):
                self.links.append(str(values[name]))


@functools.cache
def _parsed(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> Iterator[str]:
    """Each internal link of the site whose file or anchor is missing, as 'page: link'."""
    for page in sorted(site.rglob("*.html")):
        if page.relative_to(site).parts[0] == "_static":
            continue  # the theme's templates, not pages
        for link in _parsed(page).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {link}"
            if not target.is_file():
                yield where
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parsed(target).anchors:
                yield where


@pytest.mark.slow
def test_every_internal_link_and_anchor_resolves(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) > 60  # the course, the how-tos, the API pages
    assert list(broken_links(site)) == []


def test_a_missing_page_or_anchor_is_found(tmp_path):
    (tmp_path / "a.html").write_text(
        '<p id="here"></p><a href="#here">ok</a><a href="b.html#x">b</a><a href="a.html#no">no</a>'
    )
    (tmp_path / "b.html").write_text('<h1 id="x">b</h1><a href="c.html">gone</a><a href="https://example.org">away</a>')
    assert list(broken_links(tmp_path)) == ["a.html: a.html#no", "b.html: c.html"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_a_tutorial_page_launches_its_notebook_on_binder_and_downloads_it(site, notebook):
    page = site / "tutorials" / f"{notebook.stem}.html"
    links = _parsed(page).links
    assert f"{BINDER}?labpath=notebooks/{notebook.name}" in links
    downloads = [link for link in links if link.endswith(f"_sources/tutorials/{notebook.name}")]
    assert downloads, f"{page.name} has no download link"
    assert (page.parent / downloads[0]).read_bytes() == notebook.read_bytes()


def test_every_public_name_has_its_api_page(site):
    for module in PUBLIC_MODULES:
        module_page = site / "api" / f"{module}.html"
        for entry in public_names(module):
            if entry.kind == "constant":
                assert entry.qualified in _parsed(module_page).anchors, entry.qualified
            elif not entry.same_as:
                assert (site / "api" / "generated" / f"{entry.qualified}.html").is_file(), entry.qualified


def test_the_speed_page_has_each_scripts_latest_table(site):
    anchors = _parsed(site / "benchmarks.html").anchors
    scripts = latest((ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8"))
    assert {"cpu", "gpu"} <= set(scripts)
    for script in scripts:
        assert f"benchmarks-{script.replace('_', '-')}-py" in anchors, script


RESULTS = """# Benchmark results

## CPU

`python benchmarks/cpu.py` on a laptop, 2026-01-02.

| row | us |
| --- | --- |
| a | 1 |

## Later (2026-02-03)

Some prose, then `PYTHONPATH=src python benchmarks/cpu.py --repeats 3` on the same laptop.

| row | us |
| --- | --- |
| a | 2 |

A table no command introduces:

| x |
| --- |
"""


def test_the_latest_table_of_a_script_is_its_last_one_with_its_date():
    runs = latest(RESULTS)
    assert list(runs) == ["cpu"]
    assert runs["cpu"].table == ("| row | us |", "| --- | --- |", "| a | 2 |")
    assert (runs["cpu"].date, runs["cpu"].headings, runs["cpu"].line) == ("2026-02-03", ("Later (2026-02-03)",), 15)


@pytest.fixture(scope="module")
def browser_page(site):
    """A headless Chromium page, and the URL of the site served on a free localhost port."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with playwright_api.sync_playwright() as playwright:
            chromium, looked_in = find_chromium(playwright.chromium.executable_path)
            if chromium is None:
                pytest.skip(f"no Chromium: looked for {looked_in}")
            browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
            try:
                yield (
                    browser.new_page(viewport={"width": 1280, "height": 900}),
                    f"http://127.0.0.1:{server.server_address[1]}",
                )
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def _stored_pictures(notebook: Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    outputs = [output for cell in cells for output in cell.get("outputs", [])]
    return sum(1 for output in outputs if {"image/png", "image/svg+xml"} & set(output.get("data", {})))


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_picture_of_a_tutorial_opens_in_chromium(browser_page, notebook):
    page, base = browser_page
    page.goto(f"{base}/tutorials/{notebook.stem}.html", wait_until="load")
    pictures = page.evaluate(
        """() => [...document.querySelectorAll('article img')].map(
            img => ({src: img.getAttribute('src'), ok: img.complete && img.naturalWidth > 0}))"""
    )
    assert len(pictures) >= _stored_pictures(notebook)
    assert [p["src"] for p in pictures if not p["ok"]] == []


@pytest.mark.browser
def test_the_search_page_answers(browser_page):
    page, base = browser_page
    page.goto(f"{base}/search.html?q=TensorDesc", wait_until="load")
    results = page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=15_000)
    hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
    assert any("api/generated/stridelab.TensorDesc.html" in href for href in hrefs), hrefs

"""MemoryMapView(..., access=True) in JupyterLab in a real Chromium: pointing at a cell (a thread)
lights the sector its bytes fall in, and says which thread of which request reads where.

The server and browser come from tests/test_browser.py (skips with the reason where Playwright or
Chromium is missing). A screenshot of the hovered view goes to test-artifacts/.
"""

from __future__ import annotations

import re

import pytest
from test_browser import ARTIFACTS, browser, lab, opened  # noqa: F401  (fixtures used by name)

pytestmark = pytest.mark.browser

NOTEBOOK = "tests/browser/access.ipynb"


def test_hovering_a_thread_lights_its_sector(browser, lab):  # noqa: F811  (the fixtures' names)
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    with opened(browser, lab, NOTEBOOK) as page:
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        view = page.locator(".stridelab-widget").first
        expect(view.locator("g.cell")).to_have_count(64, timeout=30_000)
        # two requests of the transposed 8x8 read every sector: eight outlines each
        expect(view.locator("g.access g.sector")).to_have_count(16)
        # (2, 3) is thread 19, reading 4 * 2 + 32 * 3 = 104: sector 3, bytes 96 to 127, elements 24 to 31
        view.locator('g.cell[data-coords="2,3"]').hover()
        lit = view.locator("g.slot.sector-lit")
        expect(lit).to_have_count(8)
        assert sorted(int(s) for s in lit.evaluate_all("(g) => g.map((e) => e.dataset.slot)")) == list(range(24, 32))
        outlines = view.locator("g.sector.sector-lit")
        expect(outlines).to_have_count(2)
        assert set(outlines.evaluate_all("(g) => g.map((e) => e.dataset.sector)")) == {"3"}
        expect(view.locator(".stridelab-info")).to_have_text("thread 19 of request 0: address 104, sector 3")
        expect(view.locator('g.slot[data-slot="26"]')).to_have_class(re.compile(r"\bhl\b"))  # its own slot
        view.screenshot(path=str(ARTIFACTS / "browser-access-hover.png"))
        # another thread, another sector; leaving the drawing lights none
        view.locator('g.cell[data-coords="5,0"]').hover()
        expect(view.locator(".stridelab-info")).to_have_text("thread 40 of request 1: address 20, sector 0")
        assert sorted(int(s) for s in lit.evaluate_all("(g) => g.map((e) => e.dataset.slot)")) == list(range(8))
        page.mouse.move(1, 1)
        expect(lit).to_have_count(0)
        # the report beside it shows as its static picture, drawn
        picture = page.locator(".jp-OutputArea-output.jp-RenderedSVG img, .jp-OutputArea-output.jp-RenderedImage img")
        expect(picture).to_have_count(1, timeout=20_000)
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 1000", arg=picture.element_handle())

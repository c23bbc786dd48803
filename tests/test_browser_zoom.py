"""The explorers at 100% and 200% browser zoom, in JupyterLab in a real Chromium.

Browser zoom on a 1920 x 1080 screen is emulated as Chromium zooms: a page of 1920/z x 1080/z CSS
pixels drawn at z device pixels per CSS pixel (Playwright's ``device_scale_factor``), so ipywidgets
lay out in a narrower page exactly as they do for a zooming reader. The file browser is collapsed
(as a teacher on a projector would). Every label of every explorer must show whole (its
``scrollWidth`` within its ``clientWidth``) and every slider track be at least 120 CSS pixels wide.

The server and browser come from tests/test_browser.py (skips with the reason where Playwright or
Chromium is missing). Screenshots of the tutorials' explorers at 200% go to test-artifacts/.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from test_browser import ARTIFACTS, browser, lab  # noqa: F401  (fixtures used by name)

pytestmark = pytest.mark.browser

SCREEN = (1920, 1080)
MIN_SLIDER = 120
#: Notebooks opened and run, with the number of explorers and views each shows.
NOTEBOOKS = {
    "tests/browser/zoom.ipynb": 6,
    "notebooks/00-start-here.ipynb": 1,
    "notebooks/04-cumulative-summation.ipynb": 2,
    "notebooks/05-slice1.ipynb": 3,
}
#: The widgets measured: each explorer once (its own map view is inside it), and lone views.
WIDGETS = (
    ".stridelab-explorer, .stridelab-operator, "
    ".stridelab-widget:not(.stridelab-explorer .stridelab-widget):not(.stridelab-operator .stridelab-widget)"
)

MEASURE = """(root) => {
    const cut = [];
    const labels = root.querySelectorAll(
        '.widget-label, .widget-label-basic, .widget-readout, .widget-checkbox label, .widget-toggle-button, '
        + '.jupyter-widgets.widget-html-content, .stridelab-panel-name');
    for (const el of labels) {
        if (el.getClientRects().length === 0 || el.textContent.trim() === '') continue;
        if (el.scrollWidth > el.clientWidth + 1) {
            cut.push({text: el.textContent.trim().slice(0, 60), scroll: el.scrollWidth, client: el.clientWidth});
        }
    }
    const sliders = [...root.querySelectorAll('.widget-slider .noUi-target')]
        .filter((el) => el.getClientRects().length > 0)
        .map((el) => Math.round(el.getBoundingClientRect().width));
    const box = root.getBoundingClientRect();
    return {cut, sliders, width: Math.round(box.width), height: Math.round(box.height)};
}"""


@contextlib.contextmanager
def zoomed(browser, lab, path: str, zoom: int):  # noqa: F811  (the fixtures' names)
    """JupyterLab at ``zoom`` times on a 1920 x 1080 screen, the notebook at ``path`` run top to
    bottom, its widgets drawn; the kernel stopped afterwards."""
    base, token, _ = lab
    width, height = SCREEN
    page = browser.new_page(viewport={"width": width // zoom, "height": height // zoom}, device_scale_factor=zoom)
    try:
        page.goto(f"{base}/lab/tree/{path}?reset&token={token}")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=30_000)
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(
            f"() => document.querySelectorAll('{WIDGETS}').length >= {NOTEBOOKS[path]}"
            " && [...document.querySelectorAll('.stridelab-widget')].every((w) => w.querySelector('svg'))",
            timeout=90_000,
        )
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
            timeout=60_000,
        )
        page.wait_for_timeout(500)  # the last redraws for the measured width
        yield page
    finally:
        with contextlib.suppress(Exception):
            page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()


def measured(page) -> list[dict]:
    """Per widget: its labels cut short, its slider tracks' widths and its size (CSS pixels)."""
    widgets = page.locator(WIDGETS)
    return [dict(widgets.nth(i).evaluate(MEASURE), index=i) for i in range(widgets.count())]


@pytest.mark.parametrize(
    ("path", "zoom"), [("tests/browser/zoom.ipynb", 1), *((path, 2) for path in NOTEBOOKS)], ids=str
)
def test_labels_whole_and_sliders_usable(browser, lab, path, zoom):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    stem = path.rsplit("/", 1)[-1].removesuffix(".ipynb")
    with zoomed(browser, lab, path, zoom) as page:
        widgets = measured(page)
        # the play control says what its buttons do, on hover
        tips = page.locator(".widget-play").evaluate_all("(els) => els.map((el) => el.title)")
        # as tall a page as the widgets need, for whole screenshots: the width, and so the layout, stay
        page.set_viewport_size({"width": SCREEN[0] // zoom, "height": 2400})
        page.wait_for_timeout(300)
        shots = page.locator(WIDGETS)
        for i in range(shots.count()):
            shots.nth(i).scroll_into_view_if_needed()
            shots.nth(i).screenshot(path=str(ARTIFACTS / f"zoom{zoom * 100}-{stem}-{i}.png"))
    (ARTIFACTS / f"zoom{zoom * 100}-{stem}.json").write_text(json.dumps(widgets, indent=1) + "\n")
    assert len(widgets) >= NOTEBOOKS[path]
    assert all(tip.startswith("play: walk the steps") for tip in tips), tips
    for widget in widgets:
        assert not widget["cut"], (path, zoom, widget)
        assert all(width >= MIN_SLIDER for width in widget["sliders"]), (path, zoom, widget)

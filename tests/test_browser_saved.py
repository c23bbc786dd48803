"""A notebook saved after running keeps its widgets' pictures: ``stridelab lab`` in a real browser.

``stridelab lab`` serves a folder holding tests/browser/saved_widgets.ipynb (every kind of
stridelab widget, one per cell) beside the tutorials it copies there. Each notebook is run top to
bottom, saved as a student saves it (Ctrl+S), its kernel shut down and its tab closed; reopened,
with the kernel JupyterLab starts and after shutting that one down, every widget's output shows a
picture of a real size and nowhere ``Error displaying widget: model not found``. The tutorials 00,
04 and 05 go the same way, leaving screenshots of the reopened notebooks in test-artifacts/, with
each notebook's size as stored and as saved (test-artifacts/saved-sizes.json).

Skips, with the reason, where Playwright or Chromium is missing (see tests/test_browser.py).
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys
from pathlib import Path

import pytest
from test_browser import (
    ARTIFACTS,
    ROOT,
    _free_port,
    browser,  # noqa: F401  (a fixture used by name)
    isolated_env,
    opened,
    serving,
)

pytestmark = pytest.mark.browser

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
EVERY_KIND = ROOT / "tests" / "browser" / "saved_widgets.ipynb"
TUTORIALS = ["00-start-here", "04-cumulative-summation", "05-slice1"]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """``stridelab lab`` serving a fresh course folder with isolated Jupyter configuration (no
    saveState setting of its own: what the test sees is stridelab's default); its URL, token and
    folder."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    home = tmp_path_factory.mktemp("saved")
    folder = home / "course"
    folder.mkdir()
    shutil.copy(EVERY_KIND, folder)
    env = isolated_env(home)
    port, token = _free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "stridelab", "lab", str(folder), "--no-browser", f"--port={port}"]
    command += [
        f"--IdentityProvider.token={token}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    with serving(command, env, home, port, token, timeout=60) as base:
        yield base, token, folder


def widget_outputs(path: Path) -> int:
    """How many outputs of the notebook file show a widget."""
    cells = json.loads(path.read_text())["cells"]
    return sum(WIDGET_VIEW in output.get("data", {}) for cell in cells for output in cell.get("outputs", []))


#: The output areas of the open notebook whose output is a widget view, as JupyterLab holds them.
WIDGET_AREAS = """(mime) => {
    const areas = [];
    for (const cell of window.jupyterapp.shell.currentWidget.content.widgets) {
        if (cell.model.type !== 'code') continue;
        const outputs = cell.model.outputs;
        cell.outputArea.widgets.forEach((child, j) => {
            if (j < outputs.length && mime in outputs.get(j).data) {
                areas.push(child.node.querySelector('.jp-OutputArea-output'));
            }
        });
    }
    return areas;
}"""


def drawn_widgets(page) -> list[dict]:
    """Every widget output of the open notebook: the size of the largest picture in it (an <svg> or
    <img>) and whether it says its model is missing."""
    return page.evaluate(
        f"""(mime) => ({WIDGET_AREAS})(mime).map((area) => {{
            const boxes = area ? [...area.querySelectorAll('svg, img')].map((p) => p.getBoundingClientRect()) : [];
            const largest = (a, b) => (b.width * b.height > a.width * a.height ? b : a);
            const box = boxes.reduce(largest, {{width: 0, height: 0}});
            return {{width: Math.round(box.width), height: Math.round(box.height),
                     missing: !area || area.textContent.includes('model not found')}};
        }})""",
        WIDGET_VIEW,
    )


def wait_for_pictures(page, count: int) -> None:
    """Until the notebook has ``count`` widget outputs and each shows a picture of a real size or
    says its model is missing."""
    page.wait_for_function(
        f"""([mime, count]) => {{
            const areas = ({WIDGET_AREAS})(mime);
            return areas.length === count && areas.every((area) => area && (
                area.textContent.includes('model not found')
                || [...area.querySelectorAll('svg, img')].some((p) => p.getBoundingClientRect().height >= 40)));
        }}""",
        arg=[WIDGET_VIEW, count],
        timeout=30_000,
    )


def check_pictures(page, count: int, where: str) -> None:
    wait_for_pictures(page, count)
    drawn = drawn_widgets(page)
    assert len(drawn) == count, (where, drawn)
    for widget in drawn:
        assert not widget["missing"], (where, drawn)
        assert widget["width"] >= 100 and widget["height"] >= 40, (where, drawn)
    assert page.get_by_text("model not found").count() == 0, where


def run_save_reopen(browser, course, name: str, screenshot: str | None = None) -> dict:  # noqa: F811  (the fixture's name)
    """Run the notebook, save it, shut its kernel down, close it, reopen it; check its pictures
    with the new kernel and with none. Its size as stored and as saved."""
    _, _, folder = course
    path = folder / name
    stored = path.stat().st_size
    with opened(browser, course, name, timeout_ms=30_000) as page:
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        count = page.evaluate(f"(mime) => ({WIDGET_AREAS})(mime).length", WIDGET_VIEW)
        assert count > 0, name
        wait_for_pictures(page, count)
        check_pictures(page, count, f"{name} run")
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    saved = json.loads(path.read_text())
    assert widget_outputs(path) == count, name
    state = saved["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in saved["cells"]
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]
    assert all(view in state for view in views), f"{name}: saved without the state of its widgets"

    with opened(browser, course, name, timeout_ms=30_000) as page:
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
        check_pictures(page, count, f"{name} reopened, its kernel started")
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        check_pictures(page, count, f"{name} reopened, no kernel")
        if screenshot:
            ARTIFACTS.mkdir(exist_ok=True)
            page.evaluate(f"(mime) => ({WIDGET_AREAS})(mime)[0].scrollIntoView()", WIDGET_VIEW)
            page.screenshot(path=str(ARTIFACTS / screenshot))
    return {"widgets": count, "stored_bytes": stored, "saved_bytes": path.stat().st_size}


def test_every_widget_kind_keeps_its_picture(browser, course):  # noqa: F811  (the fixture's name)
    sizes = run_save_reopen(browser, course, EVERY_KIND.name, "saved-every-kind.png")
    # MemoryMapView, explore, compare, CumulativeSummationExplorer, SliceExplorer
    assert sizes["widgets"] == 5


@pytest.mark.slow
def test_tutorials_keep_their_pictures(browser, course):  # noqa: F811  (the fixture's name)
    sizes = {name: run_save_reopen(browser, course, f"{name}.ipynb", f"saved-{name}.png") for name in TUTORIALS}
    (ARTIFACTS / "saved-sizes.json").write_text(json.dumps(sizes, indent=2) + "\n")

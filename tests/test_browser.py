"""stridelab in a real browser: JupyterLab on a free localhost port, headless Chromium via
Playwright.

- The widgets: tests/browser/memory_map.ipynb run top to bottom; the memory map is drawn,
  hovering a logical cell lights its slot, and moving an explorer control redraws the map.
- The tutorials as stored, no cell run and no kernel: every picture output is drawn as a picture
  of its real size, untrusted (JupyterLab shows the PNG) and trusted (the SVG).

Screenshots and the measured redraw time (from the key press to the new drawing, kernel round
trip included) go to test-artifacts/. Skips, with the reason, where Playwright or Chromium is
missing (``STRIDELAB_CHROMIUM`` names the browser to use; otherwise ``/usr/bin/chromium``,
``chromium`` or ``chromium-browser`` on the PATH, or Playwright's own download); always stops the
kernels and server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
NOTEBOOK = "tests/browser/memory_map.ipynb"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium(playwright_executable: str | None) -> tuple[Path | None, str]:
    """The Chromium to drive, or None, and where it was looked for (the skip reason names it).

    ``STRIDELAB_CHROMIUM`` wins (a path that is not an executable file is not replaced by another);
    then Debian's ``/usr/bin/chromium``, ``chromium`` or ``chromium-browser`` on the PATH, then
    Playwright's own download (``playwright_executable``).
    """
    chosen = os.environ.get("STRIDELAB_CHROMIUM")
    if chosen:
        path = Path(chosen)
        found = path.is_file() and os.access(path, os.X_OK)
        return (path if found else None), f"STRIDELAB_CHROMIUM={chosen}"
    candidates = ["/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    candidates.append(playwright_executable)
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate), candidate
    return None, "/usr/bin/chromium, chromium or chromium-browser on the PATH, or Playwright's own install"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(settings_dir: Path) -> None:
    """No news toast over the page, no autosave of the notebook under test."""
    for plugin, values in (
        ("apputils-extension/notification", {"fetchNews": "false", "checkForUpdates": False}),
        ("docmanager-extension/plugin", {"autosave": False}),
        ("notebook-extension/tracker", {"windowingMode": "none"}),  # render every cell, not only those in view
    ):
        path = settings_dir / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def isolated_env(home: Path) -> dict[str, str]:
    """The environment of a JupyterLab server whose configuration, data (the notebook trust
    database), runtime, settings and workspaces all live in ``home``, importing this checkout's
    stridelab."""
    env = dict(os.environ)
    for name in (
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_DATA_DIR",
        "JUPYTER_RUNTIME_DIR",
        "JUPYTERLAB_SETTINGS_DIR",
        "JUPYTERLAB_WORKSPACES_DIR",
    ):
        env[name] = str(home / name.lower())
    env["IPYTHONDIR"] = str(home / "ipython")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    _settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    return env


@contextlib.contextmanager
def serving(command: list[str], env: dict[str, str], home: Path, port: int, token: str, *, timeout: float = 30):
    """Run the server ``command`` (its output in ``home/server.log``); yield its URL once it
    answers on ``port``, then stop it and everything it started."""
    log = (home / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{' '.join(command[1:4])} did not start; see {home / 'server.log'}")
            time.sleep(0.2)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server with isolated configuration, serving the repository; its URL and token."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    home = tmp_path_factory.mktemp("jupyter")
    env = isolated_env(home)
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={ROOT}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    with serving(command, env, home, port, token) as base:
        yield base, token, env


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, or a skip naming where it was looked for (before any server starts:
    every test asks for ``browser`` before ``lab``)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        try:
            own = p.chromium.executable_path
        except Exception:  # Playwright knows no browser of its own for this platform
            own = None
        executable, looked = find_chromium(own)
        if executable is None:
            pytest.skip(f"no Chromium found ({looked}); Debian: apt-get install chromium")
        chromium = p.chromium.launch(executable_path=str(executable), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def opened(browser, lab, path: str, timeout_ms: int = 20_000):
    """A page of JupyterLab with the notebook at ``path`` (relative to the folder served) open, its
    kernel shut down on leaving."""
    base, token, _ = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{base}/lab/tree/{path}?reset&token={token}")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=timeout_ms)
        yield page
    finally:
        # kernels outlive the tab: stop this one (stopping the server stops any other)
        with contextlib.suppress(Exception):
            page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()


@pytest.fixture
def page(browser, lab):
    with opened(browser, lab, NOTEBOOK) as page:
        yield page


def test_map_is_drawn_linked_and_redrawn(page):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    view = page.locator(".stridelab-widget").first
    explorer = page.locator(".stridelab-explorer").first

    # drawn: 12 cells and 12 slots of an NHWC {1, 2, 2, 3} tensor (strides {12, 1, 6, 2})
    expect(view.locator("g.cell")).to_have_count(12, timeout=20_000)
    expect(view.locator("g.slot")).to_have_count(12)
    expect(explorer.locator("g.cell")).to_have_count(6, timeout=20_000)
    # each widget shows once, live: its static picture (for saved notebooks) is not drawn beside it
    expect(page.locator(".jp-OutputArea-output")).to_have_count(4, timeout=20_000)
    expect(page.locator(".jp-OutputArea-output.jp-RenderedSVG, .jp-OutputArea-output.jp-RenderedImage")).to_have_count(
        0
    )
    lit = re.compile(r"\bhl\b")

    # a slot lights its cell: slot 4 holds (0, 0, 0, 2), at 0*1 + 0*6 + 2*2 = 4
    view.locator('g.slot[data-slot="4"]').hover()
    expect(view.locator('g.cell[data-coords="0,0,0,2"]')).to_have_class(lit)
    expect(view.locator("g.cell.hl")).to_have_count(1)

    # a cell lights its slot: (0, 1, 0, 1), row-major index 7, lives at 1*1 + 0*6 + 1*2 = 3
    view.locator('g.cell[data-coords="0,1,0,1"]').hover()
    expect(view.locator('g.slot[data-slot="3"]')).to_have_class(lit)
    expect(view.locator("g.slot.hl")).to_have_count(1)
    expect(view.locator(".stridelab-info")).to_contain_text("element 3, byte 12")
    page.screenshot(path=str(ARTIFACTS / "browser-hover.png"), full_page=True)

    # the layout's one line, under the map, with a button that copies it (or selects it where the
    # page may not write the clipboard)
    expect(view.locator(".stridelab-copy code")).to_have_text("FLOAT32 (1,2,2,3):(12,1,6,2)")
    view.locator(".stridelab-copy button").click()
    expect(view.locator(".stridelab-copy button")).to_have_text(re.compile("copied|press Ctrl\\+C"))

    # moving the W size slider redraws the explorer's map: 2 x 3 -> 2 x 4 cells
    widget = explorer.locator(".stridelab-widget")
    page.evaluate(
        "() => document.addEventListener('keydown', () => { window.__stridelabKey = performance.now(); },"
        " {capture: true, once: true})"
    )
    handle = explorer.locator(".stridelab-size .noUi-handle").nth(1)
    handle.focus()
    handle.press("ArrowRight")
    expect(explorer.locator("g.cell")).to_have_count(8, timeout=10_000)
    expect(explorer.locator("g.slot")).to_have_count(8)
    redraw_ms = page.evaluate("(el) => Number(el.dataset.drawnAt) - window.__stridelabKey", widget.element_handle())
    page.screenshot(path=str(ARTIFACTS / "browser-redraw.png"), full_page=True)
    (ARTIFACTS / "browser-redraw.json").write_text(
        json.dumps({"redraw_ms": round(redraw_ms, 1), "what": "key press on a size slider to the map redrawn"}) + "\n"
    )
    assert redraw_ms > 0

    # a cumulative-sum output lights the inputs it sums: output (0, 0, 0, 2) = x[0] + x[1] + x[2]
    tally = page.locator(".stridelab-operator .stridelab-widget")
    expect(tally.locator("g.cell")).to_have_count(24, timeout=20_000)
    tally.locator('svg[data-panel="1"] g.cell[data-coords="0,0,0,2"]').hover()
    lit_inputs = tally.locator('svg[data-panel="0"] g.cell.hl')
    expect(lit_inputs).to_have_count(3)
    assert sorted(lit_inputs.evaluate_all("(cells) => cells.map((c) => c.dataset.coords)")) == [
        "0,0,0,0",
        "0,0,0,1",
        "0,0,0,2",
    ]
    tally.screenshot(path=str(ARTIFACTS / "browser-cumsum-hover.png"))

    # a real size, (1, 64, 56, 56) NHWC: the drawing fits the output area, and moving the window
    # along C redraws other channels
    big = page.locator(".stridelab-explorer").nth(1)
    first_cell = big.locator("g.cell").first
    expect(first_cell).to_have_attribute("data-coords", "0,0,0,0", timeout=20_000)
    # laid out for the output area's width (reported by the page), not merely scaled down to it
    drawn_width, area_width = big.locator("svg.stridelab-map").evaluate(
        "(svg) => [Number(svg.getAttribute('width')), svg.closest('.jp-OutputArea-output').clientWidth]"
    )
    assert drawn_width <= area_width
    handle = big.locator(".stridelab-window .noUi-handle").nth(1)
    handle.focus()
    handle.press("ArrowRight")
    expect(first_cell).to_have_attribute("data-coords", "0,1,0,0", timeout=10_000)
    big.screenshot(path=str(ARTIFACTS / "browser-window.png"))

    # an explorer whose controls describe no tensor dims the map it can no longer redraw
    def opacity() -> float:
        return float(explorer.locator(".stridelab-panels").evaluate("(el) => getComputedStyle(el).opacity"))

    assert opacity() == 1
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
        ".requestExecute({code: 'explorer.configure(padding={\\'H\\': 1})'}).done"
    )
    expect(explorer.locator(".stridelab-error")).to_contain_text("follows the outermost dimension", timeout=10_000)
    page.wait_for_function(
        "(el) => getComputedStyle(el).opacity < 1", arg=explorer.locator(".stridelab-panels").element_handle()
    )
    assert opacity() < 1
    explorer.screenshot(path=str(ARTIFACTS / "browser-stale.png"))


# -- the tutorials as stored ------------------------------------------------------------------------

TUTORIALS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def stored_pictures(path: Path) -> list[tuple[int, int] | None]:
    """For each output of the stored notebook that holds a picture, the size it is drawn at (None
    for a plain PNG, e.g. a matplotlib figure)."""
    sizes = []
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                size = output.get("metadata", {}).get("image/png")
                sizes.append((size["width"], size["height"]) if size else None)
    return sizes


def drawn_pictures(page) -> list[dict]:
    """Every output area of the open notebook: the rendered picture's kind and size, or none."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-OutputArea-output')].map((area) => {
            const img = area.querySelector('img');
            const box = img ? img.getBoundingClientRect() : null;
            return {
                kind: area.classList.contains('jp-RenderedSVG') ? 'svg'
                    : area.classList.contains('jp-RenderedImage') ? 'png' : 'other',
                loaded: img ? img.complete && img.naturalWidth > 0 : false,
                width: box ? Math.round(box.width) : 0,
                height: box ? Math.round(box.height) : 0,
                text: img ? '' : area.textContent.slice(0, 200),
            };
        })"""
    )


def check_stored_pictures(browser, lab, kind: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for path in TUTORIALS:
        expected = stored_pictures(path)
        with opened(browser, lab, f"notebooks/{path.name}") as page:
            # no kernel: stop the one JupyterLab starts on opening; no cell is run
            page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
            page.wait_for_function(
                f"() => document.querySelectorAll('.jp-OutputArea-output img').length >= {len(expected)}",
                timeout=20_000,
            )
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-OutputArea-output img')].every((i) => i.complete)"
            )
            drawn = [area for area in drawn_pictures(page) if area["kind"] != "other"]
            page.screenshot(path=str(ARTIFACTS / f"stored-{kind}-{path.stem}.png"), full_page=False)
        assert len(drawn) == len(expected), (path.name, drawn)
        for area, size in zip(drawn, expected):
            assert area["loaded"] and area["height"] >= 40, (path.name, area)
            if size is None:
                continue
            # JupyterLab picks the SVG where the notebook is trusted, the PNG where it is not
            assert area["kind"] == kind, (path.name, area)
            # the drawing's own size, or the output area's width where that is narrower: never squeezed
            width, height = size
            assert area["width"] >= min(width, 900), (path.name, area, size)
            assert abs(area["width"] / area["height"] - width / height) < 0.02, (path.name, area, size)


def test_stored_tutorials_show_every_picture_untrusted(browser, lab):
    check_stored_pictures(browser, lab, "png")


def test_stored_tutorials_show_every_picture_trusted(browser, lab):
    _, _, env = lab
    subprocess.run([sys.executable, "-m", "jupyter", "trust", *map(str, TUTORIALS)], env=env, check=True, timeout=60)
    check_stored_pictures(browser, lab, "svg")

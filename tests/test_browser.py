"""The widgets in a real browser: JupyterLab on a free localhost port, headless Chromium via
Playwright, the notebook tests/browser/memory_map.ipynb run top to bottom.

Checks that the memory map is drawn, that hovering a logical cell lights its slot, and that
moving an explorer control redraws the map. Screenshots and the measured redraw time (from
the key press to the new drawing, kernel round trip included) go to test-artifacts/.
Skips where Playwright or the system Chromium is missing; always stops the kernels and server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
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
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(settings_dir: Path) -> None:
    """No news toast over the page, no autosave of the notebook under test."""
    for plugin, values in (
        ("apputils-extension/notification", {"fetchNews": "false", "checkForUpdates": False}),
        ("docmanager-extension/plugin", {"autosave": False}),
    ):
        path = settings_dir / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server with isolated configuration, serving the repository; its URL and token."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    home = tmp_path_factory.mktemp("jupyter")
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[name] = str(home / name.lower())
    env["IPYTHONDIR"] = str(home / "ipython")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    _settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
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
    log = (home / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start; see {home / 'server.log'}")
            time.sleep(0.2)
        yield base, token
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


@pytest.fixture
def page(lab):
    from playwright.sync_api import sync_playwright

    base, token = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{base}/lab/tree/{NOTEBOOK}?reset&token={token}")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=20_000)
            yield page
        finally:
            # kernels outlive the tab: stop this one (stopping the server stops any other)
            with contextlib.suppress(Exception):
                page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
            browser.close()


def test_map_is_drawn_linked_and_redrawn(page):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    view = page.locator(".stridelab-widget").first
    explorer = page.locator(".stridelab-explorer")

    # drawn: 12 cells and 12 slots of an NHWC {1, 2, 2, 3} tensor (strides {12, 1, 6, 2})
    expect(view.locator("g.cell")).to_have_count(12, timeout=20_000)
    expect(view.locator("g.slot")).to_have_count(12)
    expect(explorer.locator("g.cell")).to_have_count(6, timeout=20_000)
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

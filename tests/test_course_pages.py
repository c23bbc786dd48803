"""Each notebook that quotes DirectML's pages links them, once, at its top.

The course says "the page" wherever it quotes one; a reader (or a teacher on a projector) must be
able to open that page from the notebook itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
DIRECTML_LINK = re.compile(r"\]\((https://learn\.microsoft\.com/en-us/windows/[^)\s]+)\)")
#: The pages the course quotes (see ../shared/seeds), by their address.
PAGES = {
    "https://learn.microsoft.com/en-us/windows/ai/directml/dml-strides",
    "https://learn.microsoft.com/en-us/windows/ai/directml/dml-helper-functions",
    "https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_cumulative_summation_operator_desc",
    "https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_cumulative_product_operator_desc",
    "https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_slice1_operator_desc",
    "https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_element_wise_identity_operator_desc",
}


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_that_quotes_a_page_links_it_once_at_its_top(path):
    markdown = _markdown(path)
    quotes = any(re.search(r"\b[Tt]he page\b|page's|pages'", text) for text in markdown)
    links = [link for text in markdown for link in DIRECTML_LINK.findall(text)]
    if quotes:
        assert DIRECTML_LINK.search(markdown[0]), f"{path.name} quotes a DirectML page but its top links none"
    assert len(links) == len(set(links)), f"{path.name} links a page twice: {sorted(links)}"
    assert set(links) <= PAGES, f"{path.name} links an address that is not one of the pages quoted"
    later = [link for text in markdown[1:] for link in DIRECTML_LINK.findall(text)]
    assert not later, f"{path.name} links a page below its top: {later}"


#: JupyterLab's output area at 200% zoom on a 1920 x 1080 screen, the file browser collapsed (CSS
#: pixels, measured in Chromium): a wider stored picture is shrunk below the size of the prose.
OUTPUT_WIDTH_AT_200 = 780


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_memory_map_fits_the_output_at_200_percent_zoom(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    widths = []
    for cell in cells:
        for output in cell.get("outputs", []):
            svg = "".join(output.get("data", {}).get("image/svg+xml", ""))
            if svg and 'data-picture="boxes"' not in svg:  # a layout check's table is laid out on its own
                widths.append(int(re.search(r'<svg[^>]* width="([0-9.]+)"', svg)[1].split(".")[0]))
    assert all(width <= OUTPUT_WIDTH_AT_200 for width in widths), f"{path.name}: pictures {widths} px wide"

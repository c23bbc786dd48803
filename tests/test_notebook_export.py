"""The tutorials exported as ``jupyter nbconvert --to html`` does it (nbviewer uses the same
exporter), offline and with no configuration of ours: every picture output is an inline picture."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "notebooks").glob("*.ipynb"))


class OutputPictures(HTMLParser):
    """Per output area of an exported notebook, its classes and the sources of the pictures
    (``<img src>``, or ``"<svg>"`` for inline SVG markup) inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs: list[tuple[list[str], list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "div" and "jp-OutputArea-output" in (attributes.get("class") or "").split():
            self.outputs.append(((attributes.get("class") or "").split(), []))
        elif tag in ("img", "svg") and self.outputs:
            self.outputs[-1][1].append(attributes.get("src") or "" if tag == "img" else "<svg>")


def picture_outputs(path: Path) -> int:
    cells = json.loads(path.read_text())["cells"]
    return sum(
        1
        for cell in cells
        for output in cell.get("outputs", [])
        if {"image/png", "image/svg+xml"} & set(output.get("data", {}))
    )


def html_tables(path: Path) -> int:
    """Outputs stored as HTML without a picture beside them."""
    outputs = [output for cell in json.loads(path.read_text())["cells"] for output in cell.get("outputs", [])]
    return sum(
        "text/html" in data and not {"image/png", "image/svg+xml"} & set(data)
        for data in (output.get("data", {}) for output in outputs)
    )


@pytest.mark.slow
@pytest.mark.parametrize("path", TUTORIALS, ids=lambda path: path.stem)
def test_html_export_shows_every_picture_inline(path, tmp_path):
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(tmp_path), str(path)]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    parser = OutputPictures()
    parser.feed((tmp_path / f"{path.stem}.html").read_text())
    kinds = {"jp-RenderedSVG": "image/svg+xml", "jp-RenderedImage": "image/png"}
    pictures = [(kinds[c], sources) for classes, sources in parser.outputs for c in classes if c in kinds]
    assert len(pictures) == picture_outputs(path)
    for mime, sources in pictures:
        assert len(sources) == 1, (mime, sources)
        (source,) = sources
        assert source.startswith(f"data:{mime};base64,"), source[:80]
        picture = base64.b64decode(source.partition(",")[2])
        if mime == "image/svg+xml":
            assert picture.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')
        else:
            assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    # no picture drawn as HTML, and no widget output left empty waiting for a widget manager: the
    # only HTML outputs are the tables the notebook stores as HTML (sl.explain's report)
    others = {c for classes, _ in parser.outputs for c in classes if c.startswith("jp-Rendered")} - set(kinds)
    assert others <= {"jp-RenderedText", "jp-RenderedHTML", "jp-RenderedHTMLCommon"}, others
    html = [sources for classes, sources in parser.outputs if "jp-RenderedHTML" in classes]
    assert all(sources == [] for sources in html)
    assert len(html) == html_tables(path)

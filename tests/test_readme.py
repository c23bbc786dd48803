"""The README: its example gives what its comments say, and every link into the documentation site
names a page the site has (a page of docs/, a tutorial, or a page the build generates)."""

import re
from pathlib import Path

from test_docs_examples import python_blocks, run_examples

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SITE = "https://stridelab.readthedocs.io/en/latest/"
#: Pages the build writes (docs/conf.py's extensions), not kept in docs/.
GENERATED = {"api/index", "benchmarks"}


def test_readme_example_results_are_true():
    assert run_examples(python_blocks(README.read_text())) >= 3


def _has_page(page: str) -> bool:
    if page in GENERATED:
        return True
    if page.startswith("tutorials/") and (ROOT / "notebooks" / f"{page.removeprefix('tutorials/')}.ipynb").is_file():
        return True
    return any((ROOT / "docs" / f"{page}{suffix}").is_file() for suffix in (".md", ".rst"))


def test_readme_links_into_the_site_name_its_pages():
    links = re.findall(re.escape(SITE) + r"([\w/.-]*)", README.read_text())
    pages = [link.removesuffix(".html") or "index" for link in links]
    assert len(pages) >= 8
    assert [page for page in pages if not _has_page(page)] == []

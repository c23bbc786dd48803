"""The speed page, generated from ``benchmarks/RESULTS.md`` when the build starts: for each
benchmark script, the latest table it printed there, with the paragraph that gives its command,
machine and date; then the whole record.

A table counts as a run of ``benchmarks/NAME.py`` where the paragraph just before it (in the same
section) quotes the command, as `` `python benchmarks/NAME.py ...` `` (an environment variable
such as ``PYTHONPATH=src`` may come first). The last such table of a script in the file is its
latest: RESULTS.md is written in order, newest at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generated import write_if_changed

DOCS = Path(__file__).resolve().parents[1]
RESULTS = DOCS.parent / "benchmarks" / "RESULTS.md"
PAGE = DOCS / "benchmarks.md"

COMMAND = re.compile(r"`(?:[A-Z_]+=\S+ )*python3? benchmarks/(\w+)\.py[^`]*`")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


@dataclass(frozen=True)
class Run:
    """One table of RESULTS.md and what says where it comes from."""

    script: str
    headings: tuple[str, ...]  # the section's headings, outermost first
    paragraph: str
    table: tuple[str, ...]
    line: int  # of the table, from 1
    date: str  # the first date in the paragraph, else in the headings, else before it in its section


def _blocks(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Runs of non-blank lines, each with the index of its first line."""
    blocks: list[tuple[int, list[str]]] = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if blocks and blocks[-1][0] + len(blocks[-1][1]) == i:
            blocks[-1][1].append(line)
        else:
            blocks.append((i, [line]))
    return blocks


def runs(text: str) -> list[Run]:
    """Every table of ``text`` that follows a paragraph quoting a benchmark command, in order."""
    headings: list[str] = []
    section_text = ""
    pending: tuple[str, str] | None = None
    found = []
    for start, block in _blocks(text.splitlines()):
        first = block[0]
        if first.startswith("#") and len(block) == 1 and re.match(r"#+ ", first):
            level = len(first) - len(first.lstrip("#"))
            headings = [*headings[: level - 1], first[level:].strip()][:level]
            section_text, pending = "", None
            continue
        if first.startswith("|") and pending:
            script, paragraph = pending
            dates = DATE.findall(paragraph) or DATE.findall(" ".join(headings)) or DATE.findall(section_text)
            found.append(
                Run(script, tuple(headings[1:]), paragraph, tuple(block), start + 1, dates[0] if dates else "")
            )
            pending = None
            continue
        paragraph = " ".join(line.strip() for line in block)
        section_text += " " + paragraph
        match = COMMAND.search(paragraph)
        if match:
            pending = (match.group(1), paragraph)
    return found


def latest(text: str) -> dict[str, Run]:
    """Each script's last table, by script name in alphabetical order."""
    last = {run.script: run for run in runs(text)}
    return dict(sorted(last.items()))


def page(text: str) -> str:
    """The Markdown of the speed page."""
    out = [
        "# Speed",
        "",
        "The latest table each benchmark script printed in `benchmarks/RESULTS.md`, with the",
        "paragraph that gives its command, machine and date. The whole record, with the targets",
        "and the reasons behind each change, follows them: {ref}`benchmarks-record`.",
        "",
    ]
    for script, run in latest(text).items():
        where = " › ".join(run.headings)
        out += [f"## `benchmarks/{script}.py`", ""]
        out += [f"**Measured** {run.date or 'on an undated run'}; from *{where}* (RESULTS.md line {run.line}).", ""]
        out += [run.paragraph, "", *run.table, ""]
    out += [
        "(benchmarks-record)=",
        "## The whole record",
        "",
        "```{include} ../benchmarks/RESULTS.md",
        ":heading-offset: 2",
        "```",
        "",
    ]
    return "\n".join(out)


def write_page(app: Any, config: Any) -> None:
    write_if_changed(PAGE, page(RESULTS.read_text(encoding="utf-8")).encode("utf-8"))


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", write_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

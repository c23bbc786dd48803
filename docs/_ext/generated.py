"""Writing the site's generated sources (API pages, the speed page, the tutorials' copies)."""

from __future__ import annotations

from pathlib import Path


def write_if_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` only where it changed, so that Sphinx does not read an unchanged
    page again; a link at ``path`` is replaced, never written through."""
    if path.is_symlink():
        path.unlink()
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)

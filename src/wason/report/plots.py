"""Every figure of every family drawn in one style, as PNG and SVG. (Skeleton: being written.)"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wason.core.family import RunReader


def write_plots(store: RunReader, run_ids: Sequence[int], directory: Path) -> list[Path]:
    """Write the figures of ``run_ids`` (the comparison's accuracy figure and the family's own) into
    ``directory`` as PNG and SVG; the paths written."""
    raise NotImplementedError


__all__ = ["write_plots"]

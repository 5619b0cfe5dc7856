"""PNG plots for reports, drawn with matplotlib's object-oriented API on the Agg canvas.

No pyplot: a bare ``Figure`` on a ``FigureCanvasAgg`` is not registered with pyplot's figure manager, so nothing
has to be closed, no "too many open figures" warning can build up, and the process-wide backend is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

__all__ = ["answer_histogram_png"]

_CORRECT = "#2ca02c"
_OTHER = "#4c72b0"
_UNPARSEABLE = "#9e9e9e"
_UNPARSEABLE_LABEL = "unparseable"


def answer_histogram_png(
    distribution: Mapping[int | None, int],
    expected: int,
    path: str | Path,
    title: str,
    *,
    dpi: int = 100,
) -> Path:
    """Write a bar chart of the answers given, with the correct answer highlighted.

    One bar per natural number answered, in increasing order, plus the expected answer even when nobody gave it
    (so its absence is visible), and a final grey bar for unparseable answers when there are any. Bars sit at
    evenly spaced positions labelled with their number rather than on a numeric axis, because answers can be far
    apart (3 and 120) and a numeric axis would squeeze the bars that matter.

    Args:
        distribution: ``{answer: count}`` as from :func:`wason.metrics.answer_distribution`; the key ``None``
            holds the unparseable count.
        expected: The correct answer, highlighted in green.
        path: Where to write the PNG; missing parent directories are created.
        title: Figure title.
        dpi: Resolution of the saved image.

    Returns:
        The path written.

    Raises:
        ValueError: If ``expected`` or an answer is negative, or a count is negative.
    """
    if expected < 0:
        raise ValueError(f"expected must be a natural number, got {expected}")
    if any(count < 0 for count in distribution.values()):
        raise ValueError("counts must be non-negative")
    if any(number is not None and number < 0 for number in distribution):
        raise ValueError("answers must be natural numbers")

    counts = {number: count for number, count in distribution.items() if number is not None}
    counts.setdefault(expected, 0)
    numbers = sorted(counts)
    labels = [str(number) for number in numbers]
    heights = [counts[number] for number in numbers]
    colors = [_CORRECT if number == expected else _OTHER for number in numbers]
    unparseable = distribution.get(None, 0)
    if unparseable:
        labels.append(_UNPARSEABLE_LABEL)
        heights.append(unparseable)
        colors.append(_UNPARSEABLE)

    fig = Figure(figsize=(max(4.0, 0.5 * len(labels) + 2.0), 3.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    positions = list(range(len(labels)))
    bars = ax.bar(positions, heights, color=colors, edgecolor="black", linewidth=0.5)
    ax.bar_label(bars, fontsize=8)
    ax.set_xticks(positions, labels, rotation=45 if len(labels) > 12 else 0)
    ax.set_xlabel("answer")
    ax.set_ylabel("trials")
    total = sum(heights)
    ax.set_title(f"{title} (n = {total})")
    # Headroom for the count labels above the tallest bar.
    ax.set_ylim(0, max(1, max(heights)) * 1.15)
    handles = [Patch(color=_CORRECT, label=f"correct ({expected})"), Patch(color=_OTHER, label="other")]
    if unparseable:
        handles.append(Patch(color=_UNPARSEABLE, label=_UNPARSEABLE_LABEL))
    ax.legend(handles=handles, fontsize=8, loc="upper right")

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", dpi=dpi)
    return out

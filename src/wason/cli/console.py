"""The consoles the commands print through: standard output's (tables, reports) and standard error's (live
progress), each as wide as the terminal, and for output to a file or a pipe as wide as ``$COLUMNS`` says or
:data:`PIPED_WIDTH`; a reader that leaves (``wason eval ... | head -1``) ends the printing, not the command."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import IO, Any

from rich.console import Console

__all__ = ["PIPED_WIDTH", "LeftAlone", "err_console", "out_console", "piped_width", "say"]

PIPED_WIDTH = 100
"""The width of output to a file or a pipe when ``$COLUMNS`` names none: tables wider than that lay out as on
a terminal of this width (long cells wrap at their spaces)."""


def piped_width() -> int:
    """The width of output that is not a terminal: ``$COLUMNS`` when it is a whole number from 20 up (rich reads
    the same variable), else :data:`PIPED_WIDTH`."""
    given = os.environ.get("COLUMNS", "").strip()
    return int(given) if given.isdigit() and 20 <= int(given) <= 10_000 else PIPED_WIDTH


class LeftAlone(Console):
    """A console whose reader may leave: a write to a closed pipe (``| head -1``) makes it quiet and points its
    file descriptor at ``/dev/null``, and the command goes on (rich's own console exits with status 1 there,
    which stopped a run between its two halves, ``--constrain both``, and left the second one unfinished)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        _to_devnull(self.file)


def _to_devnull(stream: IO[str] | Any) -> None:
    """Point ``stream``'s file descriptor at ``/dev/null`` (what is still buffered for it is dropped there); a
    stream without one (a test's buffer) is left as it is."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def out_console() -> Console:
    """The console of standard output."""
    console = LeftAlone()
    if not console.is_terminal:
        console = LeftAlone(width=piped_width())
    return console


def err_console() -> Console:
    """The console of standard error (the live progress bar)."""
    return LeftAlone(stderr=True, highlight=False)


def say(line: str) -> bool:
    """Print ``line`` on standard error; False (and standard error pointed at ``/dev/null``) when its reader
    left (``2>&1 | head``): progress is only a view of the run, which goes on."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):
        _to_devnull(sys.stderr)
        return False
    return True

"""``ast.parse`` for every guess language, one thread at a time.

CPython 3.11 keeps the recursion depth of its AST conversion in interpreter-wide state, so two threads parsing at
once can fail with ``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905, fixed in
3.12); a server judges moves in several threads. Parsing is fast (microseconds for a guess), so a lock costs
nothing that matters. Only parsing: nothing parsed here is ever compiled or run.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

_LOCK = threading.Lock()


@overload
def parse(text: str, mode: Literal["eval"] = "eval") -> ast.Expression: ...
@overload
def parse(text: str, mode: Literal["exec"]) -> ast.Module: ...
def parse(text: str, mode: Literal["eval", "exec"] = "eval") -> ast.Expression | ast.Module:
    """``ast.parse(text, mode=mode)``, serialised across threads (it raises what ``ast.parse`` raises)."""
    with _LOCK:
        tree = ast.parse(text, mode=mode)
    assert isinstance(tree, ast.Expression | ast.Module)
    return tree

"""The rendering of the web pages: the packaged Jinja2 templates, escaped for HTML everywhere."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

__all__ = ["environment", "render"]


@cache
def environment() -> jinja2.Environment:
    """The templates, escaped for HTML everywhere (autoescape is on for every file)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("wason.server", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


def render(request: Request | None, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A page from template ``name``; ``root`` is the path prefix of links (``/`` on the server)."""
    page = environment().get_template(name).render(root="/", static="/static/", request=request, **context)
    return HTMLResponse(page, status_code=status_code)

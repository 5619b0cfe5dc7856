"""The web pages of ``wason serve`` (and of the static ``wason report``): rendered on the server with Jinja2.

Every asset (templates under ``wason/server/templates``, styles and scripts under ``wason/server/static``) ships
inside the package; no page loads anything from another host. Pages reach families only through the registry
and the :class:`wason.core.Family` interface, as the API does.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles


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


def mount(app: FastAPI) -> None:
    """Serve the packaged assets under ``/static`` and every page router of the web app."""
    app.mount("/static", StaticFiles(packages=[("wason.server", "static")]), name="static")
    from wason.server.web import browse

    app.include_router(browse.router)
    from wason.server.web import play

    app.include_router(play.router)
    from wason.server.web import auth, watch

    auth.install(app)
    watch.install(app)


__all__ = ["environment", "mount", "render"]

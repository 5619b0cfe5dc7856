"""The web pages of ``wason serve`` (and of the static ``wason report``): rendered on the server with Jinja2.

Every asset (templates under ``wason/server/templates``, styles and scripts under ``wason/server/static``) ships
inside the package; no page loads anything from another host. Pages reach families only through the registry
and the :class:`wason.core.Family` interface, as the API does.
"""

from __future__ import annotations

from wason.server.web.pages import environment, render

__all__ = ["environment", "render"]

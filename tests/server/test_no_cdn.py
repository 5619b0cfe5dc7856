"""Every asset the server's pages use ships inside the package: no page or script loads anything from a host."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from wason.server.app import create_app

# a URL with a host in an attribute or a script (the pages' own links are relative or root paths)
_FOREIGN = re.compile(
    r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|import\s*\(\s*["']https?:"""
)


def test_no_page_loads_anything_from_another_host(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}"), base_url="http://127.0.0.1")
    # FastAPI's Swagger and ReDoc pages load their scripts from a CDN: they are off
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    assert client.get("/openapi.json").status_code == 200
    pages = ["/", "/runs", "/play", "/watch", "/static/wason.css", "/static/wason.js"]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        assert not _FOREIGN.search(response.text), f"{path} refers to another host"

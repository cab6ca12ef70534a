"""The Studio's Jinja2 templates: autoescaped, strict about undefined names, and every page
answered with the security headers and ``Cache-Control: no-store`` (pages carry the
session's CSRF token and tenant data, which no cache may keep).

>>> page("error.html", 404, title="Not found", message="<b>no run</b>").status_code
404
>>> b"&lt;b&gt;no run&lt;/b&gt;" in page("error.html", 404, title="x", message="<b>no run</b>").body
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.responses import HTMLResponse

from renderer.studio.security import with_security_headers

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("renderer.studio", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def url_path(text: str) -> str:
    """``text`` quoted for a URL path, keeping ``/`` (run ids of child runs hold one).

    >>> url_path("doc 42/1")
    'doc%2042/1'
    """
    return quote(text, safe="/")


ENVIRONMENT.filters["urlpath"] = url_path


def page(template: str, status: int = 200, headers: Mapping[str, str] | None = None,
         **context: Any) -> HTMLResponse:
    """The page ``template`` rendered with ``context`` (``session``: none unless given)."""
    body = ENVIRONMENT.get_template(template).render(**{"session": None, **context})
    response = HTMLResponse(body, status_code=status,
                            headers={"Cache-Control": "no-store", **(headers or {})})
    return with_security_headers(response)

"""uvicorn's httptools protocol with a deadline for request headers.

uvicorn closes a keep-alive connection that stays idle ``timeout_keep_alive`` seconds after
a response, but starts no timer on a new connection, nor while a request's headers trickle
in, so idle or slow clients could hold connections open for ever (2,000 were). This
protocol closes a connection whose request headers are not complete
:data:`HEADER_SECONDS` after it opened or after the request began. The body has its own
deadline (:func:`renderer.web.read_body`).

>>> issubclass(HeaderTimeoutProtocol, HttpToolsProtocol)
True
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5
"""uvicorn's ``timeout_keep_alive``: idle seconds after a response before closing."""


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """Close the connection when request headers take longer than ``header_seconds``."""

    header_seconds: float = HEADER_SECONDS
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._cancel_header_timer()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_seconds, self._headers_late)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

"""uvicorn's httptools protocol with a deadline for request headers, and the service's
security headers on the responses uvicorn makes itself.

uvicorn closes a keep-alive connection that stays idle ``timeout_keep_alive`` seconds after
a response, but starts no timer on a new connection, nor while a request's headers trickle
in, so idle or slow clients could hold connections open for ever (2,000 were). This
protocol closes a connection whose request headers are not complete
:data:`HEADER_SECONDS` after it opened or after the request began. The body has its own
deadline (:func:`renderer.web.read_body`).

uvicorn answers some requests without calling the app: 503 past ``limit_concurrency``
and 400 for a request it cannot parse. :class:`ServiceProtocol` gives those the headers
:class:`~renderer.security_headers.SecurityHeaders` gives the app's responses (uvicorn's
``headers=`` setting cannot: it would add a second copy to every app response, and the
Studio's policy differs from the service's).

>>> issubclass(ServiceProtocol, HeaderTimeoutProtocol)
True
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import cast

from uvicorn._types import ASGI3Application
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from renderer.security_headers import SERVICE_HEADERS, SecurityHeaders

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


@dataclass(frozen=True, slots=True)
class _DefaultHeaders:
    """What uvicorn's ``send_400_response`` reads of its server state."""

    default_headers: list[tuple[bytes, bytes]]


class ServiceProtocol(HeaderTimeoutProtocol):
    """:class:`HeaderTimeoutProtocol` whose own 503 (past ``limit_concurrency``) and 400
    (a request that cannot be parsed) carry the security headers too."""

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        if app is service_unavailable:  # uvicorn's 503 app: the path's headers, once each
            wrapped = SecurityHeaders(service_unavailable)  # type: ignore[arg-type]
            app = cast(ASGI3Application, wrapped)
        super()._start_asgi_task(cycle, app)

    def send_400_response(self, msg: str) -> None:
        state = self.server_state
        encoded = [(name.lower().encode("latin-1"), value.encode("latin-1"))
                   for name, value in SERVICE_HEADERS.items()]
        with_ours = _DefaultHeaders([*state.default_headers, *encoded])
        self.server_state = with_ours  # type: ignore[assignment]  # only for this call
        try:
            super().send_400_response(msg)
        finally:
            self.server_state = state

"""The worker side of :mod:`renderer.isolation`: the job loop and the error transport.

A worker reads ``(graph, engine, options)`` jobs from its connection and answers each with
``("result", LayoutResult)`` or ``("error", description)``. :func:`describe_error` and
:func:`rebuild_error` are a pair: a :class:`layouts.errors.LayoutError` crosses the process
boundary as its class path, message and simple attributes, and comes back as the same class
with the same message and attributes (pickling them directly fails for errors whose
``__init__`` takes other arguments than the message).

>>> from layouts.errors import InvalidGraphError
>>> sent = InvalidGraphError("duplicate node id 'a'", offending_id="a")
>>> back = rebuild_error(describe_error(sent, "layered"))
>>> type(back).__name__, str(back), back.offending_id
('InvalidGraphError', "duplicate node id 'a'", 'a')
>>> str(rebuild_error(describe_error(KeyError("x"), "layered")))
"layout engine 'layered' failed: KeyError: 'x'"
"""

from __future__ import annotations

import importlib
import pickle
import signal
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from layouts.api import layout
from layouts.errors import LayoutError, ProviderFailedError
from layouts.registry import ProviderFactory, register


def serve(connection: Connection) -> None:
    """The worker's loop: register extra providers, report ready, then answer jobs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides when workers stop
    extra_providers: Mapping[str, ProviderFactory] = connection.recv()
    for name, factory in extra_providers.items():
        register(name, factory)
    connection.send(("ready", None))
    while True:
        try:
            graph, engine, options = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("result", layout(graph, engine=engine, options=options))
        except Exception as error:  # every failure goes back to the caller, typed
            reply = ("error", describe_error(error, engine))
        try:
            connection.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            connection.send(("error", describe_error(error, engine)))


def describe_error(error: Exception, engine: str) -> dict[str, Any]:
    """A picklable description of ``error`` that :func:`rebuild_error` turns back into it."""
    if not isinstance(error, LayoutError):
        return {"module": "layouts.errors", "qualname": "ProviderFailedError",
                "message": f"layout engine '{engine}' failed: {type(error).__name__}: {error}",
                "attributes": {}}
    simple = (str, int, float, bool, type(None))
    attributes = {k: v for k, v in vars(error).items() if isinstance(v, simple)}
    return {"module": type(error).__module__, "qualname": type(error).__qualname__,
            "message": str(error), "attributes": attributes}


def rebuild_error(payload: Mapping[str, Any]) -> Exception:
    """The worker's error as the same :class:`LayoutError` class, message and attributes."""
    try:
        found: object = importlib.import_module(payload["module"])
        for part in payload["qualname"].split("."):
            found = getattr(found, part)
        cls = found
    except (ImportError, AttributeError):
        cls = None
    if not (isinstance(cls, type) and issubclass(cls, LayoutError)):
        return ProviderFailedError(f"{payload['qualname']}: {payload['message']}")
    error: Exception = cls.__new__(cls)
    Exception.__init__(error, payload["message"])
    error.__dict__.update(payload["attributes"])
    return error

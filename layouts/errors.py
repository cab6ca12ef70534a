"""Typed errors of the layout interface.

Every error carries a message that names the problem, so the CLI can print it as one
line and the service can return it as a 4xx body.

>>> str(InvalidGraphError("duplicate node id 'a'", offending_id="a"))
"duplicate node id 'a'"
"""

from __future__ import annotations


class LayoutError(Exception):
    """Base class of every error raised by ``layouts``."""


class InvalidGraphError(LayoutError, ValueError):
    """The input graph is malformed; ``offending_id`` names the node or edge at fault."""

    def __init__(self, message: str, *, offending_id: str | None = None) -> None:
        super().__init__(message)
        self.offending_id = offending_id


class UnsupportedFeatureError(InvalidGraphError):
    """The graph uses a feature (ports, compound nodes) the chosen engine cannot lay out;
    the message names the feature and the engines that can.

    >>> str(UnsupportedFeatureError("ports", "layered", ("elkjs", "graphviz")))
    "layout engine 'layered' does not support ports yet; use --engine elkjs or graphviz"
    """

    def __init__(self, feature: str, engine: str, supported_by: tuple[str, ...]) -> None:
        hint = (f"use --engine {' or '.join(supported_by)}" if supported_by
                else "no installed engine supports it")
        super().__init__(f"layout engine '{engine}' does not support {feature} yet; {hint}")
        self.feature = feature
        self.engine = engine
        self.supported_by = supported_by


class InvalidOptionError(LayoutError, ValueError):
    """A layout option has an unknown name or a value outside its declared range."""

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class UnknownEngineError(LayoutError, ValueError):
    """No provider is registered under the requested engine name."""


class ProviderUnavailableError(LayoutError):
    """A provider's dependency is missing; the message names it and how to install it."""

    def __init__(self, engine: str, missing: str, install_hint: str) -> None:
        super().__init__(f"layout engine '{engine}' is unavailable: {missing} ({install_hint})")
        self.engine = engine
        self.missing = missing
        self.install_hint = install_hint


class LayoutTimeoutError(LayoutError):
    """A layout ran past its hard time limit and was stopped."""

    def __init__(self, engine: str, seconds: float) -> None:
        super().__init__(f"layout engine '{engine}' exceeded its time limit of {seconds:g} s")
        self.engine = engine
        self.seconds = seconds


class ProviderFailedError(LayoutError):
    """A provider's backend crashed or returned output that cannot be read."""

"""Shared test helper: misbehaving providers the worker processes can import by name."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from layouts import registry


@contextmanager
def registered_provider_module(folder: Path, module_name: str, source: str,
                               engines: Mapping[str, str]) -> Iterator[None]:
    """Write ``source`` as ``module_name`` into ``folder`` (put on ``sys.path``, which
    worker processes inherit), register each engine name -> class name of ``engines``,
    and undo all of it afterwards."""
    (folder / f"{module_name}.py").write_text(textwrap.dedent(source))
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
        for name, class_name in engines.items():
            registry.register(name, getattr(module, class_name))
        yield
    finally:
        for name in engines:
            registry.unregister(name)
        sys.path.remove(str(folder))
        sys.modules.pop(module_name, None)


@pytest.fixture(scope="session")
def provider_module() -> object:
    """:func:`registered_provider_module`, for test modules (conftest helpers are not
    importable by name under pytest's importlib import mode)."""
    return registered_provider_module

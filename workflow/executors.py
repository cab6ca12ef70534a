"""Executors of Agent, Tool and Compensation attempts, registered by name.

An executor is a Python callable taking the dispatch payload and returning the output (JSON
data), or an :class:`HttpExecutor` posting the payload as JSON to a configured URL. A missing
executor fails the attempt with an error naming it; it never pretends to succeed.

The payload (:func:`dispatch_payload_schema`, ``wfr schema dispatch``) names the run, the
step and the attempt, and carries the run's input and ``outputs``: the outputs of the
steps the definition says the step reads (its direct predecessors and the steps its
``reads`` field names), never the whole run. A compensation gets the output of the step
it undoes instead.

>>> registry = ExecutorRegistry({"double": lambda p: {"n": p["input"]["n"] * 2}})
>>> execute(registry, DispatchStep("s", "s@0.1", "double", {"input": {"n": 4}}), at=0.0).output
{'n': 8}
>>> execute(registry, DispatchStep("s", "s@0.1", "nope", {}), at=0.0).error
"no executor named 'nope' is registered"
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from workflow.model import DispatchStep, Json, StepOutcome

Executor = Callable[[Json], Json]


class ExecutorError(RuntimeError):
    """An executor failed; the message becomes the attempt's error."""


class DeliveryError(RuntimeError):
    """An executor could not take the call at all: the dispatch is not an attempt that
    failed but a delivery to retry; the pump releases its queue row and, past
    ``MaxDeliveryAttempts``, dead-letters it (an operator replays it once fixed)."""


@dataclass(frozen=True, slots=True)
class HttpExecutor:
    """Posts the payload as JSON to ``url``; a 2xx JSON reply is the output."""

    url: str
    timeout_seconds: float = 30.0
    transport: httpx.BaseTransport | None = None

    def __call__(self, payload: Json) -> Json:
        try:
            with httpx.Client(timeout=self.timeout_seconds, transport=self.transport) as client:
                response = client.post(self.url, json=payload)
        except httpx.HTTPError as exc:
            raise ExecutorError(f"POST {self.url} failed: {exc}") from None
        if not response.is_success:
            raise ExecutorError(f"POST {self.url} answered {response.status_code}: "
                                f"{response.text[:200]}")
        try:
            return response.json()
        except ValueError:
            raise ExecutorError(f"POST {self.url} did not answer JSON") from None


@dataclass(frozen=True, slots=True)
class ExecutorRegistry:
    """Executors by name."""

    executors: Mapping[str, Executor] = field(default_factory=dict)

    def with_executor(self, name: str, executor: Executor) -> ExecutorRegistry:
        """A new registry with one more (or a replaced) executor."""
        return ExecutorRegistry({**self.executors, name: executor})

    def get(self, name: str) -> Executor | None:
        """The executor of that name, if registered."""
        return self.executors.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.executors))


def http_executors(urls: Mapping[str, str]) -> ExecutorRegistry:
    """A registry of HTTP executors from a ``{name: url}`` configuration."""
    return ExecutorRegistry({name: HttpExecutor(url) for name, url in urls.items()})


EXECUTORS_VARIABLE = "WFR_EXECUTORS_FILE"
"""Names a JSON file ``{"executor name": "https://..."}`` of HTTP executors."""


def executors_from_file(path: str) -> ExecutorRegistry:
    """HTTP executors from a JSON file of name -> URL; :class:`ValueError` names a bad file."""
    try:
        with open(path, encoding="utf-8") as file:
            urls = json.load(file)
    except (OSError, ValueError) as error:
        raise ValueError(f"executors file {path}: {error}") from None
    if not isinstance(urls, dict) or not all(isinstance(v, str) for v in urls.values()):
        raise ValueError(f"executors file {path}: expected an object of name -> URL")
    return http_executors(urls)


def dispatch_payload_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of what an executor receives (an :class:`HttpExecutor`
    posts it as the request body): an attempt of a step, or a compensation.

    >>> sorted(dispatch_payload_schema()["oneOf"][0]["required"])
    ['attempt', 'input', 'outputs', 'run', 'step']
    """
    common = {
        "run": {"type": "string", "description": "The run's id."},
        "step": {"type": "string", "description": "The step's id."},
        "input": {"description": "The run's input, as given at its start (JSON)."},
    }
    attempt = {
        "type": "object", "additionalProperties": False,
        "required": ["run", "step", "attempt", "input", "outputs"],
        "properties": {
            **common,
            "attempt": {"type": "integer", "minimum": 1,
                        "description": "1 for the first attempt, 2 for the first retry..."},
            "outputs": {"type": "object", "additionalProperties": True, "description": (
                "Outputs by step id of the steps this step reads that succeeded: the "
                "sources of its incoming forward edges, then the steps its 'reads' field "
                "names. A step skipped or not yet run is absent; no other step's output "
                "is included.")},
        },
    }
    compensation = {
        "type": "object", "additionalProperties": False,
        "required": ["run", "step", "compensate", "input", "output"],
        "properties": {
            **common,
            "step": {"type": "string", "description": "The step being compensated."},
            "compensate": {"const": True},
            "output": {"description": "The output the compensated step recorded."},
        },
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "DispatchPayload", "oneOf": [attempt, compensation]}


def execute(registry: ExecutorRegistry, effect: DispatchStep, *, at: float) -> StepOutcome:
    """Run one dispatch and turn its result or error into a :class:`StepOutcome`."""
    executor = registry.get(effect.executor)
    if executor is None:
        return _failed(effect, f"no executor named '{effect.executor}' is registered", at)
    try:
        output: Any = executor(effect.payload)
    except DeliveryError:
        raise
    except Exception as exc:  # an executor's failure is the attempt's failure, never a crash
        return _failed(effect, f"executor '{effect.executor}' failed: {exc}", at)
    return StepOutcome(effect.step_id, effect.attempt_id, True, at=at, output=output)


def _failed(effect: DispatchStep, error: str, at: float) -> StepOutcome:
    return StepOutcome(effect.step_id, effect.attempt_id, False, at=at, error=error)

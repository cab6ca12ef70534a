"""The engine's defaults, declared once as data.

Every default the engine applies (to steps the DSL leaves incomplete, to runs, to the
durable queue) is a row of :data:`DEFAULTS_TABLE`; :data:`DEFAULTS` is the typed view.

>>> DEFAULTS.max_fanout, DEFAULTS.default_max_loop_iterations
(16, 10)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from workflow.kinds import FailurePolicy

GUARD_LITERALS: Final = ("true", "false", "else", "compensate")


@dataclass(frozen=True, slots=True)
class DefaultEntry:
    """One configurable default: its DSL/config name, value and meaning."""

    name: str
    value: object
    description: str


DEFAULTS_TABLE: Final = (
    DefaultEntry("actionClass", "read", "action class of a step that names none"),
    DefaultEntry("failurePolicy", FailurePolicy.FAIL,
                 "failure policy of a step that names none (warned)"),
    DefaultEntry("maxAttempts", 1, "attempts of a step that names none"),
    DefaultEntry("DefaultStepTimeoutMinutes", 60.0,
                 "timeout of an Agent/Tool/Human/Compensation attempt"),
    DefaultEntry("DefaultMaxLoopIterations", 10, "loop-back bound of a workflow naming none"),
    DefaultEntry("MaxFanout", 16, "most branches one Fanout may start"),
    DefaultEntry("MaxDeliveryAttempts", 5, "deliveries of a queued signal before dead letter"),
    DefaultEntry("RetryBaseSeconds", 1.0, "first retry backoff; doubles per attempt"),
    DefaultEntry("RetryMaxSeconds", 3600.0, "longest retry backoff before jitter"),
    DefaultEntry("RetryJitterFraction", 0.25, "backoff jitter, a fraction of the backoff"),
    DefaultEntry("DeliveryBackoffSeconds", 0.5,
                 "wait before a failed queue delivery is tried again; doubles per failure"),
    DefaultEntry("DeliveryBackoffMaxSeconds", 30.0, "longest delivery backoff before jitter"),
    DefaultEntry("LeaseSeconds", 30.0, "how long a pump's claim on a queue row lasts"),
    DefaultEntry("MaxSubWorkflowDepth", 10,
                 "most nested runs below a top-level run (SubWorkflow steps in SubWorkflows)"),
)


@dataclass(frozen=True, slots=True)
class Defaults:
    """Typed view of :data:`DEFAULTS_TABLE`."""

    action_class: str
    failure_policy: FailurePolicy
    max_attempts: int
    default_step_timeout_minutes: float
    default_max_loop_iterations: int
    max_fanout: int
    max_delivery_attempts: int
    retry_base_seconds: float
    retry_max_seconds: float
    retry_jitter_fraction: float
    delivery_backoff_seconds: float
    delivery_backoff_max_seconds: float
    lease_seconds: float
    max_subworkflow_depth: int


def _defaults_from_table() -> Defaults:
    values = {entry.name: entry.value for entry in DEFAULTS_TABLE}
    return Defaults(
        action_class=str(values["actionClass"]),
        failure_policy=FailurePolicy(str(values["failurePolicy"])),
        max_attempts=int(str(values["maxAttempts"])),
        default_step_timeout_minutes=float(str(values["DefaultStepTimeoutMinutes"])),
        default_max_loop_iterations=int(str(values["DefaultMaxLoopIterations"])),
        max_fanout=int(str(values["MaxFanout"])),
        max_delivery_attempts=int(str(values["MaxDeliveryAttempts"])),
        retry_base_seconds=float(str(values["RetryBaseSeconds"])),
        retry_max_seconds=float(str(values["RetryMaxSeconds"])),
        retry_jitter_fraction=float(str(values["RetryJitterFraction"])),
        delivery_backoff_seconds=float(str(values["DeliveryBackoffSeconds"])),
        delivery_backoff_max_seconds=float(str(values["DeliveryBackoffMaxSeconds"])),
        lease_seconds=float(str(values["LeaseSeconds"])),
        max_subworkflow_depth=int(str(values["MaxSubWorkflowDepth"])),
    )


DEFAULTS: Final = _defaults_from_table()

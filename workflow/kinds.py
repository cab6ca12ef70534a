"""The engine's step kinds and failure policies, and one table of per-kind rules.

What the engine needs to know about a step kind is a row of :data:`KIND_RULES`, declared
once as data (like :data:`workflow.config.DEFAULTS_TABLE`): the plan reads it to apply
defaults and find a step's executor, the flow rules to start timeout timers, validation to
check required fields and warn about missing failure policies. How a kind *runs* stays in
:mod:`workflow.flow`; how it is *drawn* stays in :mod:`renderer`.

Kinds and policies are :class:`~enum.StrEnum` members, so they compare equal to, and
serialize as, the DSL's text.

>>> rule_of(StepKind.TOOL).executor_field, rule_of(StepKind.TIMER).required_fields
('tool', ('delayMinutes',))
>>> parse_kind("Tool") is StepKind.TOOL, parse_kind("tool")
(True, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class StepKind(StrEnum):
    """The kind of a workflow step, as the DSL's ``kind`` field names it."""

    AGENT = "Agent"
    TOOL = "Tool"
    HUMAN = "Human"
    CONDITION = "Condition"
    TIMER = "Timer"
    SUB_WORKFLOW = "SubWorkflow"
    FANOUT = "Fanout"
    JOIN = "Join"
    COMPENSATION = "Compensation"


class FailurePolicy(StrEnum):
    """What a failed attempt leads to (the DSL's ``failurePolicy`` field)."""

    FAIL = "Fail"
    RETRY = "Retry"
    ESCALATE = "Escalate"
    COMPENSATE = "Compensate"


@dataclass(frozen=True, slots=True)
class KindRule:
    """What the engine needs to know about one step kind.

    ``executor_field`` is the DSL field naming the executor an attempt is dispatched to
    (``None``: the kind calls no executor); ``required_fields`` are the DSL fields a step
    of the kind must set; ``default_timeout`` says whether ``DefaultStepTimeoutMinutes``
    applies when ``timeoutMinutes`` is absent; ``executes`` whether an attempt runs
    something outside the engine (so a failure policy matters); ``timeout_timer`` whether
    an attempt starts a timeout timer; ``reads_outputs`` whether a step of the kind may
    name upstream steps in ``reads`` (the outputs its executor receives besides those of
    its direct predecessors).
    """

    kind: StepKind
    executor_field: str | None
    required_fields: tuple[str, ...]
    default_timeout: bool
    executes: bool
    timeout_timer: bool
    reads_outputs: bool = False


KIND_RULES: Final = (
    KindRule(StepKind.AGENT, "agent", ("agent",),
             default_timeout=True, executes=True, timeout_timer=True, reads_outputs=True),
    KindRule(StepKind.TOOL, "tool", ("tool",),
             default_timeout=True, executes=True, timeout_timer=True, reads_outputs=True),
    KindRule(StepKind.HUMAN, None, (),
             default_timeout=True, executes=True, timeout_timer=True),
    KindRule(StepKind.CONDITION, None, ("expression",),
             default_timeout=False, executes=False, timeout_timer=False),
    KindRule(StepKind.TIMER, None, ("delayMinutes",),
             default_timeout=False, executes=False, timeout_timer=False),
    KindRule(StepKind.SUB_WORKFLOW, None, ("workflow",),
             default_timeout=False, executes=True, timeout_timer=False),
    KindRule(StepKind.FANOUT, None, (),
             default_timeout=False, executes=False, timeout_timer=False),
    KindRule(StepKind.JOIN, None, (),
             default_timeout=False, executes=False, timeout_timer=False),
    KindRule(StepKind.COMPENSATION, "tool", ("tool",),
             default_timeout=True, executes=True, timeout_timer=True),
)
"""One row per :class:`StepKind`; the order is the order kinds are listed to users."""

KIND_NAMES: Final = tuple(rule.kind.value for rule in KIND_RULES)
"""The DSL names of the kinds, in table order."""

_RULES: Final[Mapping[StepKind, KindRule]] = MappingProxyType(
    {rule.kind: rule for rule in KIND_RULES})


def rule_of(kind: StepKind) -> KindRule:
    """The row of :data:`KIND_RULES` for ``kind``.

    >>> rule_of(StepKind.TOOL).default_timeout, rule_of(StepKind.JOIN).executes
    (True, False)
    """
    return _RULES[kind]


def parse_kind(text: str) -> StepKind | None:
    """The kind the DSL text names (exact spelling), or ``None`` for an unknown kind.

    >>> parse_kind("SubWorkflow"), parse_kind("Robot")
    (<StepKind.SUB_WORKFLOW: 'SubWorkflow'>, None)
    """
    try:
        return StepKind(text)
    except ValueError:
        return None


def parse_policy(text: str) -> FailurePolicy | None:
    """The failure policy the DSL text names (exact spelling), or ``None``.

    >>> parse_policy("Retry"), parse_policy("retry")
    (<FailurePolicy.RETRY: 'Retry'>, None)
    """
    try:
        return FailurePolicy(text)
    except ValueError:
        return None

"""Operator verbs as transitions: retry a Failed run, repair (rewind) a run, resume it.

INTERFACE ONLY (being implemented): :func:`refusal` says why a verb cannot apply to a run in
its current state (the HTTP API answers 409 with it); :func:`apply` carries a verb out on
the scratch copy inside :func:`workflow.transition.advance`.
"""

from __future__ import annotations

from workflow.model import Cancel, Repair, Resume, Retry, Run
from workflow.plan import Plan
from workflow.scratch import Scratch

OperatorEvent = Retry | Repair | Resume | Cancel


def refusal(plan: Plan, run: Run, event: OperatorEvent) -> str | None:
    """Why ``event`` cannot apply to ``run`` as it is (``None``: it applies)."""
    raise NotImplementedError


def apply(w: Scratch, event: Retry | Repair | Resume) -> None:
    """Carry out an operator verb on the scratch copy of a run."""
    raise NotImplementedError

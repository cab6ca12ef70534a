"""Row mapping, listing filters and pagination cursors of the SQL stores.

A cursor is opaque to clients: the (time, id) of the last item of a page, as base64url
JSON. A listing asks for one row more than a page; if it comes back, there is a next page.

>>> cursor = encode_cursor((12.5, "r1"))
>>> decode_cursor(cursor)
(12.5, 'r1')
>>> decode_cursor("not a cursor")
Traceback (most recent call last):
...
ValueError: 'not a cursor' is not a cursor this service gave out
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence

from workflow.store import AuditEntry, HumanTask, RunFilter, TaskStatus

TASK_COLUMNS = ("task_id, tenant, run_id, step_id, attempt_id, reason, assignee, status, "
                "created_at, closed_at, decision, closed_by")
AUDIT_COLUMNS = ("actor, tenant, action, target, revision_before, revision_after, at, detail, "
                 "seq")

Row = tuple[object, ...]


def encode_cursor(position: tuple[float, str]) -> str:
    """The cursor of the item at ``position`` (time, id)."""
    text = json.dumps(list(position), separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The (time, id) of a cursor; :class:`ValueError` for anything else."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        at, item = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if isinstance(at, bool) or not isinstance(at, int | float) or not isinstance(item, str):
            raise TypeError
        return float(at), item
    except (ValueError, TypeError, binascii.Error, UnicodeError):
        raise ValueError(f"{cursor!r} is not a cursor this service gave out") from None


def cursor_after(rows: Sequence[Row], limit: int, position: Callable[[Row], Row]
                 ) -> str | None:
    """The next page's cursor when the query found more than ``limit`` rows."""
    if len(rows) <= limit:
        return None
    at, item = position(rows[limit - 1])
    return encode_cursor((float(str(at)), str(item)))


def run_filter_sql(tenant: str, where: RunFilter, mark: str = "?"
                   ) -> tuple[list[str], list[object]]:
    """SQL conditions and parameters of a run listing (always limited to ``tenant``);
    ``mark`` is the driver's placeholder (SQLite's ``?``, psycopg's ``%s``).

    >>> run_filter_sql("t", RunFilter(workflow="w"))
    (['tenant = ?', 'workflow = ?'], ['t', 'w'])
    >>> run_filter_sql("t", RunFilter(workflow="w"), "%s")[0]
    ['tenant = %s', 'workflow = %s']
    """
    return _equal_to(tenant, mark, (
        ("workflow", where.workflow), ("version", where.version),
        ("business_reference", where.business_reference),
        ("state", where.state and where.state.value), ("parent_run_id", where.parent_run_id)))


def task_filter_sql(tenant: str, *, status: TaskStatus | None, assignee: str | None,
                    run_id: str | None, mark: str = "?") -> tuple[list[str], list[object]]:
    """SQL conditions and parameters of a task listing (always limited to ``tenant``).

    >>> task_filter_sql("t", status=TaskStatus.OPEN, assignee=None, run_id="r")
    (['tenant = ?', 'status = ?', 'run_id = ?'], ['t', 'open', 'r'])
    """
    return _equal_to(tenant, mark, (("status", status and status.value),
                                    ("assignee", assignee), ("run_id", run_id)))


def _equal_to(tenant: str, mark: str, columns: Sequence[tuple[str, object]]
              ) -> tuple[list[str], list[object]]:
    conditions = [f"tenant = {mark}"]
    parameters: list[object] = [tenant]
    for column, value in columns:
        if value is not None:
            conditions.append(f"{column} = {mark}")
            parameters.append(value)
    return conditions, parameters


def task_from_row(row: Row) -> HumanTask:
    """A :class:`HumanTask` from a row of :data:`TASK_COLUMNS`."""
    (task_id, tenant, run_id, step_id, attempt_id, reason, assignee, status, created_at,
     closed_at, decision, closed_by) = row
    return HumanTask(str(task_id), str(tenant), str(run_id), str(step_id), str(attempt_id),
                     str(reason), _text(assignee), TaskStatus(str(status)),
                     float(str(created_at)), None if closed_at is None else float(str(closed_at)),
                     _text(decision), _text(closed_by))


def audit_from_row(row: Row) -> AuditEntry:
    """An :class:`AuditEntry` from a row of :data:`AUDIT_COLUMNS`."""
    actor, tenant, action, target, before, after, at, detail, seq = row
    return AuditEntry(str(actor), str(tenant), str(action), str(target), _number(before),
                      _number(after), float(str(at)), _text(detail), int(str(seq)))


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _number(value: object) -> int | None:
    return None if value is None else int(str(value))

"""How a definition or a run is drawn: as defined, or with each SubWorkflow step opened
in place (its child workflow's steps inside its box) and each Fanout..Join block boxed.

A run's drawing opens a SubWorkflow step with the child run of the step's current attempt
(:class:`RunTree`): the child's steps show their own states, and the child drawn is the
definition version that child run ran, not the newest matching one. A SubWorkflow step
that has not started a child yet holds its child workflow as the step's version pattern
resolves it today, every step of it Pending. The step's own node keeps the parent run's
state for the step, and carries the child run's id and state (``childRun`` in JSON).

The query of a graph endpoint names the view with ``expandSubworkflows`` and
``groupFanouts`` (``true``/``false``), as ``wfr render`` does with
``--expand-subworkflows`` and ``--group-fanouts``.

>>> drawing_view({"expandSubworkflows": "true", "direction": "LR"})
DrawingView(expand_subworkflows=True, group_fanouts=False)
>>> layout_query({"expandSubworkflows": "true", "direction": "LR"})
{'direction': 'LR'}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from renderer.diagram import Diagram, EdgeState
from renderer.fanout_groups import group_fanouts
from renderer.from_definition import diagram_from_definition
from renderer.run_overlay import EdgeStatus, RunOverlay, StepStatus, run_overlay
from renderer.subworkflows import MAX_DEPTH, expand_with
from renderer.web import RequestProblem
from workflow.dsl import Definition, Step
from workflow.kinds import StepKind
from workflow.model import Run, RunState, StepState
from workflow.store import QueryStore, QueuedSignal, RunFilter

VIEW_QUERY_NAMES = {"expandSubworkflows": "expand_subworkflows",
                    "groupFanouts": "group_fanouts"}
"""The query names of a :class:`DrawingView`'s fields (not layout options)."""

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off", ""})

MAX_CHILD_RUNS = 1000
"""Child runs read per run (newest first: the current attempts' children are among them)."""


@dataclass(frozen=True, slots=True)
class DrawingView:
    """Which transforms a drawing gets before it is laid out (both off: as defined)."""

    expand_subworkflows: bool = False
    group_fanouts: bool = False

    @property
    def is_plain(self) -> bool:
        """Whether the drawing is the definition's own."""
        return not (self.expand_subworkflows or self.group_fanouts)


def drawing_view(query: Mapping[str, str]) -> DrawingView:
    """The view a query asks for; a value that is not a yes/no word is a 400 naming it.

    >>> drawing_view({"groupFanouts": "maybe"})
    Traceback (most recent call last):
    ...
    renderer.web.RequestProblem: groupFanouts must be true or false, not 'maybe'
    """
    values: dict[str, bool] = {}
    for name, attribute in VIEW_QUERY_NAMES.items():
        text = query.get(name)
        if text is None:
            continue
        if text.lower() not in TRUE_WORDS | FALSE_WORDS:
            raise RequestProblem(400, f"{name} must be true or false, not {text!r}")
        values[attribute] = text.lower() in TRUE_WORDS
    return DrawingView(**values)


def layout_query(query: Mapping[str, str]) -> dict[str, str]:
    """``query`` without the view's names: what the layout options are read from."""
    return {name: value for name, value in query.items() if name not in VIEW_QUERY_NAMES}


@dataclass(frozen=True, slots=True)
class RunTree:
    """A run, the definition it runs, and the child run of each SubWorkflow step's current
    attempt (by step id), each with its own children."""

    run: Run
    definition: Definition
    children: Mapping[str, RunTree] = field(default_factory=dict)


ChildRuns = Callable[[Run], tuple[Run, ...]]
"""A run's child runs, newest first (``store.find_runs`` by parent)."""
DefinitionOf = Callable[[Run], Definition]
"""The definition a run runs (exactly its version)."""
Resolve = Callable[[str, str | None, str], Definition]
"""The definition a SubWorkflow step would start today: workflow, version pattern, tenant."""


def load_run_tree(run: Run, definition: Definition, child_runs: ChildRuns,
                  definition_of: DefinitionOf, depth: int = 0) -> RunTree:
    """``run``'s tree, reading child runs down to :data:`MAX_DEPTH` levels."""
    if depth >= MAX_DEPTH:
        return RunTree(run, definition)
    current = current_children(run, definition, child_runs(run))
    return RunTree(run, definition, {
        step_id: load_run_tree(child, definition_of(child), child_runs, definition_of,
                               depth + 1)
        for step_id, child in current.items()})


def current_children(run: Run, definition: Definition, children: tuple[Run, ...]
                     ) -> dict[str, Run]:
    """The child run of each SubWorkflow step of ``run``: the one its current attempt
    started, else the newest the step started (``children`` come newest first).

    >>> from workflow.dsl import Step
    >>> from workflow.model import StepRun, new_run
    >>> d = Definition("p", "1", (Step("s", "SubWorkflow", workflow="c"),), ())
    >>> parent = replace(new_run("p1", "p", "1", "h", {}, at=0.0),
    ...                  steps={"s": StepRun("s", attempt_id="s@0.2")})
    >>> older = new_run("c2", "c", "1", "h", {}, at=2.0, parent=("p1", "s", "s@0.2"))
    >>> newer = new_run("c3", "c", "1", "h", {}, at=3.0, parent=("p1", "s", "s@0.3"))
    >>> current_children(parent, d, (newer, older))["s"].run_id
    'c2'
    """
    subworkflow_steps = {s.id for s in definition.steps
                         if s.kind == StepKind.SUB_WORKFLOW.value}
    found: dict[str, Run] = {}
    for child in children:
        step_id = child.parent_step_id
        if step_id is None or step_id not in subworkflow_steps:
            continue
        step = run.steps.get(step_id)
        if step_id not in found or (step is not None
                                    and child.parent_attempt_id == step.attempt_id):
            found[step_id] = child
    return found


def store_child_runs(store: QueryStore) -> ChildRuns:
    """:data:`ChildRuns` read from ``store``."""

    def children(run: Run) -> tuple[Run, ...]:
        return store.find_runs(run.tenant, RunFilter(parent_run_id=run.run_id),
                               limit=MAX_CHILD_RUNS).items

    return children


def definition_diagram(definition: Definition, view: DrawingView, resolve: Resolve,
                       tenant: str) -> Diagram:
    """The diagram of ``definition`` in ``view`` (children resolved for ``tenant``)."""
    if view.expand_subworkflows:
        diagram = expand_with(definition, lambda _, step: _resolved(step, resolve, tenant))
    else:
        diagram = diagram_from_definition(definition)
    return group_fanouts(diagram) if view.group_fanouts else diagram


def opened_definitions(definition: Definition, resolve: Resolve, tenant: str
                       ) -> dict[str, Definition]:
    """Every child definition a drawing of ``definition`` opens, by the id prefix its
    steps get there (as :func:`definition_diagram` resolves them).

    >>> child = Definition("c", "1", (Step("x", "Tool"),), ())
    >>> parent = Definition("p", "1", (Step("s", "SubWorkflow", workflow="c"),), ())
    >>> {k: v.workflow for k, v in opened_definitions(parent, lambda *_: child, "t").items()}
    {'s/': 'c'}
    """
    found: dict[str, Definition] = {}

    def walk(current: Definition, prefix: str, depth: int) -> None:
        if depth >= MAX_DEPTH:
            return
        for step in current.steps:
            if step.kind == StepKind.SUB_WORKFLOW.value and step.workflow is not None:
                child = _resolved(step, resolve, tenant)
                found[f"{prefix}{step.id}/"] = child
                walk(child, f"{prefix}{step.id}/", depth + 1)

    walk(definition, "", 0)
    return found


def run_diagram(tree: RunTree, queued: tuple[QueuedSignal, ...], view: DrawingView,
                resolve: Resolve) -> tuple[Diagram, RunOverlay]:
    """The diagram of ``tree.run`` in ``view`` and the overlay of states to draw on it:
    the run's own, plus each opened child's under its ids (``step/child step``)."""
    overlay = run_overlay(tree.definition, tree.run, queued)
    if not view.expand_subworkflows:
        diagram = diagram_from_definition(tree.definition)
    else:
        trees = _trees_by_prefix(tree)
        tenant = tree.run.tenant

        def find_child(full_id: str, step: Step) -> Definition:
            child = trees.get(full_id + "/")
            return child.definition if child is not None else _resolved(step, resolve, tenant)

        diagram = expand_with(tree.definition, find_child)
        overlay = _opened_overlay(overlay, diagram, trees)
    return (group_fanouts(diagram) if view.group_fanouts else diagram), overlay


def _resolved(step: Step, resolve: Resolve, tenant: str) -> Definition:
    return resolve(step.workflow or "", step.version, tenant)


def opened_runs(tree: RunTree) -> dict[str, RunTree]:
    """Every child run a drawing of ``tree`` opens, by the id prefix its steps get there
    (``contract/``, ``contract/inner/``)."""
    return _trees_by_prefix(tree)


def _trees_by_prefix(tree: RunTree, prefix: str = "") -> dict[str, RunTree]:
    """Every opened child tree by the id prefix of its steps in the drawing (``s/``)."""
    out: dict[str, RunTree] = {}
    for step_id, child in tree.children.items():
        inner = f"{prefix}{step_id}/"
        out[inner] = child
        out.update(_trees_by_prefix(child, inner))
    return out


PENDING_STEP = StepStatus(StepState.PENDING, 0, 0, None, None, None, None)
PENDING_EDGE = EdgeStatus(EdgeState.PENDING)


def _opened_overlay(overlay: RunOverlay, diagram: Diagram, trees: Mapping[str, RunTree]
                    ) -> RunOverlay:
    """``overlay`` with a status for every node and edge the expansion added: the child
    run's where one ran, Pending where none has started yet."""
    steps: dict[str, StepStatus] = dict(overlay.steps)
    edges: dict[str, EdgeStatus] = dict(overlay.edges)
    child_runs: dict[str, tuple[str, RunState]] = {}
    for prefix, child in trees.items():
        inner = run_overlay(child.definition, child.run)
        steps.update({prefix + k: v for k, v in inner.steps.items()})
        edges.update({prefix + k: v for k, v in inner.edges.items()})
        child_runs[prefix.removesuffix("/")] = (child.run.run_id, child.run.state)
    for node in diagram.graph.all_nodes():
        steps.setdefault(node.id, PENDING_STEP)
    for edge in diagram.graph.edges:
        edges.setdefault(edge.id, PENDING_EDGE)
    return replace(overlay, steps=steps, edges=edges, child_runs=child_runs)

"""The per-kind rules table and the engine's vocabulary enums."""

from collections import Counter

from renderer.diagram import StepKind as DrawnKind
from workflow.dsl import STEP_FIELDS, Definition, Step
from workflow.flow import STARTERS
from workflow.kinds import KIND_NAMES, KIND_RULES, FailurePolicy, StepKind
from workflow.validation import validate_definition


def test_kind_rules_has_exactly_one_row_per_step_kind():
    counts = Counter(rule.kind for rule in KIND_RULES)
    assert set(counts) == set(StepKind)
    assert all(count == 1 for count in counts.values()), counts


def test_unknown_kind_message_lists_the_kinds_in_table_order():
    definition = Definition("w", "1", (Step("a", "Robot"),), ())
    messages = [p.message for p in validate_definition(definition)]
    table_order = ", ".join(rule.kind.value for rule in KIND_RULES)
    assert messages == [f"unknown kind 'Robot' (known: {table_order})"]
    assert tuple(rule.kind.value for rule in KIND_RULES) == KIND_NAMES


def test_the_table_names_only_dsl_fields():
    for rule in KIND_RULES:
        named = (*rule.required_fields, *filter(None, [rule.executor_field]))
        assert set(named) <= set(STEP_FIELDS), rule
        if rule.executor_field is not None:  # an executor must be named to be called
            assert rule.executor_field in rule.required_fields, rule


def test_a_default_timeout_only_where_a_timeout_timer_enforces_it():
    for rule in KIND_RULES:
        assert rule.timeout_timer or not rule.default_timeout, rule


def test_every_kind_knows_how_to_start_an_attempt():
    assert set(STARTERS) == set(StepKind)


def test_the_renderer_draws_exactly_the_engine_kinds():
    drawn = [kind.value for kind in DrawnKind if kind is not DrawnKind.PLAIN]
    assert drawn == [kind.value for kind in StepKind]


def test_enum_values_are_the_dsl_text():
    assert [k.value for k in StepKind] == ["Agent", "Tool", "Human", "Condition", "Timer",
                                           "SubWorkflow", "Fanout", "Join", "Compensation"]
    assert [p.value for p in FailurePolicy] == ["Fail", "Retry", "Escalate", "Compensate"]

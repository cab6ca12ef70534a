import pytest

from workflow.jsonlogic import JsonLogicError, evaluate, parse_rule, truthy

# Expected values follow the operator table of https://jsonlogic.com/operations.html.
CASES = [
    ({"==": [1, 1]}, {}, True),
    ({"==": [1, "1"]}, {}, True),           # loose equality converts the string
    ({"===": [1, "1"]}, {}, False),         # strict equality does not
    ({"!=": [1, 2]}, {}, True),
    ({"!==": [1, 1.0]}, {}, False),
    ({"<": [1, 2, 3]}, {}, True),           # between: 1 < 2 and 2 < 3
    ({"<=": [1, 1, 0]}, {}, False),         # 1 <= 1 but not 1 <= 0
    ({">": [3, 2]}, {}, True),
    ({">=": [{"var": "a.b"}, 0.8]}, {"a": {"b": 0.8}}, True),
    ({"and": [True, 0, "x"]}, {}, 0),       # first falsy value
    ({"or": [0, "", "x"]}, {}, "x"),        # first truthy value
    ({"!": [[]]}, {}, True),                # empty list is falsy
    ({"!!": ["0"]}, {}, True),              # non-empty string is truthy
    ({"if": [False, "a", True, "b", "c"]}, {}, "b"),
    ({"in": ["Spring", "Springfield"]}, {}, True),
    ({"in": ["b", ["a", "b"]]}, {}, True),
    ({"+": [1, 2, "3"]}, {}, 6),            # 1 + 2 + 3
    ({"-": [10, 4]}, {}, 6),
    ({"-": [2]}, {}, -2),
    ({"*": [2, 3, 4]}, {}, 24),
    ({"/": [7, 2]}, {}, 3.5),
    ({"%": [7, 3]}, {}, 1),
    ({"min": [4, 2, 9]}, {}, 2),
    ({"max": [4, 2, 9]}, {}, 9),
    ({"cat": ["I love", " pie ", 3]}, {}, "I love pie 3"),
    ({"substr": ["jsonlogic", 4]}, {}, "logic"),
    ({"missing": ["a", "b"]}, {"a": 1}, ["b"]),
    ({"missing_some": [1, ["a", "b"]]}, {"a": 1}, []),
    ({"var": ["nope", "fallback"]}, {}, "fallback"),
    ({"var": "list.1"}, {"list": [10, 20]}, 20),
    ({"merge": [[1], 2, [3]]}, {}, [1, 2, 3]),
]


@pytest.mark.parametrize(("rule", "data", "expected"), CASES)
def test_operators_follow_the_jsonlogic_table(rule, data, expected):
    assert evaluate(rule, data) == expected


def test_truthiness():
    assert [truthy(v) for v in (0, "", [], None, False, 1, "a", [0])] == [
        False, False, False, False, False, True, True, True]


@pytest.mark.parametrize("text", ['{"nope": [1]}', "{not json", '{"==": [1, 2], "!": 1}'])
def test_bad_rules_are_refused_with_a_reason(text):
    with pytest.raises(JsonLogicError):
        parse_rule(text)


def test_unknown_operator_is_named():
    with pytest.raises(JsonLogicError, match="unknown operator 'launch'"):
        evaluate({"launch": []}, {})

"""Guarded reading of YAML and JSON documents: the one parser of definitions and graphs.

The DSL loader (:mod:`workflow.dsl`, so ``wfr validate``, ``wfr run`` and the engine's
imports) and the renderer's readers (:mod:`renderer.readers`, so ``wfr render`` and the
HTTP service) parse text here, under :data:`DOCUMENT_LIMITS`:

- size: more than ``max_bytes`` is refused before parsing (:class:`DocumentTooLargeError`);
- depth: YAML with more than :data:`MAX_FLOW_DEPTH` open brackets is refused before
  parsing (PyYAML's scanner is quadratic in them), and any document deeper than
  ``max_depth`` levels, YAML aliases followed, after it;
- aliases: a document whose aliases expand to more than ``max_values`` values (a "billion
  laughs" file) or that contains itself is refused before anything walks it;
- text: lone surrogates (``"\\ud800"``) are refused, since no writer could encode them.

Every refusal is a :class:`DocumentError` (a :class:`~workflow.dsl.DslError`) with a
one-line message.

>>> parse_document("workflow: w")
{'workflow': 'w'}
>>> parse_document("a: &a [1, 2]\\nb: &b [*a, *a]\\nc: [*b, *b]")["c"]
[[[1, 2], [1, 2]], [[1, 2], [1, 2]]]
>>> parse_document("a: " + "[" * 500)
Traceback (most recent call last):
...
workflow.documents.DocumentError: input is nested too deeply to read (more than 400 open brackets)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import accumulate

import yaml


class DocumentError(ValueError):
    """The text is not a document we read; the message names the problem."""


class DocumentTooLargeError(DocumentError):
    """The text is over :attr:`DocumentLimits.max_bytes` (HTTP 413)."""


@dataclass(frozen=True, slots=True)
class DocumentLimits:
    """The largest document we parse."""

    max_bytes: int = 20_000_000
    max_values: int = 1_000_000
    """Values in the parsed document counted with YAML aliases expanded, so a small
    "billion laughs" file cannot blow up later processing."""
    max_depth: int = 200
    """Levels of lists and objects, YAML aliases followed: a chain of anchors builds
    values far deeper than the parser allows, which recursive code (``json.dumps``,
    ``repr``) then cannot handle."""


DOCUMENT_LIMITS = DocumentLimits()
MAX_FLOW_DEPTH = 400
"""Most open ``[``/``{`` in YAML text; PyYAML's parser hits Python's recursion limit at
about 490 levels anyway."""
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
EMPTY_MESSAGE = "input is empty"


def decode_document(data: bytes | str, *, limits: DocumentLimits = DOCUMENT_LIMITS) -> str:
    """UTF-8 text of ``data`` (a BOM dropped), refused over ``limits.max_bytes``.

    >>> decode_document(b"\\xef\\xbb\\xbfa: 1")
    'a: 1'
    """
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > limits.max_bytes:
        raise DocumentTooLargeError(f"input has {size} bytes; the limit is {limits.max_bytes}")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"input is not UTF-8 text (bad byte at offset {exc.start})"
                            ) from None


_LIBYAML_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader (ten times faster than PyYAML's pure-Python one: 5 ms instead of
54 ms for the reference workflow) when PyYAML was built with it, which its wheels are."""

STR_TAG = "tag:yaml.org,2002:str"


class SafeLoader(_LIBYAML_SAFE_LOADER):  # type: ignore[valid-type,misc]
    """:data:`_LIBYAML_SAFE_LOADER`, taking a plain string straight from its node.

    PyYAML's safe constructor turns each node into its value through a memo check, a
    constructor lookup by tag and two calls that, for a ``str`` scalar, end in
    ``node.value``; most nodes of a definition are such strings (keys, ids, kinds), and
    that chain was a third of the parse. Every other node takes the inherited path, so
    the values are the same (``tests/workflow/test_documents.py`` compares them with
    PyYAML's pure-Python ``SafeLoader``).

    >>> yaml.load("a: [b, 1, !!str 2, &x c, *x]", Loader=SafeLoader)
    {'a': ['b', 1, '2', 'c', 'c']}
    """

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        if node.tag == STR_TAG and type(node) is yaml.ScalarNode:
            return node.value
        return super().construct_object(node, deep)


SAFE_LOADER = SafeLoader
"""The loader :func:`parse_document` reads YAML with."""


def parse_document(text: str, *, limits: DocumentLimits = DOCUMENT_LIMITS) -> object:
    """JSON when the text starts like JSON (for exact error positions), else YAML, under
    ``limits`` (see the module docstring)."""
    decode_document(text, limits=limits)
    if not text.strip():
        raise DocumentError(EMPTY_MESSAGE)
    from_json = text.lstrip()[0] in "{["
    if not from_json:
        _check_flow_depth(text)
    try:
        data = json.loads(text) if from_json else yaml.load(text, Loader=SAFE_LOADER)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"not valid JSON at line {exc.lineno} column {exc.colno}: "
                            f"{exc.msg}") from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(exc):  # libyaml's own limit (1000 levels)
            raise DocumentError("input is nested too deeply to read") from None
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc
        raise DocumentError(f"not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise DocumentError("input is nested too deeply to read") from None
    except ValueError as exc:  # YAML's "2020-13-01", "!!int x"; JSON's 5000-digit integers
        raise DocumentError(f"input has a value that cannot be read: {exc}") from None
    check_document(data, limits=limits, text=text)
    return data


def check_document(data: object, *, limits: DocumentLimits = DOCUMENT_LIMITS,
                   text: str | None = None) -> None:
    """Refuse parsed data over the value or depth limits, or with lone surrogates.
    ``text``, the text ``data`` was parsed from, lets the surrogate walk be skipped when
    no string can hold one (see :func:`may_hold_surrogates`).

    >>> check_document({"a": [1, 2]}) is None
    True
    """
    if isinstance(data, Mapping | list):
        if not _tree_within(data, limits):
            _check_expanded_size(data, limits)
        if text is None or may_hold_surrogates(text):
            _check_unicode(data)


def may_hold_surrogates(text: str) -> bool:
    """Whether a document parsed from ``text`` can hold a lone surrogate: only when the
    text has one itself or a ``\\u``/``\\U`` escape (JSON's and YAML's only escapes past
    U+00FF).

    >>> may_hold_surrogates('{"id": "caf\u00e9"}'), may_hold_surrogates('{"id": "\\\\ud800"}')
    (False, True)
    """
    if "\\u" in text or "\\U" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _tree_within(data: object, limits: DocumentLimits) -> bool:
    """One walk of ``data``: ``True`` when it is a tree (no container reached twice, so
    no YAML alias to expand) within the value and depth limits. ``False`` leaves the
    verdict to :func:`_check_expanded_size`, which counts shared parts exactly and names
    the problem.

    >>> _tree_within({"a": [1, 2], "b": {"c": 3}}, DOCUMENT_LIMITS)
    True
    >>> shared = [1, 2]
    >>> _tree_within({"a": shared, "b": shared}, DOCUMENT_LIMITS)
    False
    """
    if not isinstance(data, dict | list):
        return False
    seen: set[int] = set()
    values = 0
    stack: list[tuple[dict[object, object] | list[object], int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if id(item) in seen or depth > limits.max_depth or values > limits.max_values:
            return False
        seen.add(id(item))
        children = item.values() if isinstance(item, dict) else item
        values += len(children)
        for child in children:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
            elif not isinstance(child, str | int | float) and isinstance(child, Mapping):
                return False  # not parser output: let the exact count handle it
    return values <= limits.max_values


def _check_flow_depth(text: str) -> None:
    """Refuse YAML with more than :data:`MAX_FLOW_DEPTH` open brackets before parsing:
    PyYAML's scanner takes time quadratic in the open brackets (2000 ``[`` took 6 s) and
    its parser would hit the recursion limit anyway. Brackets inside quotes count too, so
    only text with hundreds of unclosed brackets in strings is refused wrongly."""
    brackets = _NOT_BRACKETS.sub("", text)
    depth = max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)
    if depth > MAX_FLOW_DEPTH:
        raise DocumentError(f"input is nested too deeply to read (more than {MAX_FLOW_DEPTH} "
                            "open brackets)")


def _containers(item: object) -> list[object]:
    values = item.values() if isinstance(item, Mapping) else item
    assert isinstance(values, Iterable)
    return [v for v in values if isinstance(v, Mapping | list)]


def _check_expanded_size(data: object, limits: DocumentLimits) -> None:
    """Count values and levels as if YAML aliases were copied out (each shared part is
    measured once, then reused), refusing documents over the limits or that contain
    themselves."""
    limit = limits.max_values
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    on_path: set[int] = set()
    # (container, its containers once they are pushed; None until then)
    stack: list[tuple[object, list[object] | None]] = [(data, None)]
    while stack:
        item, children = stack.pop()
        key = id(item)
        if children is not None:  # its children are measured: measure it
            own = len(item) if isinstance(item, Mapping | list) else 0
            sizes[key] = min(limit + 1, own + sum(sizes[id(c)] for c in children))
            depths[key] = 1 + max((depths[id(c)] for c in children), default=0)
            if depths[key] > limits.max_depth:
                raise DocumentError(f"input is nested too deeply to read (more than "
                                    f"{limits.max_depth} levels, YAML aliases followed)")
            on_path.discard(key)
        elif key in on_path:
            raise DocumentError("input contains itself (a YAML alias inside its own anchor)")
        elif key not in sizes:
            on_path.add(key)
            inner = _containers(item)
            stack.append((item, inner))
            stack.extend((c, None) for c in inner if id(c) not in sizes)
    if sizes[id(data)] > limit:
        raise DocumentError(f"input expands to more than {limit} values (YAML aliases "
                            "repeating large parts?)")


def _check_unicode(data: object) -> None:
    """Refuse strings with lone surrogates (JSON's or YAML's ``"\\ud800"``): they are not
    Unicode text and no writer can encode them as UTF-8."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        texts = [*item.keys(), *item.values()] if isinstance(item, Mapping) else item
        assert isinstance(texts, Iterable)
        for text in texts:
            if isinstance(text, str) and not text.isascii():
                _check_text(text)
        stack.extend(_containers(item))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise DocumentError(f"input has the lone surrogate \\u{code:04x} in {text[:40]!r}; "
                            "it is not valid Unicode text") from None

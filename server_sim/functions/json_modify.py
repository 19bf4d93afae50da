"""JSON_SET, JSON_INSERT, JSON_REPLACE and JSON_REMOVE over a document's text, with
constant paths and values.

MySQL changes the document and prints it normalised (`{"a": 1, "c": 3}`). MariaDB edits
the text it was given: a new member goes before the object's closing brace as
`, "c": 3`, a replaced value takes the old one's place, the rest of the text stays as
written. What MariaDB's editing the simulator does not know exactly (JSON_REMOVE, a new
array element, whitespace before the closing brace) is refused, as are a path into a
scalar (MySQL wraps it in an array) and invalid text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal

from sqlglot import exp

from ..errors import not_supported
from .json import _MISSING, _find, _steps, mysql_text
from .json_build import as_written, constant_json_value, has_decimal
from .library import SqlFunction, Translating
from .native import TEXT, native
from .unmodelled import Unmodelled

OPERATIONS = ("JSON_SET", "JSON_INSERT", "JSON_REPLACE", "JSON_REMOVE")


@dataclass
class _Span:
    """A value's place in the text; an object's members and an array's items with theirs,
    and where its closing bracket is."""

    start: int
    end: int = 0
    members: dict[str, _Span] = field(default_factory=dict)
    items: list[_Span] = field(default_factory=list)
    close: int = 0
    container: bool = False


_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\n\r":
        index += 1
    return index


def _span(text: str, index: int) -> _Span:
    index = _skip(text, index)
    if index < len(text) and text[index] in "{[":
        return _container(text, index)
    _, end = _DECODER.raw_decode(text, index)
    return _Span(index, end)


def _container(text: str, index: int) -> _Span:
    is_object, closing = text[index] == "{", "}" if text[index] == "{" else "]"
    span = _Span(index, container=True)
    index = _skip(text, index + 1)
    while text[index] != closing:
        if is_object:
            key, index = _DECODER.raw_decode(text, index)
            index = _skip(text, index) + 1  # the colon
        item = _span(text, index)
        if is_object:
            span.members[key] = item
        else:
            span.items.append(item)
        index = _skip(text, item.end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    span.close, span.end = index, index + 1
    return span


def edit_as_written(text: str, operation: str, path: str, value: str) -> str:
    """MariaDB's edit of the document's text."""
    if operation == "JSON_REMOVE":
        raise Unmodelled("JSON_REMOVE() under MariaDB (how it edits the text)")
    steps = _steps(path, operation)
    if not steps:
        raise Unmodelled(f"{operation}() of the path '$'")
    node = _span(text, 0)
    for step in steps[:-1]:
        found = node.members.get(step) if isinstance(step, str) else (node.items[step] if step < len(node.items) else None)
        if found is None or not node.container:
            raise Unmodelled(f"{operation}() through a missing or scalar member")
        node = found
    last = steps[-1]
    target = node.members.get(last) if isinstance(last, str) else (node.items[last] if last < len(node.items) else None)
    if target is not None:
        return text if operation == "JSON_INSERT" else text[: target.start] + value + text[target.end :]
    if operation == "JSON_REPLACE":
        return text
    if not isinstance(last, str) or not node.members and node.items or not node.container or text[node.close - 1] in " \t\n\r":
        raise Unmodelled(f"{operation}() adding to an array, a scalar or before blanks (MariaDB's text)")
    member = f"{json.dumps(last, ensure_ascii=False)}: {value}"
    return text[: node.close] + (", " if node.members else "") + member + text[node.close :]


def edit_normalised(text: str, operation: str, path: str, value: str) -> str:
    """MySQL's edit of the document, printed normalised."""
    try:
        document = json.loads(text)
    except ValueError:
        raise Unmodelled(f"{operation}() of invalid JSON text (MySQL 3141)") from None
    steps = _steps(path, operation)
    if not steps:
        raise Unmodelled(f"{operation}() of the path '$'")
    parent = _find(document, steps[:-1])
    last = steps[-1]
    if parent is _MISSING or not isinstance(parent, (dict, list)) or isinstance(parent, dict) != isinstance(last, str):
        if operation in ("JSON_REMOVE", "JSON_REPLACE") or parent is _MISSING:
            return mysql_text(document)
        raise Unmodelled(f"{operation}() of a path through a scalar (MySQL wraps it in an array)")
    exists = last in parent if isinstance(parent, dict) else last < len(parent)  # type: ignore[operator]
    if operation == "JSON_REMOVE":
        if exists:
            del parent[last]  # type: ignore[arg-type]
    elif exists and operation != "JSON_INSERT":
        parent[last] = json.loads(value, parse_float=Decimal)  # type: ignore[index]
    elif not exists and operation != "JSON_REPLACE":
        if isinstance(parent, dict):
            parent[last] = json.loads(value, parse_float=Decimal)
        else:
            parent.append(json.loads(value, parse_float=Decimal))
    return mysql_text(document)


def _edits(implementation):  # type: ignore[no-untyped-def]
    def run(text: str, operation: str, pairs: str) -> str:
        for path, value in json.loads(pairs):
            text = implementation(text, operation, path, value)
        return text

    return run


_AS_WRITTEN = native("JSON_EDIT_MARIADB", _edits(edit_as_written), [TEXT, TEXT, TEXT], "VARCHAR", exposed=False)
_NORMALISED = native("JSON_EDIT_MYSQL", _edits(edit_normalised), [TEXT, TEXT, TEXT], "VARCHAR", exposed=False)


def _translate(operation: str):  # type: ignore[no-untyped-def]
    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        arguments = list(node.expressions) if isinstance(node, exp.Anonymous) else [node.this, *node.expressions]
        document, rest = arguments[0], arguments[1:]
        as_given = translation.context.flavor.json_prints_as_written
        width = 1 if operation == "JSON_REMOVE" else 2
        if not rest or len(rest) % width:
            raise not_supported(f"{operation}() with {len(arguments)} arguments")
        pairs = []
        for index in range(0, len(rest), width):
            path = rest[index]
            if not (isinstance(path, exp.Literal) and path.is_string):
                raise not_supported(f"{operation}() of the path {path.sql(dialect='mysql')} (a constant path is modelled)")
            value = "" if width == 1 else constant_json_value(rest[index + 1])
            if not as_given and has_decimal(value):
                raise not_supported(f"{operation}() of a decimal number under MySQL (its document keeps the DECIMAL)")
            pairs.append([path.this, value if width == 1 else (as_written(value) if as_given else mysql_text(value))])
        entry = _AS_WRITTEN if as_given else _NORMALISED
        call = exp.Anonymous(this=operation, expressions=[document, exp.Literal.string(operation), exp.Literal.string(json.dumps(pairs))])
        return entry.duckdb(call, translation)  # type: ignore[misc]

    return translate


JSON_EDITS: tuple[SqlFunction, ...] = (
    SqlFunction(names=("JSON_SET",), nodes=(exp.JSONSet,), duckdb=_translate("JSON_SET")),
    SqlFunction(names=("JSON_INSERT",), duckdb=_translate("JSON_INSERT")),
    SqlFunction(names=("JSON_REPLACE",), duckdb=_translate("JSON_REPLACE")),
    SqlFunction(names=("JSON_REMOVE",), nodes=(exp.JSONRemove,), duckdb=_translate("JSON_REMOVE")),
)

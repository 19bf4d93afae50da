"""JSON_OBJECT and JSON_ARRAY of constant arguments: the document built once, as a text
literal both evaluators use.

MySQL prints the document normalised (`{"a": "x", "k": 1}`: keys by length then bytes,
`: ` and `, ` separators); MariaDB keeps the arguments' order with the same separators.
An argument is a number, a string (a JSON string), NULL (JSON null) or another
JSON_OBJECT / JSON_ARRAY (a nested document). Anything else (a column, TRUE, which MySQL
makes a JSON boolean, a duplicate or NULL key) is refused with 1235.
"""

from __future__ import annotations

import json
from decimal import Decimal

from sqlglot import exp

from ..binlog.binary.json_binary import json_text
from ..declined import Declined
from ..errors import not_supported
from ..operands import Kind, Operand
from .library import Compiling, SqlFunction, Translating


class _Ordered(dict):
    """An object whose keys print in the order given (MariaDB's)."""


def constant_json_value(node: exp.Expression) -> object:
    """A JSON value of a constant argument."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        return _number(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return _number("-" + node.this.this)
    if isinstance(node, exp.JSONObject):
        return _object(node)
    if isinstance(node, exp.Anonymous) and node.name.upper() == "JSON_ARRAY":
        return [constant_json_value(item) for item in node.expressions]
    raise not_supported(f"JSON_OBJECT() or JSON_ARRAY() of {node.sql(dialect='mysql')} (only constants are modelled)")


def _number(text: str) -> int | Decimal:
    if "e" in text.lower():
        raise not_supported(f"a JSON double from the literal {text}")
    return Decimal(text) if "." in text else int(text)


def _object(node: exp.JSONObject) -> _Ordered:
    if node.args.get("null_handling") or node.args.get("unique_keys") or node.args.get("return_type") or node.args.get("encoding"):
        raise not_supported(f"{node.sql(dialect='mysql')}")
    document = _Ordered()
    for pair in node.expressions:
        if not isinstance(pair, exp.JSONKeyValue):
            raise not_supported(f"JSON_OBJECT() argument {pair.sql(dialect='mysql')}")
        key = constant_json_value(pair.this)
        if key is None:
            raise not_supported("JSON_OBJECT() with a NULL key (MySQL 3158)")
        key = str(key)
        if key in document:
            raise not_supported(f"JSON_OBJECT() with the key {key!r} twice")
        document[key] = constant_json_value(pair.expression)
    return document


def as_written(value: object) -> str:
    """A built document as MariaDB prints it: in the arguments' order."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {as_written(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(as_written(item) for item in value) + "]"
    return json_text(value)


def built_text(node: exp.Expression, as_given: bool) -> str:
    """The text JSON_OBJECT(...) or JSON_ARRAY(...) gives."""
    document = constant_json_value(node)
    if not as_given and has_decimal(document):
        # MySQL keeps a DECIMAL in the document (2.50), which the stored text would read back as a double.
        raise not_supported("JSON_OBJECT() or JSON_ARRAY() of a decimal number under MySQL")
    return as_written(document) if as_given else json_text(document)


def has_decimal(value: object) -> bool:
    if isinstance(value, dict):
        return any(has_decimal(item) for item in value.values())
    if isinstance(value, list):
        return any(has_decimal(item) for item in value)
    return isinstance(value, Decimal)


def _translate(node: exp.Expression, translation: Translating) -> exp.Expression:
    return exp.Literal.string(built_text(node, translation.context.flavor.json_prints_as_written))


def _evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
    context = compiler.context
    if context is None:
        raise Declined
    text = context(node).this  # the translation's literal, for the statement's flavor
    return Operand(lambda row: text, Kind.TEXT, literal=True)


JSON_BUILDERS: tuple[SqlFunction, ...] = (
    SqlFunction(names=("JSON_OBJECT",), nodes=(exp.JSONObject,), duckdb=_translate, python=_evaluate),
    SqlFunction(names=("JSON_ARRAY",), duckdb=_translate, python=_evaluate),
)

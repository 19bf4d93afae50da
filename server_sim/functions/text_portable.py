"""The string functions sqlglot's DuckDB rendering runs as MySQL does on text: CONCAT,
CONCAT_WS, LEFT, RIGHT, LOWER, UPPER, TRIM, REPEAT, REVERSE, GROUP_CONCAT and CAST(x AS
CHAR). On a binary string (a binary column, UNHEX(), a CAST AS BINARY) the server works
byte for byte and gives bytes; DuckDB would first turn the bytes into their escaped text
(`\\xE9`, four characters) and go on with that, a silently different value. So an argument
that may be bytes is tested when DuckDB binds the query, and bytes stop the statement with
1235 naming the argument; a literal needs no test. CAST(x AS BINARY) is x's bytes in its
character set (byte_arguments.py), and so is each argument of a CONCAT with a binary
string as written among them: the result is their bytes.
"""

from __future__ import annotations

import functools

from sqlglot import exp

from ..errors import not_supported
from .byte_arguments import bytes_argument
from .library import SqlFunction, Translating
from .native import binary_name, binary_string, binary_test, refused_if_binary

# The nodes whose arguments are read as text (every argument of a node whose other
# arguments are numbers: the test never holds for a number).
TEXT_NODES: tuple[type[exp.Expression], ...] = (
    exp.Concat, exp.ConcatWs, exp.Left, exp.Right, exp.Lower, exp.Upper, exp.Trim, exp.Repeat,
    exp.Reverse, exp.GroupConcat,
)
_TEXT_TYPES = (
    exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.NCHAR,
    exp.DataType.Type.NVARCHAR,
)
_BINARY_TYPES = (exp.DataType.Type.BINARY, exp.DataType.Type.VARBINARY, exp.DataType.Type.BLOB)
_NO_BYTES = (exp.Literal, exp.Null, exp.Boolean)
# The nodes DuckDB has no function of bytes for: a tested argument is text to DuckDB too.
_TEXT_ONLY = (exp.Left, exp.Right, exp.Lower, exp.Upper, exp.Trim, exp.Reverse)
_VARCHAR = exp.DataType.build("VARCHAR")


def _values(argument: exp.Expression) -> list[exp.Expression]:
    """The value nodes of an argument: GROUP_CONCAT's is wrapped in its ORDER BY and DISTINCT."""
    if isinstance(argument, exp.Order):
        return _values(argument.this)
    if isinstance(argument, exp.Distinct):
        return list(argument.expressions)
    return [argument]


def _arguments(node: exp.Expression) -> list[tuple[str, int | None, exp.Expression]]:
    """Each argument of a text function with its slot (and place in a list slot)."""
    found: list[tuple[str, int | None, exp.Expression]] = []
    for key, value in node.args.items():
        if isinstance(value, exp.Expression) and not isinstance(value, exp.DataType):
            found.append((key, None, value))
        elif isinstance(value, list):
            found.extend((key, index, item) for index, item in enumerate(value) if isinstance(item, exp.Expression))
    return found


def _may_be_bytes(node: exp.Expression) -> bool:
    return not all(isinstance(value, _NO_BYTES) for value in _values(node))


def _guarded(node: exp.Expression, translation: Translating) -> exp.Expression:
    """The node with its arguments translated, each one that may be bytes tested; the node
    itself where every argument is a literal (the translation goes on into it)."""
    arguments = _arguments(node)
    if isinstance(node, exp.Cast):
        if node.to.is_type(*_BINARY_TYPES):
            return _as_binary(node, translation)
        if not node.to.is_type(*_TEXT_TYPES):
            return node
        arguments = [(key, index, value) for key, index, value in arguments if key == "this"]
    if not any(_may_be_bytes(value) for _, _, value in arguments):
        return node
    if isinstance(node, exp.Concat) and any(binary_string(value, translation) for value in node.expressions):
        return _concatenated_bytes(node, translation)
    if isinstance(node, exp.GroupConcat):
        return _group_concat_tested(node, translation)
    rebuilt = node.copy()
    lists: dict[str, list[exp.Expression]] = {}
    for key, index, value in arguments:
        translated = _tested(value, translation.rewrite(value), isinstance(node, _TEXT_ONLY))
        if index is None:
            rebuilt.set(key, translated)
        else:
            lists.setdefault(key, list(rebuilt.args[key]))[index] = translated
    for key, items in lists.items():
        rebuilt.set(key, items)
    return rebuilt


def _concatenated_bytes(node: exp.Concat, translation: Translating) -> exp.Expression:
    """CONCAT with a binary string among its arguments: a binary string of each argument's
    bytes (a text's in its character set), NULL where one is NULL."""
    parts = [bytes_argument(value, translation.rewrite(value), translation) for value in node.expressions]
    return functools.reduce(lambda joined, part: exp.DPipe(this=joined, expression=part), parts)


def _as_binary(node: exp.Cast, translation: Translating) -> exp.Expression:
    """CAST(x AS BINARY), BINARY x: x's bytes in its character set (DuckDB's own cast to
    BLOB reads `\\x41` in text as one byte and refuses any other non-ASCII character)."""
    if node.to.expressions:
        raise not_supported(f"CAST AS {node.to.sql(dialect='mysql')} (a binary string padded or cut to a length)")
    return bytes_argument(node.this, translation.rewrite(node.this), translation)


def _tested(original: exp.Expression, translated: exp.Expression, as_text: bool) -> exp.Expression:
    """The translated argument with each of its values that may be bytes tested (`as_text`:
    cast to text when it is none, for DuckDB to bind the node)."""
    for value, target in zip(_values(original), _values(translated)):
        if isinstance(value, _NO_BYTES):
            continue
        value_itself = exp.cast(target.copy(), _VARCHAR) if as_text else target.copy()
        guard = refused_if_binary(target.copy(), value_itself, binary_name(value))
        if target is translated:
            return guard
        target.replace(guard)
    return translated


def _group_concat_tested(node: exp.GroupConcat, translation: Translating) -> exp.Expression:
    """GROUP_CONCAT tests the type of each value's MIN beside the aggregate: a test inside
    it would make DISTINCT x ORDER BY x order by something other than its argument."""
    rebuilt = node.copy()
    translated = translation.rewrite(node.this)
    rebuilt.set("this", translated)
    tests = [
        binary_test(exp.Min(this=target.copy()), binary_name(value))
        for value, target in zip(_values(node.this), _values(translated))
        if not isinstance(value, _NO_BYTES)
    ]
    return exp.Case(ifs=tests, default=rebuilt)


TEXT_PORTABLE: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(*TEXT_NODES, exp.Cast), duckdb=_guarded, keeps_node=True),
)

"""COALESCE / IFNULL over values of mixed types: where DuckDB's own typing of sqlglot's
rendering differs from MySQL's.

MySQL gives COALESCE of a number and a string a string result; DuckDB refuses it to
bind. MariaDB 10.10+ types UUID() as UUID, which COALESCE will not mix with a number (4078).
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCode, SqlError
from .library import SqlFunction, Translating


def _is_uuid(node: exp.Expression) -> bool:
    return isinstance(node, exp.Uuid) or (isinstance(node, exp.Anonymous) and node.name.upper() == "UUID")


def _is_number(node: exp.Expression) -> bool:
    node = node.this if isinstance(node, exp.Neg) else node
    return isinstance(node, exp.Literal) and not node.is_string


def _coalesce(node: exp.Expression, translation: Translating) -> exp.Expression:
    """COALESCE(1, UUID()): a string in MySQL, 4078 in MariaDB; any other call as it is."""
    arguments = [node.this, *node.expressions]
    if not (any(_is_uuid(a) for a in arguments) and any(_is_number(a) for a in arguments)):
        return node
    if translation.context.flavor.uuid_data_type:
        name = "ifnull" if node.args.get("is_nvl") or node.args.get("is_null") else "coalesce"
        raise SqlError(ErrorCode.ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION, "int", "uuid", name)
    text = [exp.cast(translation.rewrite(argument), exp.DataType.build("VARCHAR")) for argument in arguments]
    return exp.Coalesce(this=text[0], expressions=text[1:])


CONTROL: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(exp.Coalesce,), duckdb=_coalesce, keeps_node=True),
)

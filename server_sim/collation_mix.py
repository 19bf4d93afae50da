"""Two text columns of different collations compared with each other: which collation the
comparison takes (DTCollation::aggregate, in both servers). Both are IMPLICIT (a column's
own); of one character set, a _bin collation wins over any other (the comparison is
exact), and two others are an illegal mix (1267). Columns of two character sets are
converted to the wider one, which the simulator follows only where both ignore case.
Recorded on MariaDB 10.11: scenarios/oracle/collation-mix.yaml.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from .charsets import charset_of_collation
from .errors import ErrorCode, SqlError, not_supported
from .types import ColumnType, TypeFamily

# The comparisons 1267 names by their operator (Item_func::func_name).
_OPERATORS = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=", exp.NullSafeEQ: "<=>"}


def columns_compared_exactly(
    comparison: exp.Expression, operands: Sequence[exp.Expression | None], column_type: Callable[[exp.Column], ColumnType | None]
) -> list[exp.Expression]:
    """The text columns among `operands` that compare by code point here, for a comparison
    of two or more columns: those of a _ci collation where a _bin column of their character
    set takes part (a _bin column is exact already). Raises 1267 for two other collations
    of one character set, 1235 for a _bin one beside another character set."""
    query = comparison.args.get("query") if isinstance(comparison, exp.In) else None
    columns = [side for side in operands if isinstance(side, exp.Column)]
    _refuse_computed_mix([*operands, query] if query is not None else operands, columns, column_type)
    if len(columns) < 2:
        return []  # a column compared with values: its own collation decides
    text = [(side, declared) for side in columns if (declared := column_type(side)) is not None and declared.family is TypeFamily.STRING]
    if len({declared.collation for _, declared in text}) < 2:
        return []
    charsets = {charset_of_collation(declared.collation) for _, declared in text}
    exact = [side for side, declared in text if declared.compares_exactly]
    if len(charsets) > 1:
        shown = " and ".join(f"{side.sql(dialect='mysql')} ({declared.collation})" for side, declared in text)
        if exact:
            raise not_supported(f"comparing the columns {shown}, of a _bin collation and another character set")
        if len({declared.collation for _, declared in text}) > len(charsets):
            raise not_supported(f"comparing the columns {shown} (two collations of one character set beside another character set)")
        return []  # converted to the wider character set: both ignore case
    if exact:
        return [side for side, declared in text if not declared.compares_exactly]
    operator = _OPERATORS.get(type(comparison))
    if operator is None or len(text) != 2:
        shown = " and ".join(f"{side.sql(dialect='mysql')} ({declared.collation})" for side, declared in text)
        raise not_supported(f"comparing the columns {shown} in {comparison.key.upper()} (an illegal mix of collations)")
    (_, first), (_, second) = text
    raise SqlError(ErrorCode.ER_CANT_AGGREGATE_2COLLATIONS, first.collation, "IMPLICIT", second.collation, "IMPLICIT", operator)


def _refuse_computed_mix(
    operands: Sequence[exp.Expression | None], columns: list[exp.Expression], column_type: Callable[[exp.Column], ColumnType | None]
) -> None:
    """A value computed from a _bin column compared with a _ci one, or the other way
    round (UPPER(b) = g, g IN (SELECT b ...)): the _bin collation wins there too, which
    the simulator's DuckDB collations do not carry through a function or a subquery: 1235."""
    derived = [_projected(side) if isinstance(side, (exp.Subquery, exp.Select)) else side for side in operands if side is not None and not isinstance(side, exp.Column)]
    inside = [
        node for side in derived if side is not None for node in side.walk(prune=lambda n: isinstance(n, (exp.Select, exp.Subquery))) if isinstance(node, exp.Column)
    ]
    if not inside:
        return
    kinds = [column_type(column) for column in [*columns, *inside]]
    exactness = {declared.compares_exactly for declared in kinds if declared is not None and declared.family is TypeFamily.STRING}
    if len(exactness) > 1:
        shown = ", ".join(side.sql(dialect="mysql") for side in operands if side is not None)
        raise not_supported(f"comparing values of columns of a _bin and a _ci collation ({shown}) where one is computed")


def _projected(query: exp.Expression) -> exp.Expression | None:
    """What a scalar subquery gives: its one projection (its collation is the subquery's)."""
    select = query.this if isinstance(query, exp.Subquery) else query
    selects = select.selects if isinstance(select, exp.Select) else []
    return selects[0] if len(selects) == 1 else None

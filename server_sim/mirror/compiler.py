"""MySQL expressions over the columns of one table, or of the tables of a join, compiled
to Python closures that evaluate them exactly as the Translator's DuckDB SQL does.

Columns, literals and SQL's three-valued logic (AND, OR, NOT, IS NULL, IN) are the
compiler's own; every function and operator is the function library's (server_sim/functions),
whose entry compiles it or declines it.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from ..table import Table
from ..declined import Declined
from ..expressions import HIDDEN_ROW_ID, binary_literal
from ..functions import lookup
from ..functions.numbers import comparison
from ..types import TypeFamily
from ..operands import INTEGER_DIGITS, Context, Kind, Operand, Predicate, Values, binary_literal_operand, decimal_bounds, decimal_digits, literal_operand

# The values uncorrelated IN subqueries read, by their SELECT node's id: its table, and the
# value of its one column in each row it returns.
Subqueries = Mapping[int, tuple[Table, list[object]]]


@dataclass(frozen=True)
class Source:
    """A table as an expression sees it: the name it has there, and where its columns
    start in the row the expression is evaluated on (a join row holds several tables')."""

    alias: str
    table: Table
    offset: int = 0


def is_context_value(node: exp.Expression) -> bool:
    """A system or user variable, or a function of the statement's context without
    arguments that the fast path evaluates (as the literal the translation gives it)."""
    function = lookup(node)
    if function is None or not function.from_context or function.python is None:
        return False
    if isinstance(node, (exp.SessionParameter, exp.Parameter)):
        return True
    return not any(isinstance(value, exp.Expression) for value in node.args.values())


class Compiler:
    """Turns a MySQL expression tree into Python closures over a row; `used` collects the
    positions of the sources it read."""

    def __init__(
        self, sources: Sequence[Source], subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None, context: Context | None = None
    ) -> None:
        self.sources = sources
        self.subqueries = subqueries or {}
        self.rand = rand  # the server's RAND(): None declines it
        self.context = context  # None declines the context's values
        self.used: set[int] = set()

    def operand(self, node: exp.Expression) -> Operand:
        """A value: a column, a literal, or a call the library evaluates."""
        if isinstance(node, exp.Paren):
            return self.operand(node.this)
        if isinstance(node, exp.Column):
            return self._column(node)
        if isinstance(node, exp.Null):
            return Operand(lambda row: None, Kind.NULL, literal=True)
        if isinstance(node, (exp.Literal, exp.Neg)):
            return literal_operand(node)
        if isinstance(node, (exp.HexString, exp.BitString)):
            return binary_literal_operand(binary_literal(node))
        function = lookup(node)
        if function is None or function.python is None or (function.from_context and not is_context_value(node)):
            raise Declined
        return function.python(node, self)

    def _column(self, node: exp.Column) -> Operand:
        if node.args.get("db") is not None or node.args.get("catalog") is not None:
            raise Declined
        name = node.name.lower()
        if name == HIDDEN_ROW_ID:
            raise Declined
        qualifier = node.table.lower()
        found = [
            (position, source, index)
            for position, source in enumerate(self.sources)
            if not qualifier or source.alias.lower() == qualifier
            for index, column in enumerate(source.table.columns)
            if column.key == name
        ]
        if len(found) != 1:
            raise Declined  # DuckDB reports the unknown or ambiguous column
        [(position, source, index)] = found
        self.used.add(position)
        column_type = source.table.columns[index].type
        if column_type.is_enum_or_set:
            raise Declined  # its text or its number, as the translation tells (server_sim/enum_set.py)
        value = operator.itemgetter(source.offset + index)
        family = column_type.family
        if family is TypeFamily.INTEGER:
            low, high = column_type.integer_range()
            return Operand(value, Kind.NUMBER, literal=False, digits=(INTEGER_DIGITS[column_type.base.bits] + column_type.unsigned, 0), bounds=(low, high))
        if family is TypeFamily.DECIMAL:
            return Operand(value, Kind.NUMBER, literal=False, digits=decimal_digits(column_type), bounds=decimal_bounds(column_type))
        if family is TypeFamily.BIT:
            return Operand(value, Kind.NUMBER, literal=False, digits=(INTEGER_DIGITS[64] + 1, 0), bounds=(0, 2 ** (column_type.length or 1) - 1))
        if column_type.compares_exactly:
            raise Declined  # a _bin column: the Python keys fold case; DuckDB compares it exactly
        if family is TypeFamily.STRING and not column_type.json_check:  # MariaDB's JSON compares in utf8mb4_bin
            return Operand(value, Kind.TEXT, literal=False, collation=column_type.collation)
        if family in (TypeFamily.TIME, TypeFamily.YEAR):
            raise Declined  # DuckDB's, where check_temporal_uses guards how it reads them
        return Operand(value, Kind.OTHER, literal=False)

    def predicate(self, node: exp.Expression) -> Predicate:
        """A condition, in SQL's three-valued logic (None: UNKNOWN)."""
        if isinstance(node, exp.Paren):
            return self.predicate(node.this)
        if isinstance(node, exp.And):
            return _and(self.predicate(node.this), self.predicate(node.expression))
        if isinstance(node, exp.Or):
            return _or(self.predicate(node.this), self.predicate(node.expression))
        if isinstance(node, exp.Not):
            inner = self.predicate(node.this)
            return lambda row: None if (result := inner(row)) is None else not result
        if isinstance(node, exp.Is):
            if not isinstance(node.expression, exp.Null):
                raise Declined  # IS TRUE / IS FALSE
            tested = self.operand(node.this).value
            return lambda row: tested(row) is None
        if isinstance(node, exp.In):
            if node.args.get("query") is not None:
                return self._in_subquery(node)
            if node.args.get("unnest") is not None or node.args.get("field") is not None or not node.expressions:
                raise Declined
            left = self.operand(node.this)
            return _any([comparison(operator.eq, left, self.operand(item)) for item in node.expressions])
        function = lookup(node)
        if function is None or function.condition is None:
            raise Declined
        return function.condition(node, self)

    def _in_subquery(self, node: exp.In) -> Predicate:
        """`x IN (SELECT c FROM t ...)` over the values the subquery read beforehand, each
        typed as its column: an IN list of them."""
        query = node.args["query"]
        select = query.this if isinstance(query, exp.Subquery) else None
        read = self.subqueries.get(id(select))
        if select is None or read is None or len(select.expressions) != 1:
            raise Declined
        table, values = read
        column = Compiler([Source(select.args["from_"].this.alias_or_name, table)]).operand(select.expressions[0])
        left = self.operand(node.this)
        return _any([comparison(operator.eq, left, dataclasses.replace(column, value=lambda row, v=v: v)) for v in values])


def is_comparison(node: exp.Expression) -> bool:
    """A comparison operator the library compiles (=, <>, <, <=, >, >=)."""
    function = lookup(node)
    return function is not None and function.condition is not None


def _and(left: Predicate, right: Predicate) -> Predicate:
    def both(row: Values) -> bool | None:
        a = left(row)
        if a is False:
            return False
        b = right(row)
        if b is False:
            return False
        return None if a is None or b is None else True

    return both


def _or(left: Predicate, right: Predicate) -> Predicate:
    def either(row: Values) -> bool | None:
        a = left(row)
        if a is True:
            return True
        b = right(row)
        if b is True:
            return True
        return None if a is None or b is None else False

    return either


def _any(items: list[Predicate]) -> Predicate:
    def member(row: Values) -> bool | None:
        unknown = False
        for item in items:
            result = item(row)
            if result:
                return True
            unknown = unknown or result is None
        return None if unknown else False

    return member

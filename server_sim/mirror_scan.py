"""Single-table UPDATE and DELETE, the single-table SELECT an INSERT ... SELECT reads, and
the join of a multi-table UPDATE or DELETE, answered from the storage's mirror of the
tables' rows.

Asking DuckDB which rows a statement reaches, or what `v + 1` is for one row, costs half
a millisecond a statement. The conditions and SET expressions workloads mostly use
(`id = 3`, `v > 1`, `k IS NULL`, `s = 'a'`, `id IN (1, 2)`, `v = v + 1`) are evaluated
here in Python, exactly as the Translator's DuckDB SQL evaluates them: three-valued
logic, the columns' NOACCENT.NOCASE collation (ASCII text compares by its lower case),
MySQL's NULL order (NULL first ascending), ties in the engine's scan order. Whatever is
outside that subset, or cannot be told exactly (text beyond ASCII, a number compared
with a string, a result beyond the column type's range), is `Declined`, at compile or at
evaluation time, and DuckDB answers.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import TypeVar

from sqlglot import exp

from .catalog import Column, Table
from .errors import SqlError
from .expressions import HIDDEN_ROW_ID, function_name
from .types import TypeFamily


T = TypeVar("T")


class Declined(Exception):
    """Python cannot evaluate this exactly as DuckDB would: DuckDB answers instead."""


def _none_when_declined(function: Callable[..., T]) -> Callable[..., T | None]:
    """The function answering None where it declines: its caller asks DuckDB instead."""

    @functools.wraps(function)
    def answer(*arguments: object, **keywords: object) -> T | None:
        try:
            return function(*arguments, **keywords)
        except Declined:
            return None

    return answer


Values = tuple  # a row's values in the catalog's column order
# The translation of one node for this statement on this server (Translator.rewrite): a
# system or user variable, CURRENT_USER() and the like become the literal DuckDB is given.
Context = Callable[[exp.Expression], exp.Expression]
# Functions without arguments whose translation is a literal of the statement's context.
_CONTEXT_FUNCTIONS = frozenset({"USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_USER", "CONNECTION_ID", "DATABASE", "SCHEMA", "VERSION", "LAST_INSERT_ID", "FOUND_ROWS", "ROW_COUNT"})
# The values uncorrelated IN subqueries read, by their SELECT node's id: its table, and the
# value of its one column in each row it returns.
Subqueries = Mapping[int, tuple[Table, list[object]]]
Value = Callable[[Values], object]
Predicate = Callable[[Values], "bool | None"]  # None: SQL's UNKNOWN

# Decimal arithmetic without rounding (DECIMAL holds at most 38 digits).
_EXACT = decimal.Context(prec=80, traps=[decimal.Inexact, decimal.InvalidOperation])
# Digits DuckDB's DECIMAL holds: a comparison whose common type needs more leaves DECIMAL.
_DECIMAL_DIGITS = 38
# Digits before the point of each integer type as DuckDB stores it.
_INTEGER_DIGITS = {8: 3, 16: 5, 24: 10, 32: 10, 64: 19}


class _Kind(Enum):
    NUMBER = "number"  # int or Decimal
    DOUBLE = "double"  # float: RAND() and what is computed from it
    TEXT = "text"  # str, compared under the column's collation
    NULL = "null"
    OTHER = "other"  # a value that can be read, tested for NULL and assigned, not compared


@dataclass(frozen=True)
class _Operand:
    value: Value
    kind: _Kind
    literal: bool
    digits: tuple[int, int] = (0, 0)  # a number's (digits before the point, scale)
    bounds: tuple[object, object] | None = None  # the range arithmetic on it must stay in


def _text_key(text: str) -> str:
    """What ASCII text compares as under NOACCENT.NOCASE; other text is DuckDB's to compare."""
    if not text.isascii():
        raise Declined
    return text.lower()


@dataclass(frozen=True)
class Source:
    """A table as an expression sees it: the name it has there, and where its columns
    start in the row the expression is evaluated on (a join row holds several tables')."""

    alias: str
    table: Table
    offset: int = 0


class _Compiler:
    """Turns a MySQL expression tree over the columns of one table, or of the tables of a
    join, into Python closures; `used` collects the positions of the sources it read."""

    def __init__(
        self, sources: Sequence[Source], subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None, context: Context | None = None
    ) -> None:
        self.sources = sources
        self.subqueries = subqueries or {}
        self.rand = rand  # the server's RAND(): None declines it
        self.context = context  # None declines the context's values
        self.used: set[int] = set()

    # -- values -----------------------------------------------------------------------

    def operand(self, node: exp.Expression) -> _Operand:
        if isinstance(node, exp.Paren):
            return self.operand(node.this)
        if self.context is not None and is_context_value(node):
            return self._context_value(node)
        if isinstance(node, exp.Column):
            return self._column(node)
        if isinstance(node, exp.Null):
            return _Operand(lambda row: None, _Kind.NULL, literal=True)
        if isinstance(node, (exp.Literal, exp.Neg)):
            return _literal(node)
        if isinstance(node, (exp.Add, exp.Sub)):
            return self._arithmetic(node)
        if isinstance(node, (exp.Rand, exp.Mul, exp.Floor)):
            return self._double(node)
        raise Declined

    def _context_value(self, node: exp.Expression) -> _Operand:
        """The literal the translation gives a context value, typed as that literal; an
        error translating it (an unknown variable) is DuckDB's path to report, as before."""
        assert self.context is not None
        try:
            value = self.context(node)
        except SqlError:
            raise Declined from None
        if not isinstance(value, (exp.Literal, exp.Null, exp.Neg)):
            raise Declined  # a CAST (a float, a date) or a call: DuckDB's to evaluate
        return self.operand(value)

    def _double(self, node: exp.Rand | exp.Mul | exp.Floor) -> _Operand:
        """RAND(), `x * n` with an integer literal n and FLOOR(x), x a DOUBLE: the DOUBLE
        arithmetic DuckDB does, which is Python's float arithmetic. Every part is evaluated
        on every row, as DuckDB evaluates a whole vector, so RAND() is called once a row."""
        if isinstance(node, exp.Rand):
            rand = self.rand
            if rand is None or node.this is not None:
                raise Declined  # RAND(N) keeps a generator per call site in the server
            return _Operand(lambda row: rand(), _Kind.DOUBLE, literal=False)
        if isinstance(node, exp.Floor):
            inner = self.operand(node.this)
            if inner.kind is not _Kind.DOUBLE or node.args.get("decimals") is not None:
                raise Declined
            value = inner.value
            return _Operand(lambda row: None if (x := value(row)) is None else float(math.floor(x)), _Kind.DOUBLE, literal=False)
        left, right = self.operand(node.this), self.operand(node.expression)
        double, factor = (left, right) if left.kind is _Kind.DOUBLE else (right, left)
        if double.kind is not _Kind.DOUBLE or not _exact_in_double(factor) or not factor.literal:
            raise Declined
        first, second = left.value, right.value
        return _Operand(_both(operator.mul, first, second), _Kind.DOUBLE, literal=False)

    def _column(self, node: exp.Column) -> _Operand:
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
        column = source.table.columns[index]
        value = operator.itemgetter(source.offset + index)
        family = column.type.family
        if family is TypeFamily.INTEGER:
            low, high = column.type.integer_range()
            return _Operand(value, _Kind.NUMBER, literal=False, digits=(_INTEGER_DIGITS[column.type.base.bits] + column.type.unsigned, 0), bounds=(low, high))
        if family is TypeFamily.DECIMAL:
            return _Operand(value, _Kind.NUMBER, literal=False, digits=_decimal_digits(column), bounds=_decimal_bounds(column))
        if family is TypeFamily.STRING:
            return _Operand(value, _Kind.TEXT, literal=False)
        return _Operand(value, _Kind.OTHER, literal=False)

    def _arithmetic(self, node: exp.Add | exp.Sub) -> _Operand:
        """`x + n` / `x - n` / `n + x` with an integer literal n: the value of a column's
        type, declined where it would leave that type's range (DuckDB or the type's
        coercion then raises the server's error)."""
        left, right = self.operand(node.this), self.operand(node.expression)
        if right.literal and not left.literal:
            bounded, fixed = left, right
        elif left.literal and not right.literal and isinstance(node, exp.Add):
            bounded, fixed = right, left
        else:
            raise Declined
        if bounded.kind is not _Kind.NUMBER or bounded.bounds is None or fixed.kind is not _Kind.NUMBER or fixed.digits[1]:
            raise Declined
        low, high = bounded.bounds
        adding = isinstance(node, exp.Add)
        first, second = left.value, right.value

        def value(row: Values) -> object:
            a, b = first(row), second(row)
            if a is None or b is None:
                return None
            if isinstance(a, Decimal) or isinstance(b, Decimal):
                result = _EXACT.add(a, b) if adding else _EXACT.subtract(a, b)
            else:
                result = a + b if adding else a - b
            if not low <= result <= high:
                raise Declined
            return result

        whole, scale = bounded.digits
        return _Operand(value, _Kind.NUMBER, literal=False, digits=(whole + 1, scale), bounds=bounded.bounds)

    # -- conditions -------------------------------------------------------------------

    def predicate(self, node: exp.Expression) -> Predicate:
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
            return _any([_comparison(operator.eq, left, self.operand(item)) for item in node.expressions])
        compare = _COMPARISONS.get(type(node))
        if compare is None:
            raise Declined
        return _comparison(compare, self.operand(node.this), self.operand(node.expression))


    def _in_subquery(self, node: exp.In) -> Predicate:
        """`x IN (SELECT c FROM t ...)` over the values the subquery read beforehand, each
        typed as its column: an IN list of them."""
        query = node.args["query"]
        select = query.this if isinstance(query, exp.Subquery) else None
        read = self.subqueries.get(id(select))
        if select is None or read is None or len(select.expressions) != 1:
            raise Declined
        table, values = read
        column = _Compiler([Source(select.args["from_"].this.alias_or_name, table)]).operand(select.expressions[0])
        left = self.operand(node.this)
        return _any([_comparison(operator.eq, left, dataclasses.replace(column, value=lambda row, v=v: v)) for v in values])


_COMPARISONS: dict[type[exp.Expression], Callable[[object, object], bool]] = {
    exp.EQ: operator.eq,
    exp.NEQ: operator.ne,
    exp.LT: operator.lt,
    exp.LTE: operator.le,
    exp.GT: operator.gt,
    exp.GTE: operator.ge,
}


def _literal(node: exp.Expression) -> _Operand:
    """An integer, decimal or string literal (a negated number too); floats are DuckDB's."""
    negative = isinstance(node, exp.Neg)
    if negative:
        node = node.this
        if not isinstance(node, exp.Literal) or node.is_string:
            raise Declined
    assert isinstance(node, exp.Literal)
    text: str = node.this
    if node.is_string:
        return _Operand(lambda row: text, _Kind.TEXT, literal=True)
    whole, _, fraction = text.partition(".")
    if not whole.isdigit() or (fraction and not fraction.isdigit()) or len(whole) + len(fraction) > 18:
        raise Declined  # exponents, hex, or more digits than DuckDB keeps a decimal literal exact in
    number: int | Decimal = Decimal(text) if fraction or text.endswith(".") else int(text)
    if negative:
        number = -number
    return _Operand(lambda row: number, _Kind.NUMBER, literal=True, digits=(len(whole), len(fraction)))


def _decimal_digits(column: Column) -> tuple[int, int]:
    scale = column.type.scale or 0
    return (column.type.length or 10) - scale, scale


def _decimal_bounds(column: Column) -> tuple[Decimal, Decimal]:
    whole, scale = _decimal_digits(column)
    high = Decimal(10) ** whole - Decimal(1).scaleb(-scale)
    return (Decimal(0) if column.type.unsigned else -high), high


def _both(combine: Callable[[object, object], object], first: Value, second: Value) -> Value:
    """`combine` of two values, NULL if either is; both evaluated first, whatever the first is."""

    def value(row: Values) -> object:
        a, b = first(row), second(row)
        return None if a is None or b is None else combine(a, b)

    return value


def _exact_in_double(operand: _Operand) -> bool:
    """An integer that DuckDB turns into a DOUBLE exactly (fewer than 16 digits)."""
    return operand.kind is _Kind.NUMBER and operand.digits[1] == 0 and operand.digits[0] <= 15


def _comparison(compare: Callable[[object, object], bool], left: _Operand, right: _Operand) -> Predicate:
    """`left <op> right` under DuckDB's typing: numbers with numbers (where their common
    DECIMAL type holds both exactly), text with text of a collated column; NULL with anything;
    a DOUBLE with a DOUBLE or an integer, both sides evaluated on every row."""
    kinds = {left.kind, right.kind}
    first, second = left.value, right.value
    if _Kind.DOUBLE in kinds:
        if not all(side.kind is _Kind.DOUBLE or _exact_in_double(side) for side in (left, right)):
            raise Declined
        return _both(compare, first, second)
    if _Kind.NULL in kinds:
        return lambda row: None
    if left.literal and right.literal:
        raise Declined  # no column's collation or type decides
    if kinds == {_Kind.NUMBER}:
        whole = max(left.digits[0], right.digits[0])
        scale = max(left.digits[1], right.digits[1])
        if scale and whole + scale > _DECIMAL_DIGITS:
            raise Declined
        return lambda row: None if (a := first(row)) is None or (b := second(row)) is None else compare(a, b)
    if kinds == {_Kind.TEXT}:
        return lambda row: None if (a := first(row)) is None or (b := second(row)) is None else compare(_text_key(a), _text_key(b))
    raise Declined


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


# -- scans ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SortKey:
    index: int
    text: bool
    descending: bool = False


@dataclass(frozen=True)
class ScanPlan:
    """Which rows of one table a single-table UPDATE, DELETE or SELECT reaches, in which order."""

    condition: Predicate | None
    order: tuple[_SortKey, ...]  # ORDER BY, MySQL's NULL order
    physical: tuple[_SortKey, ...]  # the engine's scan order (InnoDB: primary key), then row id
    # UPDATE and DELETE order by ORDER BY, then scan order, then row id. A SELECT is ordered
    # by its ORDER BY alone, or by the scan order `Executor.in_scan_order` gives it: rows that
    # leaves unordered come in DuckDB's storage order, which the mirror's order follows (a
    # row an undone DELETE puts back comes last in both), and ORDER BY's ties, which DuckDB's
    # sort puts in an order of its own, are declined.
    by_row_id: bool = True

    def rows(self, mirrored: dict[int, Values], limit: int | None) -> list[tuple]:
        """(row id, *values) of the matching rows, as `Storage.rows` would give them."""
        condition = self.condition
        matched = [(row_id, values) for row_id, values in mirrored.items() if condition is None or condition(values) is True]
        physical = self.physical

        def scan_position(item: tuple[int, Values]) -> tuple:
            values = item[1]
            key = []
            for sort in physical:
                value = values[sort.index]
                if value is None:
                    raise Declined  # a primary key holds no NULL; DuckDB orders what it finds
                key.append(_text_key(value) if sort.text else value)
            if self.by_row_id:
                key.append(item[0])
            return tuple(key)

        matched.sort(key=scan_position)  # stable: a SELECT's rows stay in the mirror's order
        for sort in reversed(self.order):
            # Stable sorts, last key first; NULL is the smallest value (MySQL's order).
            matched.sort(key=lambda item, s=sort: _ordered_value(item[1][s.index], s.text), reverse=sort.descending)
        if self.order and not self.by_row_id:
            # Ties matter among the rows returned and at the LIMIT's edge.
            seen = matched if limit is None else matched[: limit + 1]
            keys = [tuple(_ordered_value(values[s.index], s.text) for s in self.order) for _, values in seen]
            if any(first == second for first, second in zip(keys, keys[1:])):
                raise Declined
        if limit is not None:
            matched = matched[:limit]
        return [(row_id, *values) for row_id, values in matched]


def _ordered_value(value: object, text: bool) -> tuple:
    if value is None:
        return (0,)
    return (1, _text_key(value) if text else value)  # type: ignore[arg-type]


def _sort_key(table: Table, name: str, descending: bool = False) -> _SortKey:
    index = table.column_index(name)
    family = table.columns[index].type.family
    if family not in (TypeFamily.INTEGER, TypeFamily.DECIMAL, TypeFamily.STRING):
        raise Declined
    return _SortKey(index, family is TypeFamily.STRING, descending)


@_none_when_declined
def table_scan(table: Table) -> ScanPlan:
    """Every row of the table in the engine's scan order, or None when DuckDB must order
    them (a primary key on a type compared here only for equality)."""
    return ScanPlan(None, (), tuple(_sort_key(table, name) for name in table.scan_order()))


def _compile_scan(
    ast: exp.Update | exp.Delete | exp.Select, table: Table, alias: str, subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None
) -> ScanPlan:
    where = ast.args.get("where")
    if rand is not None and where is not None and not _rand_once_per_row(where.this):
        rand = None
    compiler = _Compiler([Source(alias, table)], subqueries, rand)
    condition = compiler.predicate(where.this) if where is not None else None
    order: list[_SortKey] = []
    order_node = ast.args.get("order")
    for item in order_node.expressions if order_node is not None else []:
        if not isinstance(item, exp.Ordered) or not isinstance(item.this, exp.Column):
            raise Declined
        descending = bool(item.args.get("desc"))
        if bool(item.args.get("nulls_first")) == descending:
            raise Declined  # not MySQL's NULL order, which the translation keeps
        operand = compiler.operand(item.this)  # resolves the column as DuckDB would
        if operand.kind not in (_Kind.NUMBER, _Kind.TEXT):
            raise Declined
        order.append(_sort_key(table, item.this.name, descending))
    physical = tuple(_sort_key(table, name) for name in table.scan_order())
    return ScanPlan(condition, tuple(order), physical, by_row_id=not isinstance(ast, exp.Select))


# Compiled plans by statement tree and table: a statement's parse is shared by the servers
# that run its text, and each scans with it. The tree and the table stay referenced, so
# their ids are not reused while an entry lives; an ALTER gives the table new column and
# key lists, which the entry checks.
_PLANS: dict[tuple[int, int], tuple[exp.Expression, Table, list, list, object]] = {}
_PLANS_LIMIT = 2048


def _cached(ast: exp.Expression, table: Table, compile_plan: Callable[[], object]) -> object:
    """The plan compiled for this tree and table (None: declined), compiled on first use."""
    key = (id(ast), id(table))
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is ast and cached[1] is table and cached[2] is table.columns and cached[3] is table.keys:
        return cached[4]
    try:
        plan = compile_plan()
    except Declined:
        plan = None
    if len(_PLANS) >= _PLANS_LIMIT:
        _PLANS.clear()
    _PLANS[key] = (ast, table, table.columns, table.keys, plan)
    return plan


def _rand_once_per_row(condition: exp.Expression) -> bool:
    """Whether DuckDB calls RAND() exactly once for each row the condition is tested on: it
    is one comparison with one RAND() in it. AND, OR, NOT and IN lists are left to DuckDB,
    which may reorder or skip their parts for some rows."""
    while isinstance(condition, exp.Paren):
        condition = condition.this
    return type(condition) in _COMPARISONS and len(list(condition.find_all(exp.Rand))) == 1


def scan_plan(
    ast: exp.Update | exp.Delete, table: Table, alias: str, subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None
) -> ScanPlan | None:
    """The compiled scan of a single-table UPDATE or DELETE, or None when DuckDB must run it.
    A condition with subqueries or RAND(), whose values are this run's, is compiled for this
    run; `rand` is the server's RAND()."""
    if subqueries or rand is not None:
        return _none_when_declined(_compile_scan)(ast, table, alias, subqueries, rand)
    return _cached(ast, table, lambda: _compile_scan(ast, table, alias))  # type: ignore[return-value]


# -- SET values -------------------------------------------------------------------------


@dataclass(frozen=True)
class RowValues:
    """SET expressions of one statement, evaluated against one row's values."""

    values: tuple[Value, ...]

    def of(self, row: Values) -> list[object]:
        return [value(row) for value in self.values]


@_none_when_declined
def row_values(
    expressions: Sequence[exp.Expression], table: Table | None, alias: str = "", rand: Callable[[], float] | None = None, context: Context | None = None
) -> RowValues:
    """The compiled SET expressions (or, without a table, a VALUES row's), evaluated left
    to right, or None when DuckDB must evaluate them; `rand` is the server's RAND()."""
    compiler = _Compiler([Source(alias, table)] if table is not None else [], rand=rand, context=context)
    return RowValues(tuple(compiler.operand(expression).value for expression in expressions))


# -- single-table SELECT ----------------------------------------------------------------

# The parts a SELECT answered here may have; any other (DISTINCT, GROUP BY, joins, OFFSET,
# locking clauses, hints, ...) is DuckDB's.
_SELECT_PARTS = frozenset({"expressions", "from_", "where", "order", "limit"})


@dataclass(frozen=True)
class SelectPlan:
    """A single-table SELECT: the rows it reads, in the order it returns them, and its values."""

    scan: ScanPlan
    items: RowValues
    limit: int | None

    def rows(self, mirrored: dict[int, Values]) -> list[list[object]]:
        return [self.items.of(row[1:]) for row in self.scan.rows(mirrored, self.limit)]


def select_source(query: exp.Expression) -> exp.Table | None:
    """The one catalog table a SELECT reads, where it has no other part than a select list,
    WHERE, ORDER BY and a constant LIMIT; else None."""
    if not isinstance(query, exp.Select) or _other_parts(query, _SELECT_PARTS):
        return None
    source = query.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier) or _other_parts(node, {"this", "db", "alias"}):
        return None
    alias = node.args.get("alias")
    if alias is not None and alias.columns:
        return None
    return node


def _other_parts(node: exp.Expression, parts: frozenset[str] | set[str]) -> bool:
    """Whether the node has a part besides `parts` (sqlglot keeps absent parts as None)."""
    return any(value for name, value in node.args.items() if name not in parts)


def is_context_value(node: exp.Expression) -> bool:
    """A system or user variable, or a function of the statement's context without arguments."""
    if isinstance(node, (exp.SessionParameter, exp.Parameter)):
        return True
    return function_name(node) in _CONTEXT_FUNCTIONS and not any(isinstance(value, exp.Expression) for value in node.args.values())


def select_plan(query: exp.Select, table: Table, context: Context | None = None) -> SelectPlan | None:
    """The compiled SELECT over `table` (its `select_source`), or None when DuckDB must run it.
    One that reads context values, which are this run's, is compiled for this run."""
    if context is not None and any(is_context_value(node) for node in query.walk()):
        return _none_when_declined(_compile_select)(query, table, context)
    return _cached(query, table, lambda: _compile_select(query, table))  # type: ignore[return-value]


def _compile_select(query: exp.Select, table: Table, context: Context | None = None) -> SelectPlan:
    node = query.args["from_"].this
    compiler = _Compiler([Source(node.alias_or_name, table)], context=context)
    items: list[Value] = []
    for item in query.expressions:
        if isinstance(item, exp.Star):
            items.extend(operator.itemgetter(index) for index in range(len(table.columns)))
        else:
            items.append(compiler.operand(item).value)  # an Alias is declined: ORDER BY could mean it
    limit_node = query.args.get("limit")
    limit = None
    if limit_node is not None:
        count = limit_node.expression
        if _other_parts(limit_node, {"expression"}) or not isinstance(count, exp.Literal) or count.is_string or not count.this.isdigit():
            raise Declined
        limit = int(count.this)
    return SelectPlan(_compile_scan(query, table, node.alias_or_name), RowValues(tuple(items)), limit)


# -- multi-table joins ------------------------------------------------------------------

# Join rows beyond which a nested loop in Python costs more than DuckDB's join.
_JOIN_ROWS_LIMIT = 20_000


@dataclass(frozen=True)
class Joined:
    """A table of a multi-table statement's FROM clause, in the order written."""

    alias: str
    table: Table
    on: exp.Expression | None = None  # the ON of the join that brings it in
    outer: bool = False  # brought in by LEFT JOIN


@_none_when_declined
def join_rows(
    tables: Sequence[Joined],
    order: Sequence[int],
    where: exp.Expression | None,
    targets: Sequence[int],
    expressions: Sequence[exp.Expression],
    mirrored: Sequence[dict[int, Values]],
) -> list[tuple]:
    """The rows of the join that `multi_table` asks DuckDB for, from the mirrors: per join
    row each table's row id (None for a LEFT JOIN's missing row), the columns of the
    `targets`, then `expressions`; ordered by the tables' scan orders, table after table
    in join `order` (positions in `tables`), as a nested loop reads them. None when the
    tables, conditions or expressions leave the subset evaluated here."""
    sources, offset = [], 0
    for table in tables:
        sources.append(Source(table.alias, table.table, offset))
        offset += len(table.table.columns)
    if math.prod(len(rows) + 1 for rows in mirrored) > _JOIN_ROWS_LIMIT:
        raise Declined
    compiler = _Compiler(sources)
    # An inner join's ON filters the finished join row as WHERE does; an outer join's is
    # tested as its table is reached, on the tables before it (any other is DuckDB's case).
    filters = [compiler.predicate(where)] if where is not None else []
    level_tests: dict[int, Predicate] = {}
    for position, table in enumerate(tables):
        if table.on is None:
            continue
        compiler.used = set()
        test = compiler.predicate(table.on)
        if not table.outer:
            filters.append(test)
        elif compiler.used <= set(range(position + 1)) and list(order) == list(range(len(tables))):
            level_tests[position] = test
        else:
            raise Declined
    values = [compiler.operand(expression).value for expression in expressions]
    scans = []
    for position in order:
        plan = table_scan(tables[position].table)
        if plan is None:
            raise Declined
        scans.append([(row_id, tuple(values)) for row_id, *values in plan.rows(mirrored[position], None)])
    missing = [tuple(None for _ in table.table.columns) for table in tables]
    parts: list[tuple[int | None, Values]] = [(None, row) for row in missing]
    result: list[tuple] = []

    def flat() -> Values:
        return tuple(value for _, row in parts for value in row)

    def walk(level: int) -> None:
        if level == len(order):
            row = flat()
            if all(test(row) is True for test in filters):
                result.append((*(row_id for row_id, _ in parts), *(value for target in targets for value in parts[target][1]), *(value(row) for value in values)))
            return
        position = order[level]
        test = level_tests.get(position)
        reached = False
        for item in scans[level]:
            parts[position] = item
            if test is None or test(flat()) is True:
                reached = True
                walk(level + 1)
        if tables[position].outer and not reached:
            parts[position] = (None, missing[position])
            walk(level + 1)
        parts[position] = (None, missing[position])

    walk(0)
    return result

"""A stored function's arguments and result stored in their parameters' and RETURNS types,
as the server stores them in the routine's fields (sp_rcontext::set_return_value ->
sp_eval_expr -> Field::store): a string too long for VARCHAR(n) is 1406, a number outside
TINYINT 1264, as a column's value is in strict mode (the only sql_mode the simulator runs;
outside it the servers store the value cut to fit, with a warning). An error of the result
is the routine's: MariaDB follows it with Note 4094 naming the function and the line of its
RETURN (an argument's error comes before the body runs, without the note).

The executor puts `stored_as(expr, slot)` where it inlines a function whose body is
`RETURN expr`, around each argument and around the result. The call is a node scenario SQL
cannot write: its library entry answers only a node the executor marked (`MARK` in its
meta), and a call of its name that a statement spells out is an unknown function (1305).
Both evaluators run the one implementation: the fast path calls `Slot.store`, DuckDB the
same registered like every native (native.py), its error carried back in the text DuckDB
gives it (carried.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from sqlglot import exp

from ..declined import Declined
from ..errors import Condition, ErrorCode, SqlError, not_supported, note
from ..flavor import Flavor
from ..operands import Kind, Operand, Values
from ..types import ColumnType, TypeFamily, value_text
from .carried import SEPARATOR, RoutineError, carried
from .library import Compiling, SqlFunction, Translating
from .native import NATIVES, TEXT, Native
from .unmodelled import Unmodelled

# The call's name: one that a scenario can only write quoted, and is refused there.
RESULT_CALL = "rpl returned"
MARK = "rpl_returns"  # the meta key holding the call's Slot, as its spec text
_DUCKDB_NAME = "rpl_fn_returned"
def stack_trace(error: SqlError, flavor: Flavor) -> list[Condition]:
    """The notes that follow a stored function's error: MariaDB's "At line N in db.f"."""
    if not isinstance(error, RoutineError) or not flavor.routine_error_line_note:
        return []
    return [note(ErrorCode.ER_SP_STACK_TRACE, error.line, error.routine)]


@dataclass(frozen=True)
class Slot:
    """Where a stored function keeps a value: a parameter or its result (`line` > 0: the line
    of its RETURN, whose error is the routine's), of `type`, in `routine` (db.name).
    `errors` False: a value that does not fit is the server's warning, not modelled (MySQL
    under IGNORE)."""

    type: ColumnType
    column: str
    routine: str
    line: int = 0
    errors: bool = True

    def spec(self) -> str:
        kind = self.type
        fields = (kind.name, "1" if kind.unsigned else "", _optional(kind.length), _optional(kind.scale))
        return SEPARATOR.join((*fields, self.column, self.routine, str(self.line), "1" if self.errors else ""))

    def store(self, value: object) -> object:
        """The value as the slot holds it, or the error (Unmodelled where not modelled)."""
        try:
            held = self.type.coerce(value, self.column)
        except SqlError as error:
            if not self.errors:
                raise Unmodelled(f"{self.routine}() given or returning a value its {self.column} does not hold, in an IGNORE statement or outside strict mode (the server stores it cut, with a warning)") from None
            raise RoutineError(error, self.routine, self.line) if self.line else error from None
        if self.type.family is TypeFamily.DECIMAL and held is not None and _number(value) != held:
            raise Unmodelled(f"{self.routine}() {self.column} {value} rounded to {self.type.sql} (the server's Note 1265)")
        return held


def _optional(number: int | None) -> str:
    return "" if number is None else str(number)


@lru_cache(maxsize=256)
def slot_of(spec: str) -> Slot:
    name, unsigned, length, scale, column, routine, line, errors = spec.split(SEPARATOR)
    kind = ColumnType(name, bool(unsigned), int(length) if length else None, int(scale) if scale else None)
    return Slot(kind, column, routine, int(line), bool(errors))


def stored_as(tree: exp.Expression, slot: Slot) -> exp.Expression:
    """The call that stores `tree`'s value in `slot`."""
    if slot.type.family is TypeFamily.BINARY:
        raise not_supported(f"stored function {slot.routine}() with {slot.column} of {slot.type.sql} (a binary string)")
    call = exp.Anonymous(this=RESULT_CALL, expressions=[tree])
    call.meta[MARK] = slot.spec()
    return call


def stored_type(node: exp.Expression) -> ColumnType | None:
    """The type a `stored_as` call stores its value in (None: `node` is no such call)."""
    spec = node.meta.get(MARK) if isinstance(node, exp.Anonymous) and node.meta else None
    return slot_of(spec).type if spec is not None else None


def stored(value: object, slot: Slot) -> object:
    """`Slot.store` for a Python caller: what the simulator does not model is 1235 naming it."""
    try:
        return slot.store(value)
    except Unmodelled as error:
        raise not_supported(error.what) from None


def _number(value: object) -> object:
    """A number as an exact Decimal, to tell whether storing it rounded it."""
    try:
        return Decimal(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else Decimal(repr(value)) if isinstance(value, float) else value
    except InvalidOperation:
        return value


# DuckDB's type of the value (typeof) -> how its VARCHAR text reads back as the value.
_FROM_TEXT = {"BOOLEAN": lambda text: int(text == "true"), "DOUBLE": float, "FLOAT": float, "REAL": float, "VARCHAR": str,
              "DATE": dt.date.fromisoformat, "TIMESTAMP": dt.datetime.fromisoformat}
_INTEGERS = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"})


def value_of_text(text: str, duckdb_type: str) -> object:
    """A value DuckDB gave as text, with its DuckDB type (typeof), as the Python value."""
    if duckdb_type in _INTEGERS:
        return int(text)
    if duckdb_type.startswith("DECIMAL"):
        return Decimal(text)
    if duckdb_type in _FROM_TEXT:
        return _FROM_TEXT[duckdb_type](text)
    raise Unmodelled(f"a stored function given or returning a value of DuckDB type {duckdb_type}")


def _from_duckdb(text: str, duckdb_type: str, spec: str) -> str:
    """DuckDB's call: the value (as text, with its DuckDB type) stored, as text again."""
    value = value_of_text(text, duckdb_type)
    try:
        return value_text(slot_of(spec).store(value))
    except SqlError as error:
        raise carried(error) from None


_NATIVE = Native(_DUCKDB_NAME, _from_duckdb, (TEXT, TEXT, TEXT), TEXT)
NATIVES[_DUCKDB_NAME] = _NATIVE


def _marked(node: exp.Expression) -> tuple[exp.Expression, str] | None:
    """The value and spec of the executor's call; None for a call scenario SQL wrote."""
    spec = node.meta.get(MARK) if node.meta else None
    return None if spec is None else (node.expressions[0], spec)


def _translate(node: exp.Expression, translation: Translating) -> exp.Expression:
    marked = _marked(node)
    if marked is None:  # `rpl returned`(...) in a statement: no function of the server's
        raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{translation.context.database}.{node.name}")
    tree, spec = marked
    value = translation.rewrite(tree.copy())  # the value stored into the RETURNS type, apart from the statement
    text = exp.cast(value.copy(), exp.DataType.build("VARCHAR", dialect="duckdb"))
    typed = exp.Anonymous(this="typeof", expressions=[value])
    call = exp.Anonymous(this=_DUCKDB_NAME, expressions=[text, typed, exp.Literal.string(spec)])
    returns = slot_of(spec).type
    return exp.Cast(this=call, to=exp.DataType.build(returns.sql, dialect="mysql"))


_KINDS = {TypeFamily.STRING: Kind.TEXT, TypeFamily.INTEGER: Kind.NUMBER, TypeFamily.DECIMAL: Kind.NUMBER}


def _evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
    marked = _marked(node)
    if marked is None:
        raise Declined  # DuckDB's translation refuses it
    tree, spec = marked
    slot = slot_of(spec)
    returns = slot.type
    kind = _KINDS.get(returns.family)
    if kind is None:
        raise Declined  # DuckDB's typing of a float or temporal result: its path
    argument = compiler.operand(tree)
    if argument.kind is Kind.DOUBLE:
        raise Declined
    found = argument.value

    def value(row: Values) -> object:
        return stored(found(row), slot)

    digits = ((returns.length or 10) - (returns.scale or 0), returns.scale or 0) if returns.family is TypeFamily.DECIMAL else (20, 0)
    return Operand(value, kind, literal=False, digits=digits if kind is Kind.NUMBER else (0, 0))


STORED_RESULT = (SqlFunction(names=(RESULT_CALL.upper(),), duckdb=_translate, python=_evaluate),)

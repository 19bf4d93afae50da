"""Division and its remainder: `/`, DIV, MOD and `%`, with the server's division by zero.

A divisor of 0 makes the result NULL (a NULL dividend: NULL, nothing else). Under a
sql_mode with ERROR_FOR_DIVISION_BY_ZERO the server also raises condition 1365, a
warning the statement's strictness may turn into its error (Item_func::
signal_divide_by_null; MySQL's Strict_error_handler, MariaDB's abort_on_warning): the
translation calls the server (`rpl_division_by_zero`), which keeps the condition for the
statement's handler to settle row by row (server_sim/execute/division_settling.py).
Where DuckDB may evaluate a division for rows the server never reads (a WHERE, ON, HAVING
or ORDER BY, or a query with LIMIT: the server's access path decides), a division by zero
that would raise the condition is refused with 1235 when it happens.

`/` of exact numbers is a DECIMAL (exact_division.py). DIV truncates toward zero whatever
the operands' types (DECIMAL arithmetic, BIGINT result); MOD keeps the dividend's sign, as
DuckDB's `%` does.
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import not_supported
from .context import GENERATORS
from .exact_division import exact_average, exact_quotient, quotient
from .library import SqlFunction, Translating
from .server_state import SERVER_CALLS

DIVISION_BY_ZERO_CALL = "rpl_division_by_zero"
# The meta key marking a division DuckDB may evaluate for rows the server does not read.
UNCERTAIN = "rpl_division_rows_uncertain"
# Where an expression is evaluated for the rows the server's access path reads.
_ROW_SELECTING = (exp.Where, exp.Having, exp.Join, exp.Order, exp.Limit, exp.Offset)
_NODES = (exp.Div, exp.IntDiv, exp.Mod)
# Calls whose value changes from call to call: a division by a value that may be zero
# evaluates its operands twice, so it may not call one.
_PER_CALL = frozenset({*GENERATORS, *SERVER_CALLS})


def mark_uncertain_divisions(tree: exp.Expression, whole: bool = False) -> None:
    """Mark each division of `tree` that DuckDB may evaluate for rows the server does not
    read (`whole`: the tree is such a condition itself); the mark travels with copies."""
    for node in tree.find_all(*_NODES):
        if whole or _rows_uncertain(node):
            node.meta[UNCERTAIN] = True


def _rows_uncertain(node: exp.Expression) -> bool:
    for ancestor in _ancestors(node):
        if isinstance(ancestor, _ROW_SELECTING):
            return True
        if isinstance(ancestor, (exp.Select, exp.Union)) and (ancestor.args.get("limit") is not None or ancestor.args.get("offset") is not None):
            return True
    return False


def _ancestors(node: exp.Expression) -> list[exp.Expression]:
    found = []
    parent = node.parent
    while parent is not None:
        found.append(parent)
        parent = parent.parent
    return found


def _nonzero_number(node: exp.Expression) -> bool:
    """A numeric literal other than 0: the division needs no check."""
    if isinstance(node, exp.Paren):
        return _nonzero_number(node.this)
    if isinstance(node, exp.Neg):
        return _nonzero_number(node.this)
    if not isinstance(node, exp.Literal) or node.is_string:
        return False
    try:
        return float(node.this) != 0
    except ValueError:
        return False


def _calls_per_call_function(tree: exp.Expression) -> bool:
    return any(isinstance(node, exp.Anonymous) and node.name in _PER_CALL for node in tree.walk())


def _division_call(node: exp.Expression, translation: Translating) -> exp.Expression:
    dividend, divisor = translation.rewrite(node.this), translation.rewrite(node.expression)
    per_call = _calls_per_call_function(dividend) or _calls_per_call_function(divisor)
    flavor = translation.context.flavor
    computed = quotient(node, translation.column_type, bool(node.meta.get(UNCERTAIN)), flavor.quotient_at_declared_scale) if isinstance(node, exp.Div) else None
    if isinstance(node, exp.IntDiv):
        result = _truncated_quotient(dividend, divisor, per_call)
    elif computed is not None:
        result = exact_quotient(dividend.copy(), divisor.copy(), computed)
    else:
        result = node.copy()
        result.set("this", dividend)
        result.set("expression", divisor)
    if _nonzero_number(node.expression):
        return result
    if per_call:
        raise not_supported(f"a division whose operands call a function that changes from call to call ({node.sql(dialect='mysql')!r}) by a value that may be 0")
    on_zero: exp.Expression = exp.Null()
    if translation.context.division_by_zero_warns:
        refusal = _UNCERTAIN_REFUSAL if node.meta.get(UNCERTAIN) else ""
        raised = exp.Anonymous(this=DIVISION_BY_ZERO_CALL, expressions=[exp.Literal.string(refusal)])
        on_zero = exp.Case(ifs=[exp.If(this=exp.Is(this=dividend.copy(), expression=exp.Null()), true=exp.Null())], default=raised)
    zero = exp.EQ(this=divisor.copy(), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=zero, true=on_zero)], default=result)


_UNCERTAIN_REFUSAL = "a division by zero raising 1365 where the server may not evaluate it (a WHERE, ON, HAVING, ORDER BY or a query with LIMIT reads the rows its access path chooses)"


def _truncated_quotient(dividend: exp.Expression, divisor: exp.Expression, per_call: bool) -> exp.Expression:
    """a DIV b: the quotient truncated toward zero, a BIGINT. DuckDB's `//` divides DECIMAL
    and DOUBLE operands without truncating: the dividend loses its remainder first (exact),
    or, where an operand may be evaluated once only, the DOUBLE quotient is truncated."""
    if per_call:
        quotient: exp.Expression = exp.Trunc(this=exp.Div(this=dividend, expression=divisor))
    else:
        whole = exp.Sub(this=dividend.copy(), expression=exp.Mod(this=dividend.copy(), expression=divisor.copy()))
        quotient = exp.IntDiv(this=exp.Paren(this=whole), expression=divisor.copy())
    return exp.cast(quotient, exp.DataType.build("BIGINT"))


def _average_call(node: exp.Expression, translation: Translating) -> exp.Expression:
    """AVG(x) of an exact x: the server's DECIMAL quotient (exact_division.py)."""
    assert isinstance(node, exp.Avg)
    return average(node, translation, None)


def average(node: exp.Avg, translation: Translating, window: exp.Window | None) -> exp.Expression:
    """AVG as the server computes it, over `window`'s rows if it is a window function's."""
    computed = quotient(node, translation.column_type, declared_scale_read=translation.context.flavor.quotient_at_declared_scale)
    argument = node.this.expressions[0] if isinstance(node.this, exp.Distinct) else node.this
    translated = translation.rewrite(argument)
    if computed is None:
        result = node.copy()
        result.set("this", exp.Distinct(expressions=[translated]) if isinstance(node.this, exp.Distinct) else translated)
    if window is not None:
        window = window.copy()
        window.set("partition_by", [translation.rewrite(item) for item in window.args.get("partition_by") or []])
        if window.args.get("order") is not None:
            window.set("order", translation.rewrite(window.args["order"]))
    if computed is None:
        if window is None:
            return result
        window.set("this", result)
        return window
    return exact_average(node, translated, computed, window)


DIVISION: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=_NODES, duckdb=_division_call, keeps_node=True),
    SqlFunction(nodes=(exp.Avg,), duckdb=_average_call, keeps_node=True),
)

"""What one MySQL function (or operator) is to the simulator, and the two evaluators' view of it.

An entry says how the DuckDB translation renders a call (`duckdb`; None: sqlglot's DuckDB
rendering already evaluates it as MySQL does) and how the fast path evaluates it in Python
(`python` for a value, `condition` for a comparison; None: the fast path declines and DuckDB
evaluates it). Both evaluators look entries up by the call's node, so a function's two
implementations, and the MySQL semantics they share (NULL in, NULL out; the statement's
context; the server's generators), are written side by side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sqlglot import exp

from ..errors import ErrorCode, SqlError
from .statement import StatementContext

if TYPE_CHECKING:
    from ..operands import Context, Operand, Predicate
    from ..types import ColumnType


class Translating(Protocol):
    """What a DuckDB translation of a call may use: the statement's context, a number
    for each call site that keeps a generator of its own (RAND(N)), and the translation of
    an argument (a call's replacement is not translated further on its own), the
declared type of a column of the statement's tables (None: none, or not one type) and a
string literal compared under the connection's collation."""

    context: StatementContext

    def next_rand_site(self) -> int: ...

    def rewrite(self, tree: exp.Expression) -> exp.Expression: ...

    def column_type(self, column: exp.Column) -> ColumnType | None: ...

    def connection_collated(self, literal: exp.Literal, pads: bool) -> exp.Expression: ...


class Compiling(Protocol):
    """What a fast-path implementation may use: the compiled operands of its arguments, the
    server's RAND() (None: declined) and the statement's translation (None: declined)."""

    rand: Callable[[], float] | None
    context: Context | None

    def operand(self, node: exp.Expression) -> Operand: ...


# The syntax every evaluator understands on its own: no function call, nothing to look up.
STRUCTURE: tuple[type[exp.Expression], ...] = (
    exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.Star, exp.Paren,
    exp.Neg, exp.Not, exp.And, exp.Or, exp.Xor, exp.Add, exp.Sub, exp.Mul,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.Is, exp.In,
    exp.Between, exp.Like, exp.Subquery, exp.Select, exp.From, exp.Where, exp.Join, exp.Table,
    exp.TableAlias, exp.Alias, exp.Order, exp.Ordered, exp.Limit, exp.Offset, exp.Group,
    exp.Having, exp.Distinct, exp.Exists, exp.DataType, exp.DataTypeParam, exp.If, exp.Interval,
    exp.Var, exp.Tuple, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor, exp.DPipe, exp.Union,
    exp.Lock,
)

Translate = Callable[[exp.Expression, Translating], exp.Expression]
Compile = Callable[[exp.Expression, Compiling], "Operand"]
CompileCondition = Callable[[exp.Expression, Compiling], "Predicate"]


@dataclass(frozen=True)
class SqlFunction:
    """One MySQL function or operator the simulator evaluates.

    `names` are the MySQL names a call may have (sqlglot leaves most server functions
    unnamed, exp.Anonymous), `nodes` the typed sqlglot nodes that stand for it. A
    `from_context` function's value is fixed for the statement and read from its context
    (StatementContext); the fast path compiles a statement reading one for that run only.
    """

    names: tuple[str, ...] = ()
    nodes: tuple[type[exp.Expression], ...] = ()
    duckdb: Translate | None = None
    python: Compile | None = None
    condition: CompileCondition | None = None
    from_context: bool = False
    keeps_node: bool = False  # `duckdb` may give the node back as it is, for DuckDB's rendering

    @property
    def portable(self) -> bool:
        """sqlglot's DuckDB rendering of the node is the translation (no rewrite), always or
        where `duckdb` gives the node back."""
        return self.duckdb is None or self.keeps_node


_MYSQL_NAMES: dict[type[exp.Expression], str] = {}


def mysql_name(node: exp.Func) -> str:
    """The name MySQL gives a function sqlglot knows by a node of its own (TRUNCATE for
    exp.Trunc, LOCATE for exp.StrPosition): the name its MySQL rendering calls, worked out
    once per node type; sqlglot's own name where the rendering is no call."""
    name = _MYSQL_NAMES.get(type(node))
    if name is None:
        rendered = node.sql(dialect="mysql")
        head, parenthesis, _ = rendered.partition("(")
        name = head.upper() if parenthesis and head.replace("_", "").isalnum() else node.sql_name().upper()
        _MYSQL_NAMES[type(node)] = name
    return name


def refuse_if_missing(name: str, node: exp.Expression, translation: Translating) -> None:
    """A server function the flavor's product does not have: a call is 1305, as for any
    function nobody defined."""
    if name in translation.context.flavor.missing_functions:
        raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{translation.context.database}.{node.name}")


def arguments_of(node: exp.Expression) -> list[exp.Expression]:
    """The argument nodes of a call, whichever of sqlglot's slots hold them."""
    return [argument for argument in node.args.values() if isinstance(argument, exp.Expression)]

"""Translate MySQL expressions into DuckDB SQL that runs on one simulated server.

Functions whose value is fixed for the statement (NOW(), USER(), LAST_INSERT_ID(),
@user_var, @@sysvar ...) become literals taken from the executing server's context; those
that change per call (UUID(), SYSDATE(), RAND()) become calls into that server's own
generators, registered in its DuckDB connection. Anything not listed here is refused, so
a scenario never runs DuckDB-only SQL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import sqlglot
from sqlglot import exp

from .errors import ErrorCode, SqlError, not_supported
from .udf import Udf

# Deterministic sqlglot function nodes whose DuckDB rendering matches MySQL closely enough.
_PORTABLE_FUNCTIONS: tuple[type[exp.Expression], ...] = (
    exp.Abs, exp.Avg, exp.Ceil, exp.Coalesce, exp.Concat, exp.ConcatWs, exp.Count, exp.Floor,
    exp.Greatest, exp.If, exp.Least, exp.Left, exp.Length, exp.Lower, exp.Max, exp.Min,
    exp.Nullif, exp.Pad, exp.Pow, exp.Right, exp.Round, exp.Sign, exp.Sqrt, exp.Substring,
    exp.Sum, exp.Trim, exp.Upper, exp.Case, exp.Cast, exp.Mod, exp.Repeat, exp.Reverse, exp.Ln,
    exp.Exp, exp.StrPosition, exp.DateAdd, exp.DateSub, exp.Year, exp.Month, exp.Day,
    exp.GroupConcat,
)

_STRUCTURE: tuple[type[exp.Expression], ...] = (
    exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.Star, exp.Paren,
    exp.Neg, exp.Not, exp.And, exp.Or, exp.Xor, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.Is, exp.In,
    exp.Between, exp.Like, exp.Subquery, exp.Select, exp.From, exp.Where, exp.Join, exp.Table,
    exp.TableAlias, exp.Alias, exp.Order, exp.Ordered, exp.Limit, exp.Offset, exp.Group,
    exp.Having, exp.Distinct, exp.Exists, exp.DataType, exp.DataTypeParam, exp.If, exp.Interval,
    exp.Var, exp.Tuple, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor, exp.DPipe, exp.Union,
    exp.Lock,
)

# Nodes that are no named function call of their own (function_name gives them no name).
_UNNAMED = _PORTABLE_FUNCTIONS + _STRUCTURE

# Per-call functions: each becomes a call to a generator registered by the server.
PER_CALL_FUNCTIONS = {"UUID": "rpl_uuid", "UUID_SHORT": "rpl_uuid_short", "SYSDATE": "rpl_sysdate"}
_USER_FUNCTIONS = {"USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_USER"}
_NOW_FUNCTIONS = {"NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP"}
# The storage's per-row identity column: never visible to scenario SQL.
HIDDEN_ROW_ID = "_rpl_row"
_DATE_FUNCTIONS = {"CURDATE", "CURRENT_DATE", "UTC_DATE"}
_TIME_FUNCTIONS = {"CURTIME", "CURRENT_TIME", "UTC_TIME"}
# Every server function sqlglot leaves unnamed (exp.Anonymous) that the simulator evaluates
# (the translator, and the executor for ON DUPLICATE KEY UPDATE's VALUES(col)); any other
# unnamed call is a loadable function (UDF).
_SERVER_FUNCTIONS = frozenset(
    {
        *PER_CALL_FUNCTIONS, *_USER_FUNCTIONS, *_NOW_FUNCTIONS, *_DATE_FUNCTIONS, *_TIME_FUNCTIONS,
        "UNIX_TIMESTAMP", "CONNECTION_ID", "LAST_INSERT_ID", "FOUND_ROWS", "ROW_COUNT", "VERSION",
        "DATABASE", "SCHEMA", "SLEEP", "RAND", "VALUES",
    }
)


def is_udf_call(node: exp.Expression) -> bool:
    """A call of a function the server does not define: a UDF, if one is loaded."""
    return isinstance(node, exp.Anonymous) and node.name.upper() not in _SERVER_FUNCTIONS


@dataclass
class StatementContext:
    """What a statement's fixed-per-statement functions read, on the server that runs it.

    On the master these come from the session; on the slave from the events that precede
    a statement (timestamp, Intvar, User_var, thread id).
    """

    timestamp: dt.datetime
    user: str
    thread_id: int
    database: str
    version: str
    last_insert_id: int = 0
    found_rows: int = 0
    row_count: int = -1
    user_variables: dict[str, object] = field(default_factory=dict)
    system_variable: Callable[[str, str | None], object] = lambda name, scope: None
    udfs: Mapping[str, Udf] = field(default_factory=dict)  # the server's loadable functions


def literal(value: object) -> exp.Expression:
    """A DuckDB literal for a Python value."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Literal.number(int(value))
    if isinstance(value, (int, Decimal)):
        return exp.Literal.number(str(value))
    if isinstance(value, float):
        return exp.cast(exp.Literal.number(repr(value)), exp.DataType.build("DOUBLE"))
    if isinstance(value, dt.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), exp.DataType.build("TIMESTAMP"))
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.build("DATE"))
    if isinstance(value, dt.time):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.build("TIME"))
    if isinstance(value, bytes):
        return exp.Anonymous(this="from_hex", expressions=[exp.Literal.string(value.hex())])
    return exp.Literal.string(str(value))


# sqlglot's typed nodes for MySQL functions that matter here, by the name MySQL gives them.
_NAMED_NODES: dict[type[exp.Expression], str] = {
    exp.CurrentUser: "CURRENT_USER",
    exp.CurrentTimestamp: "CURRENT_TIMESTAMP",
    exp.CurrentDate: "CURRENT_DATE",
    exp.CurrentTime: "CURRENT_TIME",
    exp.CurrentVersion: "VERSION",
    exp.CurrentSchema: "DATABASE",
    exp.Rand: "RAND",
    exp.Uuid: "UUID",
    exp.UnixSeconds: "UNIX_TIMESTAMP",
}


def function_name(node: exp.Expression) -> str | None:
    """The MySQL name of a function call node, upper-case, as sqlglot parsed it."""
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    named = _NAMED_NODES.get(type(node))
    if named is not None:
        return named
    if isinstance(node, exp.Func) and not isinstance(node, _UNNAMED):
        return node.sql_name().upper()
    return None


def system_variable_reference(node: exp.SessionParameter) -> tuple[str, str | None]:
    """(name, scope) of `@@x`, `@@session.x`, `@@global.x`."""
    scope = node.args.get("kind")
    return node.name.lower(), scope.upper() if isinstance(scope, str) else None


class Translator:
    """Rewrites a MySQL tree into DuckDB SQL for one statement on one server."""

    def __init__(self, context: StatementContext, table_source: Callable[[exp.Table], exp.Expression]) -> None:
        self.context = context
        self.table_source = table_source
        self._rand_sites = 0
        # The subtrees the translation wrote itself (a UDF's body), by id; held so that no
        # other node can take one of their ids.
        self._generated: dict[int, exp.Expression] = {}

    def rewrite(self, tree: exp.Expression) -> exp.Expression:
        """A rewritten copy of `tree` (the original is a cached parse and stays untouched)."""
        return tree.copy().transform(self._rewrite_node, copy=False)

    def translate(self, tree: exp.Expression) -> exp.Expression:
        """The DuckDB tree for `tree`, every construct in it one the translation models."""
        rewritten = self.rewrite(tree)
        check_supported(rewritten, self._generated)
        return rewritten

    def sql(self, tree: exp.Expression) -> str:
        return self.translate(tree).sql(dialect="duckdb", copy=False)  # the rewrite is a copy already

    def _rewrite_node(self, node: exp.Expression) -> exp.Expression:
        context = self.context
        if isinstance(node, exp.Column) and node.name.lower() == HIDDEN_ROW_ID:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, node.name, "field list")
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            alias = node.args.get("alias")
            return exp.Subquery(
                this=self.table_source(node),
                alias=alias if alias is not None else exp.TableAlias(this=exp.to_identifier(node.name)),
            )
        if isinstance(node, exp.Parameter):
            return literal(context.user_variables.get(node.name.lower()))
        if isinstance(node, exp.SessionParameter):
            name, scope = system_variable_reference(node)
            return literal(context.system_variable(name, scope))
        name = function_name(node)
        if name is None:
            return node
        arguments = [arg for arg in node.args.values() if isinstance(arg, exp.Expression)]
        if name in _NOW_FUNCTIONS:
            return literal(context.timestamp)
        if name in _DATE_FUNCTIONS:
            return literal(context.timestamp.date())
        if name in _TIME_FUNCTIONS:
            return literal(context.timestamp.time())
        if name == "UNIX_TIMESTAMP":
            if not arguments and not node.expressions:
                return literal(int(context.timestamp.replace(tzinfo=dt.timezone.utc).timestamp()))
            argument = node.this if node.this is not None else node.expressions[0]
            return exp.cast(exp.Anonymous(this="epoch", expressions=[argument]), exp.DataType.build("BIGINT"))
        if name in _USER_FUNCTIONS:
            return literal(context.user)
        if name == "CONNECTION_ID":
            return literal(context.thread_id)
        if name == "LAST_INSERT_ID":
            if node.expressions:
                raise not_supported("LAST_INSERT_ID(expr)")
            return literal(context.last_insert_id)
        if name == "FOUND_ROWS":
            return literal(context.found_rows)
        if name == "ROW_COUNT":
            return literal(context.row_count)
        if name == "VERSION":
            return literal(context.version)
        if name in ("DATABASE", "SCHEMA"):
            return literal(context.database)
        if name == "SLEEP":
            return literal(0)
        if name in PER_CALL_FUNCTIONS:
            return exp.Anonymous(this=PER_CALL_FUNCTIONS[name], expressions=[])
        if name == "RAND":
            seed = node.this
            if seed is None:
                return exp.Anonymous(this="rpl_rand", expressions=[])
            # Each RAND(N) call site has its own generator, started from N.
            self._rand_sites += 1
            return exp.Anonymous(this="rpl_rand_seeded", expressions=[seed, exp.Literal.number(self._rand_sites)])
        if is_udf_call(node):
            udf = context.udfs.get(node.name.lower())
            if udf is None:
                raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{context.database}.{node.name}")
            call = exp.Paren(this=sqlglot.parse_one(udf.translate([self.sql(argument) for argument in node.expressions]), read="duckdb"))
            self._generated[id(call)] = call  # SQL of the simulator's own: its arguments were checked above
            return call
        raise not_supported(f"function {name}()")


_GENERATED_CALLS = {*PER_CALL_FUNCTIONS.values(), "rpl_rand", "rpl_rand_seeded", "from_hex", "epoch"}


def check_supported(tree: exp.Expression, generated: Container[int] = ()) -> None:
    """Refuse any construct the translation does not model (rather than run it differently);
    the subtrees whose ids are in `generated` are the translation's own and are skipped."""
    for node in tree.walk(prune=lambda node: id(node) in generated):
        if id(node) in generated:
            continue
        if isinstance(node, exp.Anonymous):
            if node.name not in _GENERATED_CALLS:
                raise not_supported(f"function {node.name}()")
            continue
        if isinstance(node, _STRUCTURE) or isinstance(node, _PORTABLE_FUNCTIONS):
            continue
        raise not_supported(f"{node.key.upper()} in {node.sql(dialect='mysql')!r}")


def is_constant(node: exp.Expression) -> bool:
    """A literal that needs no evaluation (the common case of INSERT ... VALUES)."""
    if isinstance(node, (exp.Literal, exp.Null, exp.Boolean)):
        return True
    return isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string


def constant_value(node: exp.Expression) -> object:
    """The Python value of a node for which is_constant() holds."""
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return 1 if node.this else 0
    if isinstance(node, exp.Neg):
        return -constant_value(node.this)  # type: ignore[operator]
    text = node.this
    if node.is_string:
        return text
    if text.lstrip("-").isdigit():
        return int(text)
    if "e" in text.lower():
        return float(text)
    return Decimal(text)

"""Translate MySQL expressions into DuckDB SQL that runs on one simulated server.

How each function translates is the function library's (server_sim/functions): values
fixed for the statement become literals of the executing server's context, per-call ones
calls into that server's own generators. Anything the library does not hold is refused,
so a scenario never runs DuckDB-only SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from decimal import Decimal

import sqlglot
from sqlglot import exp

from .enum_set import rewrite_references
from .bit_type import BinaryLiteral
from .collation import DUCKDB_COLLATION, compared_by_the_rule, pads_spaces
from .collation_mix import columns_compared_exactly
from .errors import ErrorCode, SqlError, not_supported
from .functions import GENERATED_CALLS, PORTABLE_NODES, function_name, is_udf_call, lookup
from .functions.division import mark_uncertain_divisions
from .functions.library import STRUCTURE
from .functions.unmodelled import UNMODELLED_MARKER
from .functions.statement import StatementContext
from .functions.grouping import Grouping, check_grouping, needs_grouping_check
from .functions.window import WINDOW_NODES, UniqueKeys, check_windows
from .statement import is_cte_reference
from .temporal_types import ZERO_DATE_COMPARISONS, check_temporal_uses, zero_date_comparison
from .types import ColumnType, TypeFamily

# The storage's per-row identity column: a name longer than the 64 characters a MySQL
# column name may have, so no scenario's column can be it (or be refused for being it).
HIDDEN_ROW_ID = "_rpl_row_id_of_the_storage_longer_than_any_mysql_column_name_can_be"
MAX_COLUMN_NAME = 64


class Translator:
    """Rewrites a MySQL tree into DuckDB SQL for one statement on one server."""

    def __init__(
        self,
        context: StatementContext,
        table_source: Callable[[exp.Table], exp.Expression],
        columns_of: Callable[[exp.Table], Sequence[tuple[str, ColumnType]]] | None = None,
        statement_tables: Sequence[exp.Table] = (),
    ) -> None:
        self.context = context
        self.table_source = table_source
        # A table's columns (name, type), for the ENUM/SET references (server_sim/enum_set.py).
        self.columns_of = columns_of
        # The tables of the statement a part of which (a WHERE, an ORDER BY item) is translated.
        self.statement_tables = statement_tables
        self._rand_sites = 0
        # The subtrees the translation wrote itself (a UDF's body), by id; held so that no
        # other node can take one of their ids.
        self._generated: dict[int, exp.Expression] = {}
        self._exactly: dict[int, set[tuple[str, int | None]]] = {}  # comparison -> its operands compared by code point
        # The TIME and YEAR columns of the tables read (lower-case name -> type name):
        # uses of them DuckDB reads otherwise than the server are refused.
        self.temporal_columns: dict[str, str] = {}
        # The MySQL JSON columns of the tables the translation read (table_source adds them).
        self.json_columns: set[str] = set()
        # The tree translated is a condition choosing rows (an UPDATE's WHERE): DuckDB may
        # evaluate it for rows the server's access path never reads.
        self.in_condition = False
        # The keys that identify a row of a table the tree reads (window functions' order).
        self.unique_keys: UniqueKeys = lambda table: ()
        self._nested = 0  # rewrites under way: a call's arguments are rewritten within its own

    def rewrite(self, tree: exp.Expression) -> exp.Expression:
        """A rewritten copy of `tree` (the original is a cached parse and stays untouched).
        A call's argument, rewritten while its call is, keeps its place in the statement
        (its copy's parent is the call as written): what a division's quotient is read as
        depends on where it stands (functions/exact_division.py)."""
        copied = tree.copy()
        if self._nested and tree.parent is not None:
            copied.parent, copied.arg_key, copied.index = tree.parent, tree.arg_key, tree.index
        mark_uncertain_divisions(copied, whole=self.in_condition)
        if self.columns_of is not None and not self._nested:  # the outermost rewrite rewrote the references
            typed = self._enum_set_columns(copied)
            if typed:
                rewrite_references(copied, typed)
        self._nested += 1
        try:
            return copied.transform(self._rewrite_node, copy=False)
        finally:
            self._nested -= 1

    def _enum_set_columns(self, tree: exp.Expression) -> dict[str, tuple[str, tuple[str, ...]] | None]:
        """The ENUM/SET columns of the tables `tree` names, by lower-case name (None: the
        name is another type's column in another of them) and by `table.name` as well."""
        assert self.columns_of is not None
        typed: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        qualified: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        others: set[str] = set()
        for node in [*self.statement_tables, *tree.find_all(exp.Table)]:
            if not isinstance(node.this, exp.Identifier) or is_cte_reference(node):
                continue
            try:
                columns = self.columns_of(node)
            except SqlError:
                continue  # the translation reports the missing table
            for name, column_type in columns:
                key = name.lower()
                if not column_type.is_enum_or_set:
                    others.add(key)
                    continue
                described = (column_type.name, column_type.members)
                typed[key] = described if typed.get(key, described) == described else None
                name_of = f"{node.alias_or_name.lower()}.{key}"
                qualified[name_of] = described if qualified.get(name_of, described) == described else None
        return {**{key: (None if key in others else described) for key, described in typed.items()}, **qualified}

    def translate(self, tree: exp.Expression) -> exp.Expression:
        """The DuckDB tree for `tree`, every construct in it one the translation models."""
        check_temporal_uses(tree, self.temporal_columns)  # as written: the MySQL uses
        if tree.find(*WINDOW_NODES) is not None:
            check_windows(tree, self.context.flavor, self.unique_keys)
        if self.columns_of is not None and needs_grouping_check(tree):
            context = self.context
            tree = check_grouping(tree, Grouping(context.flavor, context.only_full_group_by, context.database, self.columns_of, self.unique_keys))
        rewritten = self.rewrite(tree)
        check_supported(rewritten, self._generated)
        if self.json_columns:
            _refuse_json_comparisons(rewritten, self.json_columns)
        return rewritten

    def sql(self, tree: exp.Expression) -> str:
        return self.translate(tree).sql(dialect="duckdb", copy=False)  # the rewrite is a copy already

    def condition_sql(self, tree: exp.Expression) -> str:
        """The DuckDB SQL of a condition (or ordering) choosing the rows a statement reaches."""
        self.in_condition = True
        try:
            return self.sql(tree)
        finally:
            self.in_condition = False

    def column_type(self, column: exp.Column) -> ColumnType | None:
        """The declared type of the statement's tables' column `column` names (None: no
        table of the statement has it, or they differ)."""
        if self.columns_of is None:
            return None
        found: list[ColumnType] = []
        for table in self.statement_tables:
            if not isinstance(table.this, exp.Identifier) or is_cte_reference(table):
                continue
            if column.table and column.table.lower() not in (table.alias_or_name.lower(), table.name.lower()):
                continue
            try:
                columns = self.columns_of(table)
            except SqlError:
                continue
            found += [kind for name, kind in columns if name.lower() == column.name.lower()]
        return found[0] if found and all(kind == found[0] for kind in found) else None

    def _dated(self, column: exp.Column) -> bool:
        kind = self.column_type(column)
        return kind is not None and kind.family in (TypeFamily.DATE, TypeFamily.DATETIME)

    def next_rand_site(self) -> int:
        """A number for one more RAND(N) call site of the statement, whose generator is its own."""
        self._rand_sites += 1
        return self._rand_sites

    def _rewrite_node(self, node: exp.Expression) -> exp.Expression:
        """One node's DuckDB form: a table becomes the server's rows of it, a call the
        library's translation of it (server_sim/functions), a UDF call its body."""
        if isinstance(node, exp.Column) and len(node.name) > MAX_COLUMN_NAME:
            raise SqlError(ErrorCode.ER_TOO_LONG_IDENT, node.name)  # the hidden row id among them
        if isinstance(node, exp.Column) and (node.arg_key, node.index) in self._exactly.get(id(node.parent), ()):
            return self._compared_exactly(node)
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier) and not is_cte_reference(node):
            alias = node.args.get("alias")
            return exp.Subquery(
                this=self.table_source(node),
                alias=alias if alias is not None else exp.TableAlias(this=exp.to_identifier(node.name)),
            )
        if isinstance(node, exp.Literal) and node.is_string and isinstance(node.parent, _LITERAL_COMPARED):
            return self._in_connection_collation(node)
        if isinstance(node, _PADDED_COMPARISONS):
            self._refuse_padded_literal(node)
            self._mixed_collations(node)
        if isinstance(node, _COMPARISONS) and any(isinstance(side, _BINARY_LITERALS) for side in (node.this, node.expression)):
            return self._numeric_binary_literal(node)
        if isinstance(node, ZERO_DATE_COMPARISONS):
            replaced = zero_date_comparison(node, self._dated, self.context.zero_date_comparisons)
            if replaced is not None:
                return replaced
        function = lookup(node)
        if function is not None:
            return node if function.duckdb is None else function.duckdb(node, self)
        if not isinstance(node, exp.Func):
            return node  # syntax
        name = function_name(node)
        if name is None:
            return node
        if is_udf_call(node):
            return self._udf_call(node)
        raise not_supported(f"function {name}()")

    def _in_connection_collation(self, literal: exp.Literal) -> exp.Expression:
        """A string literal compared with no column: the comparison is the connection
        collation's, which ignores case and accents (DuckDB's literals compare exactly; a
        column's own collation decides its comparisons). A _bin collation compares as
        DuckDB does; a _cs one, and trailing spaces under a PAD SPACE one, are 1235."""
        operands = _compared_with(literal)
        if not any(literal is operand for operand in operands) or any(isinstance(operand, exp.Column) or _number_literal(operand) for operand in operands):
            return literal  # a column's collation, or a number compared as a number
        if any(self._exact_column(column) for operand in operands if operand is not None for column in operand.find_all(exp.Column)):
            return literal  # a value of a _bin column's (UPPER(c)): its collation wins
        return self.connection_collated(literal, pads=True)

    def connection_collated(self, literal: exp.Literal, pads: bool) -> exp.Expression:
        """`literal` compared under collation_connection: with DuckDB's NOCASE collation
        where that collation ignores case, as it is under a _bin one; a _cs one is 1235, and
        so is a trailing space where the comparison `pads` under a PAD SPACE collation."""
        collation = str(self.context.system_variable("collation_connection", None) or "")
        if pads and literal.name.endswith(" ") and pads_spaces(collation):
            raise not_supported(f"comparing {literal.sql(dialect='mysql')} under collation_connection {collation}, which ignores trailing spaces")
        if collation.endswith("_bin"):
            return literal
        if not compared_by_the_rule(collation):
            raise not_supported(f"comparing strings under collation_connection {collation}")
        collated = exp.Paren(this=exp.Collate(this=literal.copy(), expression=exp.Var(this=DUCKDB_COLLATION)))
        self._generated[id(collated)] = collated  # SQL of the simulator's own
        return collated

    def _exact_column(self, column: exp.Column) -> bool:
        declared = self.column_type(column)
        return declared is not None and declared.compares_exactly

    def _mixed_collations(self, node: exp.Expression) -> None:
        """Two text columns of different collations compared: the places of those that
        compare by code point (beside a _bin column), or the server's 1267 (collation_mix.py)."""
        exact = columns_compared_exactly(node, _operands(node), self.column_type)
        if exact:
            self._exactly[id(node)] = {(side.arg_key, side.index) for side in exact}

    def _compared_exactly(self, column: exp.Column) -> exp.Expression:
        """A _ci column compared with a _bin one: DuckDB's binary collation for it."""
        collated = exp.Paren(this=exp.Collate(this=column.copy(), expression=exp.Identifier(this="binary", quoted=True)))
        self._generated[id(collated)] = collated  # SQL of the simulator's own
        return collated

    def _refuse_padded_literal(self, node: exp.Expression) -> None:
        """A text column of a PAD SPACE collation compared with a string ending in a space:
        the server ignores the trailing spaces ('a' = 'a '), DuckDB does not (1235)."""
        sides = _operands(node)
        padded = [side for side in sides if isinstance(side, exp.Literal) and side.is_string and side.name.endswith(" ")]
        if not padded:
            return
        for side in sides:
            declared = self.column_type(side) if isinstance(side, exp.Column) else None
            if declared is not None and declared.family is TypeFamily.STRING and pads_spaces(declared.collation):
                raise not_supported(
                    f"comparing the column {side.sql(dialect='mysql')} with {padded[0].sql(dialect='mysql')} (its collation {declared.collation} ignores trailing spaces)"
                )

    def _numeric_binary_literal(self, node: exp.Expression) -> exp.Expression:
        """A comparison of a column with a hexadecimal or bit-value literal: the literal's
        number where the column is an integer or BIT one (as the server compares them);
        with any other column the query stops with 1235 (DuckDB would compare text with
        the number's digits). A literal anywhere else stays, which check_supported refuses."""
        literal, other = (node.this, node.expression) if isinstance(node.this, _BINARY_LITERALS) else (node.expression, node.this)
        value = binary_literal(literal)
        if not isinstance(other, exp.Column) or len(value) > 8:
            return node
        typed = exp.In(this=exp.Anonymous(this="typeof", expressions=[other.copy()]), expressions=[exp.Literal.string(t) for t in _INTEGER_TYPES])
        refused = exp.Anonymous(this="error", expressions=[exp.Literal.string(f"{UNMODELLED_MARKER}a hexadecimal or bit-value literal compared with a column that is no integer or BIT{UNMODELLED_MARKER}")])
        huge = exp.DataType.build("HUGEINT", dialect="duckdb")
        column = exp.Case(ifs=[exp.If(this=typed, true=exp.cast(other.copy(), huge))], default=refused)
        number = exp.cast(exp.Literal.number(value.number), huge)
        comparison = type(node)(this=column, expression=number) if node.this is other else type(node)(this=number, expression=column)
        self._generated[id(comparison)] = comparison  # SQL of the simulator's own
        return comparison

    def _udf_call(self, node: exp.Expression) -> exp.Expression:
        """A loaded UDF's body over the translated arguments; an unknown one is error 1305."""
        udf = self.context.udfs.get(node.name.lower())
        if udf is None:
            raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{self.context.database}.{node.name}")
        call = exp.Paren(this=sqlglot.parse_one(udf.translate([self.sql(argument) for argument in node.expressions]), read="duckdb"))
        self._generated[id(call)] = call  # SQL of the simulator's own: its arguments were checked above
        return call


# Where a hexadecimal or bit-value literal is read as a number, and the DuckDB types of
# the columns it is compared with as one.
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_PADDED_COMPARISONS = (*_COMPARISONS, exp.NullSafeEQ, exp.In, exp.Between)
_CONNECTION_COMPARED = (*_COMPARISONS, exp.NullSafeEQ, exp.In, exp.Nullif)
_LITERAL_COMPARED = (*_CONNECTION_COMPARED, exp.Case, exp.If)  # a simple CASE's WHEN values too
_BINARY_LITERALS = (exp.HexString, exp.BitString)
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")

# Query syntax DuckDB reads as MySQL does: common table expressions (WITH [RECURSIVE]).
_QUERY_SYNTAX = (exp.With, exp.CTE)


def _operands(comparison: exp.Expression) -> list[exp.Expression | None]:
    """What a comparison compares: its two sides, IN's value and list, BETWEEN's three."""
    if isinstance(comparison, exp.In):
        return [comparison.this, *comparison.expressions]
    if isinstance(comparison, exp.Between):
        return [comparison.this, comparison.args.get("low"), comparison.args.get("high")]
    return [comparison.this, comparison.args.get("expression")]


def _compared_with(literal: exp.Literal) -> list[exp.Expression | None]:
    """The operands of the comparison `literal` is one of: a comparison's sides, IN's value
    and list, NULLIF's two, a simple CASE's value and its WHEN values (none otherwise)."""
    parent = literal.parent
    if isinstance(parent, _CONNECTION_COMPARED):
        return _operands(parent)
    case = parent.parent if isinstance(parent, exp.If) and literal.arg_key == "this" else parent
    if isinstance(case, exp.Case) and case.this is not None and (case is parent or isinstance(parent, exp.If)):
        operands = [case.this, *(when.this for when in case.args.get("ifs") or [])]
        return operands if any(literal is operand for operand in operands) else []
    return []


def _number_literal(node: exp.Expression | None) -> bool:
    while isinstance(node, (exp.Neg, exp.Paren)):
        node = node.this
    return isinstance(node, (exp.Boolean, exp.Null)) or (isinstance(node, exp.Literal) and not node.is_string)


def _refuse_json_comparisons(tree: exp.Expression, names: set[str]) -> None:
    """MySQL compares and orders a JSON column as documents (a string is a JSON string,
    never the document it spells); the stored text would compare as text: refused."""
    for node in tree.walk():
        if isinstance(node, (*_COMPARISONS, exp.NullSafeEQ, exp.In, exp.Between, exp.Ordered)):
            sides = [node.this] if isinstance(node, (exp.In, exp.Between, exp.Ordered)) else [node.this, node.expression]
            for side in sides:
                if isinstance(side, exp.Column) and side.name.lower() in names:
                    raise not_supported(f"comparing or ordering the JSON column {side.name} (MySQL compares JSON documents)")


def check_supported(tree: exp.Expression, generated: Container[int] = ()) -> None:
    """Refuse any construct the translation does not model (rather than run it differently);
    the subtrees whose ids are in `generated` are the translation's own and are skipped."""
    for node in tree.walk(prune=lambda node: id(node) in generated):
        if id(node) in generated:
            continue
        if isinstance(node, exp.Anonymous):
            if node.name not in GENERATED_CALLS:
                raise not_supported(f"function {node.name}()")
            continue
        if isinstance(node, STRUCTURE) or isinstance(node, PORTABLE_NODES) or isinstance(node, _QUERY_SYNTAX):
            continue
        raise not_supported(f"{node.key.upper()} in {node.sql(dialect='mysql')!r}")


def is_constant(node: exp.Expression) -> bool:
    """A literal that needs no evaluation (the common case of INSERT ... VALUES)."""
    if isinstance(node, (exp.Literal, exp.Null, exp.Boolean, exp.HexString, exp.BitString)):
        return True
    return isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string


def constant_value(node: exp.Expression) -> object:
    """The Python value of a node for which is_constant() holds."""
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return 1 if node.this else 0
    if isinstance(node, (exp.HexString, exp.BitString)):
        return binary_literal(node)
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


def binary_literal(node: exp.HexString | exp.BitString) -> BinaryLiteral:
    """A hexadecimal or bit-value literal's bytes (a number where a number is read)."""
    digits = str(node.this)
    return BinaryLiteral.from_hex(digits) if isinstance(node, exp.HexString) else BinaryLiteral.from_bits(digits)

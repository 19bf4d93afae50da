"""Statements that name views, rewritten over the base tables before anything else looks
at them, as the server merges a view into the statement that uses it.

A view read is a derived table of its query (nested views expanded in turn), so the
analysis sees the base tables and the view's own unsafe calls (UUID() in a view makes the
INSERT ... SELECT reading it unsafe). A write through a single-table view becomes the
same write on the base table: the view's columns mapped to the base columns, the view's
WHERE added to the statement's, and WITH CHECK OPTION kept as the conditions each row
written must meet. The statement's text stays as written: it is what the binlog carries,
and the replica, which has the view too, expands it the same way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sqlglot import exp

from .catalog import Catalog
from .errors import ErrorCode, SqlError, not_supported
from .flavor import Flavor
from .statement import ROW_STATEMENTS, Statement, StatementKind, WriteMode, is_cte_reference, is_multi_table, target_tables
from .views import ViewDefinition, view_columns

# Calls that make a view neither updatable nor insertable (the server refuses 1288 / 1471).
_VOLATILE_CALLS = frozenset({"UUID", "UUID_SHORT", "RAND"})
_MAX_DEPTH = 32
# The statements whose tables may be views: DDL names its own objects.
_READING = frozenset({*ROW_STATEMENTS, StatementKind.SELECT})


def view_of(node: exp.Table, catalog: Catalog, session_id: int | None) -> ViewDefinition | None:
    """The view `node` names (a table of that name, temporary ones included, comes first)."""
    if node.db and node.db != catalog.database:
        return None
    if catalog.find(node.name, session_id) is not None:
        return None
    return catalog.views.get(node.name)


def check_view_tables(definition: ViewDefinition, catalog: Catalog, session_id: int | None) -> None:
    """Every table the view's query names exists, as a table or a view (1146)."""
    for node in definition.query.find_all(exp.Table):
        if is_cte_reference(node) or catalog.resolve(node.db, node.name, session_id) is not None or view_of(node, catalog, session_id):
            continue
        raise SqlError(ErrorCode.ER_NO_SUCH_TABLE, node.db or catalog.database, node.name)


def expand_views(statement: Statement, catalog: Catalog, session_id: int | None, flavor: Flavor) -> Statement:
    """`statement` over base tables only; itself when it names no view."""
    if not catalog.views or statement.ast is None or not (statement.kind in _READING or statement.creates_from_select):
        return statement
    if not any(view_of(node, catalog, session_id) for node in statement.table_nodes):
        return statement
    tree = statement.ast.copy()
    checks: tuple[tuple[str, exp.Expression], ...] = ()
    queries: tuple[exp.Expression, ...] = ()
    if statement.kind in ROW_STATEMENTS:
        if is_multi_table(tree):
            raise not_supported("a multi-table UPDATE or DELETE naming a view")
        target = target_tables(dataclasses.replace(statement, ast=tree))[0]
        view = view_of(target, catalog, session_id)
        if view is not None:
            write = _WriteThroughView(statement, tree, target, view, catalog, session_id, flavor.view_check_option_recurses)
            checks = write.rewrite()
            queries = write.queries
    if statement.creates_from_select:  # the new columns' types come from the tables read
        raise not_supported("CREATE TABLE ... SELECT reading a view")
    _expand_reads(tree, catalog, session_id, 0)
    return dataclasses.replace(statement, ast=tree, view_checks=checks, view_queries=queries)


def _expand_reads(tree: exp.Expression, catalog: Catalog, session_id: int | None, depth: int) -> None:
    """Each view read in `tree` replaced by a derived table of its (expanded) query."""
    for node in list(tree.find_all(exp.Table)):
        if is_cte_reference(node):
            continue
        view = view_of(node, catalog, session_id)
        if view is None:
            continue
        if node.args.get("joins"):
            raise not_supported("a view at the head of a multi-table statement's table list")
        node.replace(exp.Subquery(this=_view_query(view, catalog, session_id, depth), alias=exp.TableAlias(this=exp.to_identifier(node.alias or view.name))))


def with_star_expanded(definition: ViewDefinition, catalog: Catalog, session_id: int | None) -> ViewDefinition:
    """The view with each `*` / `t.*` of its query replaced by the columns it stands for now:
    the server fixes a view's columns when it creates it, a later ALTER TABLE adds none."""
    query = definition.query
    selects = [query] if isinstance(query, exp.Select) else list(query.find_all(exp.Select))
    if not any(_is_star(e) for select in selects for e in select.expressions):
        return definition
    query = query.copy()
    for select in [query] if isinstance(query, exp.Select) else list(query.find_all(exp.Select)):
        if select.find_ancestor(exp.Subquery) is not None:
            continue
        expressions: list[exp.Expression] = []
        for expression in select.expressions:
            expressions.extend(_star_columns(expression, select, catalog, session_id) if _is_star(expression) else [expression])
        select.set("expressions", expressions)
    return dataclasses.replace(definition, query=query)


def _is_star(expression: exp.Expression) -> bool:
    return isinstance(expression, exp.Star) or (isinstance(expression, exp.Column) and isinstance(expression.this, exp.Star))


def _star_columns(star: exp.Expression, select: exp.Select, catalog: Catalog, session_id: int | None) -> list[exp.Expression]:
    """The columns `*` (every source's, in order) or `t.*` (that source's) stands for."""
    from_ = select.args.get("from_")
    sources = [from_.this] if from_ is not None else []
    sources += [join.this for join in select.args.get("joins") or []]
    wanted = star.table.lower() if isinstance(star, exp.Column) and star.table else None
    columns: list[exp.Expression] = []
    for source in sources:
        if not isinstance(source, exp.Table):
            raise not_supported("a view with * over a derived table")
        alias = source.alias or source.name
        if wanted is not None and alias.lower() != wanted:
            continue
        view = view_of(source, catalog, session_id)
        names = view_columns(view) if view is not None else [column.name for column in catalog.require(source.db, source.name, session_id).columns]
        qualified = len(sources) > 1 or wanted is not None
        columns.extend(exp.column(name, table=alias if qualified else None) for name in names)
    return columns


def _view_query(view: ViewDefinition, catalog: Catalog, session_id: int | None, depth: int) -> exp.Expression:
    """The view's query with its column names, its own views expanded; 1356 when a table it
    reads is gone."""
    if depth > _MAX_DEPTH:
        raise not_supported(f"views nested deeper than {_MAX_DEPTH}")
    try:
        check_view_tables(view, catalog, session_id)
    except SqlError:
        raise SqlError(ErrorCode.ER_VIEW_INVALID, catalog.database, view.name) from None
    query = view.query.copy()
    if view.columns is not None:
        first = query
        while isinstance(first, exp.Union):
            first = first.this
        first.set("expressions", [exp.alias_(e.unalias() if isinstance(e, exp.Alias) else e, name, quoted=True) for e, name in zip(first.expressions, view.columns)])
    _expand_reads(query, catalog, session_id, depth + 1)
    return query


def _call_name(node: exp.Func) -> str:
    """The upper-case name of a call, whether sqlglot knows the function or not."""
    return node.name.upper() if isinstance(node, exp.Anonymous) else node.sql_name().upper()


def _strip(expression: exp.Expression, qualifiers: set[str]) -> exp.Expression:
    """`expression` with the columns qualified by one of `qualifiers` unqualified."""
    for column in expression.find_all(exp.Column):
        if column.table and column.table.lower() in qualifiers:
            column.set("table", None)
    return expression


def _substituted(expression: exp.Expression, mapping: dict[str, exp.Expression], outer_only: bool = False) -> exp.Expression:
    """Each unqualified column named in `mapping` replaced by its expression; with
    `outer_only`, not inside a subquery (its columns are its own tables')."""
    if isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in mapping:
        return mapping[expression.name.lower()].copy()
    for column in list(expression.find_all(exp.Column)):
        if column.table or column.name.lower() not in mapping:
            continue
        if outer_only and column.find_ancestor(exp.Select) is not None:
            continue
        column.replace(mapping[column.name.lower()].copy())
    return expression


@dataclass
class _Level:
    """One view of the chain a write goes through: its columns over its source's, and its WHERE."""

    view: ViewDefinition
    source: exp.Table
    mapping: dict[str, exp.Expression]
    where: exp.Expression | None


class _WriteThroughView:
    """INSERT, REPLACE, UPDATE or DELETE on a view, turned into the same write on its base table."""

    def __init__(
        self, statement: Statement, tree: exp.Expression, target: exp.Table, view: ViewDefinition, catalog: Catalog, session_id: int | None, recursive_checks: bool
    ) -> None:
        self.recursive_checks = recursive_checks
        self.statement = statement
        self.tree = tree
        self.target = target
        self.view = view
        self.catalog = catalog
        self.session_id = session_id
        self.inserting = statement.kind in (StatementKind.INSERT, StatementKind.REPLACE)
        self.queries: tuple[exp.Expression, ...] = ()  # each view's query, outermost first

    def rewrite(self) -> tuple[tuple[str, exp.Expression], ...]:
        levels = self._levels()
        self.queries = tuple(level.view.query for level in levels)
        mapping = dict(levels[0].mapping)
        wheres = [levels[0].where]  # each level's WHERE, over the base table's columns at the end
        for level in levels[1:]:
            mapping = {name: _substituted(expression, level.mapping) for name, expression in mapping.items()}
            wheres = [None if where is None else _substituted(where, level.mapping) for where in wheres] + [level.where]
        base = levels[-1].source.copy()
        base.set("alias", None)
        visible = [where for where in wheres if where is not None]
        if self.inserting:
            self._insert(base, mapping)
        else:
            self._update_or_delete(base, mapping, visible)
        return self._checks(levels, wheres)

    def _checks(self, levels: list[_Level], wheres: list[exp.Expression | None]) -> tuple[tuple[str, exp.Expression], ...]:
        """The conditions WITH CHECK OPTION puts on each row written. MariaDB checks the named
        view's option only: LOCAL its own WHERE, CASCADED every WHERE down the chain. MySQL
        goes down the chain: a view's WHERE counts when it has an option or one above it is
        CASCADED."""
        if self.recursive_checks:
            checked, cascaded = [], False
            for level, where in zip(levels, wheres):
                if where is not None and (cascaded or level.view.check_option is not None):
                    checked.append(where)
                cascaded = cascaded or level.view.check_option == "CASCADED"
        else:
            option = self.view.check_option
            checked = [] if option is None else [where for where in (wheres if option == "CASCADED" else wheres[:1]) if where is not None]
        if not checked:
            return ()
        if self.statement.write_mode is WriteMode.IGNORE:
            raise not_supported("INSERT / UPDATE IGNORE through a view WITH CHECK OPTION (the failing rows become warnings)")
        return tuple((self.view.name, condition) for condition in checked)

    def _levels(self) -> list[_Level]:
        levels: list[_Level] = []
        view: ViewDefinition | None = self.view
        while view is not None:
            if len(levels) > _MAX_DEPTH:
                raise not_supported(f"views nested deeper than {_MAX_DEPTH}")
            levels.append(self._level(view))
            view = view_of(levels[-1].source, self.catalog, self.session_id)
        return levels

    def _refused(self) -> SqlError:
        if self.inserting:
            return SqlError(ErrorCode.ER_NON_INSERTABLE_TABLE, self.view.name, "INSERT")
        return SqlError(ErrorCode.ER_NON_UPDATABLE_TABLE, self.view.name, self.statement.kind.value)

    def _level(self, view: ViewDefinition) -> _Level:
        """One view's columns and WHERE over its one source table; the server's errors for a
        view that cannot be written through."""
        query = view.query
        if not isinstance(query, exp.Select) or not view.updatable_algorithm:
            raise self._refused()
        if any(query.args.get(clause) for clause in ("distinct", "group", "having", "limit", "offset", "with_", "windows")):
            raise self._refused()
        where = query.args.get("where")
        for expression in [*query.expressions, *([where] if where is not None else [])]:
            if expression.find(exp.AggFunc, exp.Window) is not None:
                raise self._refused()
            if any(_call_name(node) in _VOLATILE_CALLS for node in expression.find_all(exp.Func)):
                raise self._refused()  # a view with RAND() or UUID() is materialized
            if self.inserting and expression is not where and expression.find(exp.Subquery) is not None:
                raise self._refused()
        source = query.args.get("from_").this if query.args.get("from_") else None
        if not isinstance(source, exp.Table):
            raise self._refused()
        if where is not None and any(node.name == source.name for node in where.find_all(exp.Table)):
            raise self._refused()  # a subquery of the WHERE reads the table written
        if query.args.get("joins"):
            self._refuse_join_view()
        if view_of(source, self.catalog, self.session_id) is None and self.catalog.resolve(source.db, source.name, self.session_id) is None:
            raise SqlError(ErrorCode.ER_VIEW_INVALID, self.catalog.database, view.name)
        qualifiers = {source.name.lower(), (source.alias or source.name).lower()}
        return _Level(view, source, self._columns(view, query, source, qualifiers), _strip(where.this.copy(), qualifiers) if where is not None else None)

    def _columns(self, view: ViewDefinition, query: exp.Select, source: exp.Table, qualifiers: set[str]) -> dict[str, exp.Expression]:
        """Each view column's expression over the source's columns (a `*` was expanded when
        the view was created)."""
        names = view_columns(view)
        return {name.lower(): _strip((e.unalias() if isinstance(e, exp.Alias) else e).copy(), qualifiers) for name, e in zip(names, query.expressions)}

    def _refuse_join_view(self) -> None:
        name = (self.catalog.database, self.view.name)
        if self.statement.kind is StatementKind.DELETE:
            raise SqlError(ErrorCode.ER_VIEW_DELETE_MERGE_VIEW, *name)
        if self.inserting and not isinstance(self.tree.this, exp.Schema):
            raise SqlError(ErrorCode.ER_VIEW_NO_INSERT_FIELD_LIST, *name)
        raise not_supported("writes through a view over a join")

    def _base_column(self, name: str, mapping: dict[str, exp.Expression], error: SqlError | None = None) -> str:
        expression = mapping.get(name.lower())
        if expression is None:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, "field list")
        if not isinstance(expression, exp.Column):
            raise error or SqlError(ErrorCode.ER_NONUPDATEABLE_COLUMN, name)
        return expression.name

    def _insert(self, base: exp.Table, mapping: dict[str, exp.Expression]) -> None:
        target = self.tree.this
        names = [column.name for column in target.expressions] if isinstance(target, exp.Schema) and target.expressions else list(mapping)
        bases = [self._base_column(name, mapping, self._refused()) for name in names]
        if len({base.lower() for base in bases}) != len(bases):
            raise self._refused()  # two view columns of one base column
        columns = [exp.to_identifier(base) for base in bases]
        self.tree.set("this", exp.Schema(this=base, expressions=columns))
        conflict = self.tree.args.get("conflict")
        if conflict is not None:
            self._unqualify(conflict)
            for assignment in conflict.find_all(exp.EQ):
                if isinstance(assignment.this, exp.Column) and assignment.parent is conflict:
                    assignment.this.replace(exp.column(self._base_column(assignment.this.name, mapping)))
            _substituted(conflict, mapping, outer_only=True)

    def _update_or_delete(self, base: exp.Table, mapping: dict[str, exp.Expression], visible: list[exp.Expression]) -> None:
        self._unqualify(self.tree)
        for assignment in self.tree.expressions if isinstance(self.tree, exp.Update) else []:
            assignment.set("expression", _substituted(assignment.expression, mapping, outer_only=True))
            assignment.set("this", exp.column(self._base_column(assignment.this.name, mapping)))
        for clause in ("where", "order"):
            if self.tree.args.get(clause) is not None:
                _substituted(self.tree.args[clause], mapping, outer_only=True)
        self.tree.set("this", base)
        conditions = [condition.copy() for condition in visible]
        where = self.tree.args.get("where")
        if where is not None:
            conditions.append(where.this)
        if conditions:
            self.tree.set("where", exp.Where(this=exp.and_(*[exp.paren(c, copy=False) for c in conditions], copy=False)))

    def _unqualify(self, tree: exp.Expression) -> None:
        """Columns qualified by the view's name or the statement's alias of it, unqualified."""
        _strip(tree, {self.target.name.lower(), (self.target.alias or self.target.name).lower()})

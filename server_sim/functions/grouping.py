"""Grouped SELECTs: which columns a SELECT with GROUP BY, or with an aggregate and no
GROUP BY (one group of all its rows), may name outside an aggregate, and which value such
a column has.

A column is *grouped* when the GROUP BY names it (or an expression the item repeats), and
*determined* when the GROUP BY names every column of a key that identifies a row of its
table (a primary key, a unique key of NOT NULL columns): each group then holds one value
of it. DuckDB accepts only grouped ones, so a determined column the server accepts is
added to DuckDB's GROUP BY (the groups stay the same).

Any other column takes, in each group, the value of whichever row the engine reads
first. With `ONLY_FULL_GROUP_BY` in sql_mode that is the server's error; without it the
simulator refuses it (1235), since no engine's choice of row can be followed:

- MySQL 8.0 follows functional dependencies: a determined column is accepted; others are
  1055 (with GROUP BY) or 1140 (without), naming the item's position in the SELECT list or
  ORDER BY. Its analysis also follows the WHERE's and the joins' equalities
  (`WHERE c = 5`, `ON t.k = u.k`) and derived tables: where one of those could make the
  column determined the simulator refuses (1235) rather than guess, as it does for a
  window function's argument outside the groups (MySQL's answer is not recorded here).
- MariaDB 10.11 has no such analysis: under ONLY_FULL_GROUP_BY any column of the SELECT
  list outside the GROUP BY and every aggregate is 1055 ("'db.t.c' isn't in GROUP BY"),
  a key in the GROUP BY or not, and 1140 without GROUP BY (its ORDER BY too); a grouped
  SELECT's ORDER BY and a window function's arguments it does not check, and takes the
  column from a row of the group (recorded): determined, they run; else 1235.

On both, a HAVING names columns of the SELECT list, its aliases and the GROUP BY's (and,
inside aggregates, the tables'): any other column is 1054 "Unknown column ... in 'having
clause'", in MySQL's words or MariaDB's 'HAVING' (recorded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from ..flavor import Flavor
from ..types import ColumnType
from .window import UniqueKeys

ColumnsOf = Callable[[exp.Table], Sequence[tuple[str, ColumnType]]]


@dataclass(frozen=True)
class Grouping:
    """What the check reads beside the tree: the server's rules and the catalog's tables."""

    flavor: Flavor
    only_full_group_by: bool
    database: str
    columns_of: ColumnsOf
    unique_keys: UniqueKeys


@dataclass(eq=False)
class _Source:
    """One table of a SELECT's FROM: how it is named and what it holds."""

    qualifier: str  # its alias, or its name, as written
    shown: str  # how the server's messages name it: db.alias (a derived table: alias)
    columns: dict[str, str] | None  # lower-case name -> as defined; None: not known here
    keys: Sequence[tuple[str, ...]]
    base: bool  # a table of the catalog (not a derived table or a CTE)


@dataclass(eq=False)
class _Scope:
    select: exp.Select
    sources: list[_Source]
    parent: _Scope | None


def needs_grouping_check(tree: exp.Expression) -> bool:
    """Whether `tree` holds a SELECT with GROUP BY, HAVING or an aggregate (a cheap walk)."""
    for node in tree.find_all(exp.Select, exp.AggFunc):
        if isinstance(node, exp.AggFunc) or node.args.get("group") or node.args.get("having"):
            return True
    return False


def check_grouping(tree: exp.Expression, rules: Grouping) -> exp.Expression:
    """Reject or refuse every grouped SELECT of `tree` the server would not run as the
    simulator does; `tree`, or a copy whose GROUP BYs also name the determined columns."""
    scopes: dict[int, _Scope] = {}
    selects = list(tree.find_all(exp.Select))
    for select in selects:
        _scope(select, scopes, rules)  # every scope first: a subquery's columns resolve outwards
    additions = [_check_select(scopes[id(select)], scopes, rules) for select in selects]
    if not any(additions):
        return tree
    copied = tree.copy()
    for select, added in zip(list(copied.find_all(exp.Select)), additions):
        if added:
            group = select.args["group"]
            group.set("expressions", [*group.expressions, *added])
    return copied


def _scope(select: exp.Select, scopes: dict[int, _Scope], rules: Grouping) -> _Scope:
    found = scopes.get(id(select))
    if found is not None:
        return found
    enclosing = select.parent.find_ancestor(exp.Select) if select.parent is not None else None
    parent = _scope(enclosing, scopes, rules) if enclosing is not None else None
    items = []
    source = select.args.get("from_")
    if source is not None:
        items.append(source.this)
    items += [join.this for join in select.args.get("joins") or []]
    scope = _Scope(select, [_source(item, select, rules) for item in items], parent)
    scopes[id(select)] = scope
    return scope


def _source(item: exp.Expression, select: exp.Select, rules: Grouping) -> _Source:
    qualifier = item.alias_or_name
    if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier) and not _cte(item, select):
        database = item.db or rules.database
        try:
            columns = {name.lower(): name for name, _ in rules.columns_of(item)}
            keys = rules.unique_keys(item)
        except SqlError:
            return _Source(qualifier, f"{database}.{qualifier}", None, (), True)
        return _Source(qualifier, f"{database}.{qualifier}", columns, keys, True)
    query = item.this if isinstance(item, exp.Subquery) else _cte(item, select) if isinstance(item, exp.Table) else None
    columns = None
    if isinstance(query, exp.Select) and not any(isinstance(named, exp.Star) or (isinstance(named, exp.Column) and isinstance(named.this, exp.Star)) for named in query.expressions):
        columns = {name.lower(): name for name in query.named_selects}
    return _Source(qualifier, qualifier, columns, (), False)


def _cte(table: exp.Table, select: exp.Select) -> exp.Expression | None:
    """The query of the CTE `table` names, if an enclosing WITH defines one."""
    if table.db:
        return None
    node: exp.Expression | None = select
    while node is not None:
        with_ = node.args.get("with_") if isinstance(node, (exp.Select, exp.Union, exp.Insert, exp.Update, exp.Delete)) else None
        for cte in with_.expressions if with_ is not None else ():
            if cte.alias_or_name.lower() == table.name.lower():
                return cte.this
        node = node.parent
    return None


def _own_aggregates(select: exp.Select) -> bool:
    """Whether the SELECT's list, HAVING or ORDER BY calls an aggregate of its own rows."""
    for key in ("expressions", "having", "order"):
        for part in select.args.get(key) if key == "expressions" else [select.args.get(key)]:
            if part is not None and any(_aggregate(node, select) for node in part.find_all(exp.AggFunc)):
                return True
    return False


def _aggregate(node: exp.Expression, select: exp.Select) -> bool:
    """An aggregate (not a window function) computed over `select`'s rows."""
    return not isinstance(node.parent, exp.Window) and node.find_ancestor(exp.Select) is select


def _check_select(scope: _Scope, scopes: dict[int, _Scope], rules: Grouping) -> list[exp.Column]:
    """The determined columns to add to this SELECT's GROUP BY (the check raises otherwise)."""
    select = scope.select
    group = select.args.get("group")
    having = select.args.get("having")
    aggregated = _own_aggregates(select)
    if group is None and having is None and not aggregated:
        return []
    if group is not None and any(group.args.get(key) for key in ("rollup", "cube", "grouping_sets", "totals")):
        raise not_supported("GROUP BY ... WITH ROLLUP (and other grouping sets)")
    aliases = {item.alias.lower(): item.this for item in select.expressions if isinstance(item, exp.Alias)}
    grouped_texts, grouped = _grouped(scope, aliases, scopes)
    if having is not None:
        _check_having(having.this, scope, scopes, aliases, grouped, rules)
    if group is None and not aggregated:
        raise not_supported("HAVING in a SELECT without GROUP BY or an aggregate (a filter of its rows by their SELECT list)")
    added: dict[tuple[int, str], exp.Column] = {}
    order = select.args.get("order")
    parts: list[tuple[str, int, exp.Expression]] = [("SELECT list", position, item) for position, item in _select_items(scope)]
    parts += [("ORDER BY clause", position, ordered.this) for position, ordered in enumerate(order.expressions if order is not None else (), 1)]
    for clause, position, item in parts:
        if clause == "ORDER BY clause":
            if isinstance(item, exp.Literal) and item.is_int:
                continue  # a position of the SELECT list: checked there
            if isinstance(item, exp.Column) and not item.table and item.name.lower() in aliases:
                continue  # an alias of the SELECT list
        for column, source, in_window in _outside_aggregates(item, scope, scopes, grouped_texts):
            key = (id(source), column.lower())
            if key in grouped:
                continue
            # MariaDB checks neither a grouped SELECT's ORDER BY nor a window function's arguments (recorded).
            unchecked = not rules.flavor.group_by_functional_dependencies and (in_window or (clause == "ORDER BY clause" and group is not None))
            if _determined(source, grouped) and (rules.flavor.group_by_functional_dependencies or not rules.only_full_group_by or unchecked):
                added.setdefault(key, exp.column(source.columns[column.lower()], table=source.qualifier, quoted=True))  # type: ignore[index]
                continue
            if in_window and rules.flavor.group_by_functional_dependencies:
                raise not_supported(f"column '{source.shown}.{column}' in a window function of a grouped SELECT, outside its groups (MySQL's answer is not recorded here)")
            _reject(clause, position, column, source, scope, group is not None, unchecked, rules)
    return list(added.values())


def _select_items(scope: _Scope) -> Iterator[tuple[int, exp.Expression]]:
    """The SELECT list's items with their positions, `*` and `t.*` as their columns."""
    position = 0
    for item in scope.select.expressions:
        star = isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star))
        if not star:
            position += 1
            yield position, item
            continue
        qualifier = item.table.lower() if isinstance(item, exp.Column) else ""
        for source in scope.sources:
            if qualifier and source.qualifier.lower() != qualifier:
                continue
            if source.columns is None:
                raise not_supported(f"{item.sql(dialect='mysql')} of a grouped SELECT over a table whose columns are not known before it runs")
            for name in source.columns.values():
                position += 1
                yield position, exp.column(name, table=source.qualifier, quoted=True)


def _grouped(scope: _Scope, aliases: dict[str, exp.Expression], scopes: dict[int, _Scope]) -> tuple[set[str], set[tuple[int, str]]]:
    """The GROUP BY's expressions (as text) and its columns (source, lower-case name)."""
    group = scope.select.args.get("group")
    texts: set[str] = set()
    columns: set[tuple[int, str]] = set()
    items = scope.select.expressions
    for expression in group.expressions if group is not None else ():
        if isinstance(expression, exp.Literal) and expression.is_int and 0 < int(expression.name) <= len(items):
            expression = items[int(expression.name) - 1]
            expression = expression.this if isinstance(expression, exp.Alias) else expression
        elif isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in aliases:
            if _resolve(expression, scope, scopes) is None:  # a table's column comes before an alias
                expression = aliases[expression.name.lower()]
        texts.add(_text(expression))
        if isinstance(expression, exp.Column):
            resolved = _resolve(expression, scope, scopes)
            if resolved is not None and resolved[0] is scope:
                columns.add((id(resolved[1]), expression.name.lower()))
    return texts, columns


def _text(node: exp.Expression) -> str:
    return node.sql(dialect="mysql").lower()


def _resolve(column: exp.Column, scope: _Scope, scopes: dict[int, _Scope]) -> tuple[_Scope, _Source] | None:
    """The scope and table a column reference names (None: not one the check can tell)."""
    name = column.name.lower()
    qualifier = column.table.lower()
    current: _Scope | None = scope
    while current is not None:
        if qualifier:
            matches = [source for source in current.sources if source.qualifier.lower() == qualifier]
        else:
            matches = [source for source in current.sources if source.columns is None or name in source.columns]
        if len(matches) == 1 and (matches[0].columns is None or name in matches[0].columns):
            return (current, matches[0]) if matches[0].columns is not None else None
        if matches:
            return None  # ambiguous, or a table whose columns are not known: not ours to tell
        current = current.parent
    return None


def _outside_aggregates(item: exp.Expression, scope: _Scope, scopes: dict[int, _Scope], grouped_texts: set[str]) -> Iterator[tuple[str, _Source, bool]]:
    """The columns of `scope`'s tables `item` reads outside its aggregates and grouped
    expressions, subqueries included (a correlated column counts as the SELECT's own),
    each with whether a window function reads it."""
    stack = [item]
    while stack:
        node = stack.pop()
        if isinstance(node, exp.Alias):
            stack.append(node.this)
            continue
        if node.find_ancestor(exp.Select) is scope.select or node is item:
            if _text(node) in grouped_texts:
                continue
            if isinstance(node, exp.AggFunc) and _aggregate(node, scope.select):
                continue
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            inner = node.find_ancestor(exp.Select)
            at = scopes.get(id(inner)) if inner is not None else None
            resolved = _resolve(node, at or scope, scopes)
            if resolved is not None and resolved[0] is scope:
                yield resolved[1].columns[node.name.lower()], resolved[1], node.find_ancestor(exp.Window) is not None  # type: ignore[index]
            continue
        if isinstance(node, exp.Select) and id(node) not in scopes:
            continue  # a query the walk of the tree did not reach: nothing of ours
        stack.extend(reversed(list(node.iter_expressions())))


def _determined(source: _Source, grouped: set[tuple[int, str]]) -> bool:
    """Whether the GROUP BY names every column of a key that identifies a row of `source`."""
    return source.base and any(key and all((id(source), column.lower()) in grouped for column in key) for key in source.keys)


def _check_having(condition: exp.Expression, scope: _Scope, scopes: dict[int, _Scope], aliases: dict[str, exp.Expression], grouped: set[tuple[int, str]], rules: Grouping) -> None:
    """A HAVING's columns outside aggregates: the SELECT list's, its aliases or the GROUP BY's."""
    selected: set[tuple[int, str]] = set()
    for _, item in _select_items(scope):
        item = item.this if isinstance(item, exp.Alias) else item
        if isinstance(item, exp.Column):
            resolved = _resolve(item, scope, scopes)
            if resolved is not None and resolved[0] is scope:
                selected.add((id(resolved[1]), item.name.lower()))
    for column in condition.find_all(exp.Column):
        if column.find_ancestor(exp.Select) is not scope.select or any(_aggregate(node, scope.select) for node in _ancestors(column, exp.AggFunc, condition)):
            continue
        if not column.table and column.name.lower() in aliases:
            continue
        resolved = _resolve(column, scope, scopes)
        if resolved is None or resolved[0] is not scope:
            continue
        if (id(resolved[1]), column.name.lower()) in selected | grouped:
            continue
        raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, column.sql(dialect="mysql").replace("`", ""), rules.flavor.having_clause_name)


def _ancestors(node: exp.Expression, kind: type[exp.Expression], stop: exp.Expression) -> Iterator[exp.Expression]:
    parent = node.parent
    while parent is not None and parent is not stop.parent:
        if isinstance(parent, kind):
            yield parent
        parent = parent.parent


def _reject(clause: str, position: int, column: str, source: _Source, scope: _Scope, grouped: bool, unchecked: bool, rules: Grouping) -> None:
    """The server's answer to a column outside the groups: its error, or the simulator's refusal."""
    shown = f"{source.shown}.{column}"
    if not rules.only_full_group_by or unchecked:
        raise not_supported(f"column '{shown}' in the {clause} of a grouped SELECT, neither grouped nor aggregated (the server takes it from any row of its group)")
    if not rules.flavor.group_by_functional_dependencies:
        if grouped:
            raise SqlError(ErrorCode.ER_WRONG_FIELD_WITH_GROUP, shown)
        raise SqlError(ErrorCode.ER_MIX_OF_GROUP_FUNC_AND_FIELDS)
    if _equalities(scope) or not all(source.base for source in scope.sources) or (clause != "SELECT list" and not grouped):
        raise not_supported(
            f"whether column '{shown}' is functionally dependent on the GROUP BY (MySQL's analysis follows the WHERE's and"
            " joins' equalities and derived tables; the simulator follows keys only)"
        )
    if grouped:
        raise SqlError(ErrorCode.ER_WRONG_FIELD_WITH_GROUP_V2, position, clause, shown)
    raise SqlError(ErrorCode.ER_MIX_OF_GROUP_FUNC_AND_FIELDS_V2, position, clause, shown)


def _equalities(scope: _Scope) -> bool:
    """Whether the SELECT's WHERE or joins hold an equality MySQL could derive a dependency from."""
    select = scope.select
    conditions = [select.args.get("where")] + [join.args.get("on") for join in select.args.get("joins") or []]
    if any(join.args.get("using") or join.args.get("method") for join in select.args.get("joins") or []):
        return True
    return any(condition is not None and condition.find(exp.EQ, exp.NullSafeEQ) is not None for condition in conditions)

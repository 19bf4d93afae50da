"""DDL on tables: CREATE TABLE (also ... SELECT), DROP TABLE, TRUNCATE and ALTER TABLE,
carried out on the catalog and the storage together."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from ..catalog import Column, DefaultKind, Key, KeyKind, Table, TableBuilder, column_from_definition, key_from_constraint, table_from_create
from ..duckdb_connection import quote
from ..errors import ErrorCode, SqlError, not_supported, note
from ..expressions import constant_value, is_constant
from ..statement import target_tables
from ..types import TypeFamily
from .handler import shown_value
from .insert import InsertRun
from .run import StatementRun


def create_table(run: StatementRun) -> None:
    """CREATE [TEMPORARY] TABLE, with its rows when it is CREATE ... SELECT."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Create)
    properties = ast.args.get("properties")
    if properties and any(isinstance(p, exp.LikeProperty) for p in properties.expressions):
        raise not_supported("CREATE TABLE ... LIKE")
    query = ast.expression
    if query is not None and not isinstance(query, exp.Select):
        raise not_supported(f"CREATE TABLE ... {query.key.upper()}")
    selected = _selected_columns(run, ast, query) if query is not None else []
    table = table_from_create(ast, run.server.engines, [column for _, column in selected if column is not None])
    catalog, session = run.catalog, run.session
    owner = session.thread_id if table.temporary else None
    existing = catalog.find(table.name, owner) if table.temporary else catalog.find(table.name)
    if existing is not None and existing.temporary == table.temporary:
        if ast.args.get("exists"):
            run.outcome.warnings.append(note(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name))
            return
        raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name)
    table.owner = owner
    run.storage.create(table, f"#tmp{owner}_{table.name}" if table.temporary else table.name.lower())
    catalog.add(table)
    if query is not None:
        _fill_from_select(run, table, query, [name for name, _ in selected])


def _selected_columns(run: StatementRun, ast: exp.Create, query: exp.Select) -> list[tuple[str, Column | None]]:
    """Each SELECT item of a CREATE ... SELECT by name, with the column it adds to the new
    table, or None when the definition declares that name. A column taken from a source
    table keeps its type, NULL-ability and default, not AUTO_INCREMENT or keys."""
    schema = ast.this
    declared = {e.name.lower() for e in schema.expressions if isinstance(e, exp.ColumnDef)} if isinstance(schema, exp.Schema) else set()
    sources: dict[str, Table] = {}
    for source in [query.args.get("from_"), *(query.args.get("joins") or [])]:
        if source is not None and isinstance(source.this, exp.Table):
            sources[source.this.alias_or_name.lower()] = run.table(source.this)
    items: list[tuple[str, Column | None]] = []
    for item in query.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
            tables = list(sources.values()) if isinstance(item, exp.Star) else [sources[item.table.lower()]]
            items.extend((c.name, None if c.name.lower() in declared else _copied(c, c.name)) for t in tables for c in t.columns)
            continue
        name, expression = item.alias_or_name, item.unalias()
        if name.lower() in declared:
            items.append((name, None))
        elif isinstance(expression, exp.Column):
            items.append((name, _copied(_source_column(sources, expression), name)))
        else:
            raise not_supported(f"CREATE TABLE ... SELECT of the expression {expression.sql(dialect='mysql')!r} (declare its column in the table definition and name it with AS)")
    seen: set[str] = set()
    for name, _ in items:
        if name.lower() in seen:
            raise SqlError(ErrorCode.ER_DUP_FIELDNAME, name)
        seen.add(name.lower())
    return items


def _fill_from_select(run: StatementRun, table: Table, query: exp.Select, names: list[str]) -> None:
    """Insert the SELECT's rows as INSERT ... SELECT would (IGNORE or REPLACE on duplicates);
    on an error the new table goes again, with every row it got."""
    columns = [table.column(name) for name in names]
    transaction = run.session.ensure_transaction()
    mark = len(transaction.undo)
    try:
        InsertRun(run, table, columns, run.statement.write_mode).run(query)
    except SqlError:
        transaction.undo_to(mark, run.storage)
        run.storage.drop(table)
        run.catalog.remove(table)
        run.outcome.changes.clear()
        run.outcome.affected_rows = 0
        raise


def drop_table(run: StatementRun) -> None:
    """DROP [TEMPORARY] TABLE [IF EXISTS]: a table's triggers go with it."""
    statement, catalog = run.statement, run.catalog
    ast = statement.ast
    assert isinstance(ast, exp.Drop)
    missing = []
    for node in target_tables(statement):
        table = catalog.find(node.name, run.session.thread_id)
        if table is None or (statement.temporary and not table.temporary):
            missing.append(f"{catalog.database}.{node.name}")
            continue
        run.storage.drop(table)
        catalog.remove(table)
        if not table.temporary:
            catalog.triggers = [t for t in catalog.triggers if t.table.lower() != table.name.lower()]
    if missing:
        if ast.args.get("exists"):
            run.outcome.warnings.extend(note(ErrorCode.ER_BAD_TABLE_ERROR, name) for name in missing)
        else:
            raise SqlError(ErrorCode.ER_BAD_TABLE_ERROR, ",".join(missing))


def truncate(run: StatementRun) -> None:
    """TRUNCATE: every row gone at once, the auto-increment counter back to 1."""
    for node in target_tables(run.statement):
        table = run.table(node)
        run.storage.delete_all(table)
        table.auto_increment = 1


def alter_table(run: StatementRun) -> None:
    """ALTER TABLE: the actions applied to a copy of the table, checked against the rows
    already stored, then the storage's columns changed and the catalog's replaced."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Alter)
    if (ast.args.get("kind") or "TABLE").upper() != "TABLE":
        raise not_supported(f"ALTER {ast.args.get('kind')}")
    table = run.table(ast.this)
    altered = table.copy()
    builder = TableBuilder(altered)
    added: list[Column] = []
    dropped: list[Column] = []
    for action in ast.args.get("actions") or []:
        _alter_action(builder, action, added, dropped)
    builder.check()
    _check_existing_rows(run, table, altered, {c.name.lower(): _fill_value(c) for c in added})
    for column in dropped:
        run.storage.drop_column(table, column)
    for column in added:
        run.storage.add_column(table, column, _fill_value(column))
    table.columns, table.keys = altered.columns, altered.keys


def _alter_action(builder: TableBuilder, action: exp.Expression, added: list[Column], dropped: list[Column]) -> None:
    table = builder.table
    if isinstance(action, exp.ColumnDef):
        _add_column(builder, action, added)
    elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "COLUMN":
        for node in action.args.get("tables") or []:
            _drop_column(table, node.name, dropped)
    elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "INDEX":
        for node in action.args.get("tables") or []:
            key = next((k for k in table.keys if k.name.lower() == node.name.lower()), None)
            if key is None:
                raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, node.name)
            table.keys.remove(key)
    elif isinstance(action, exp.DropPrimaryKey):
        key = next((k for k in table.keys if k.kind is KeyKind.PRIMARY), None)
        if key is None:
            raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, "PRIMARY")
        table.keys.remove(key)
    elif isinstance(action, exp.AddConstraint):
        for constraint in action.expressions:
            builder.add_key(key_from_constraint(constraint))
    elif isinstance(action, exp.AlterColumn):
        _alter_column_default(table, action)
    else:
        raise not_supported(f"ALTER TABLE action {action.sql(dialect='mysql')!r}")


def _add_column(builder: TableBuilder, action: exp.ColumnDef, added: list[Column]) -> None:
    """ADD COLUMN [FIRST | AFTER col], with the keys its definition declares."""
    table = builder.table
    column, keys = column_from_definition(action)
    position = action.args.get("position")
    index = None
    if position is not None:
        index = 0 if position.args.get("position") == "FIRST" else table.column_index(position.this.name) + 1
    builder.add_column(column, index)
    added.append(column)
    for kind in keys:
        builder.add_key(Key("PRIMARY" if kind is KeyKind.PRIMARY else "", kind, (column.name,)))


def _drop_column(table: Table, name: str, dropped: list[Column]) -> None:
    """DROP COLUMN takes the column out of every key; a key left empty goes too."""
    column = table.find_column(name)
    if column is None:
        raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, name)
    table.columns.remove(column)
    dropped.append(column)
    table.keys = [dataclasses.replace(key, columns=tuple(c for c in key.columns if c.lower() != column.name.lower())) for key in table.keys]
    table.keys = [key for key in table.keys if key.columns]


def _alter_column_default(table: Table, action: exp.AlterColumn) -> None:
    """ALTER COLUMN ... SET DEFAULT constant | DROP DEFAULT."""
    column = table.column(action.this.name)
    index = table.columns.index(column)
    if action.args.get("drop"):
        replaced = dataclasses.replace(column, default_kind=DefaultKind.NONE if not column.nullable else DefaultKind.VALUE, default=None)
    elif action.args.get("default") is not None:
        value = constant_value(action.args["default"]) if is_constant(action.args["default"]) else None
        if not is_constant(action.args["default"]):
            raise not_supported(f"DEFAULT expression {action.args['default'].sql(dialect='mysql')}")
        replaced = dataclasses.replace(column, default_kind=DefaultKind.VALUE, default=column.type.coerce(value, column.name))
    else:
        raise not_supported(f"ALTER COLUMN {action.sql(dialect='mysql')}")
    table.columns[index] = replaced


def _check_existing_rows(run: StatementRun, old: Table, new: Table, added: dict[str, object]) -> None:
    """New unique keys must hold for the rows already stored (added columns hold their fill value)."""
    storage = run.storage
    old_keys = {(k.kind, k.columns) for k in old.unique_keys()}
    for key in new.unique_keys():
        if (key.kind, key.columns) in old_keys:
            continue
        parameters = [added[c.lower()] for c in key.columns if c.lower() in added]
        if any(value is None for value in parameters):
            continue  # a column of NULLs never collides
        columns = ", ".join("?" if c.lower() in added else _key_expression(old.column(c)) for c in key.columns)
        nulls = " AND ".join(f"{quote(c)} IS NOT NULL" for c in key.columns if c.lower() not in added) or "TRUE"
        duplicate = storage.query(
            f"SELECT {columns} FROM {storage.qualified(old)} WHERE {nulls} GROUP BY ALL HAVING count(*) > 1 LIMIT 1",
            parameters,
        )
        if duplicate:
            shown = "-".join(shown_value(v) for v in duplicate[0])
            raise SqlError(ErrorCode.ER_DUP_ENTRY, shown, key.name)


def _copied(column: Column, name: str) -> Column:
    """A source column as CREATE ... SELECT copies it into the new table."""
    return dataclasses.replace(column, name=name, auto_increment=False, on_update_current_timestamp=False)


def _source_column(sources: dict[str, Table], node: exp.Column) -> Column:
    """The source-table column a SELECT item names (ER_BAD_FIELD_ERROR when none has it)."""
    qualifier = node.table.lower()
    tables = [sources[qualifier]] if qualifier in sources else [] if qualifier else list(sources.values())
    for table in tables:
        column = table.find_column(node.name)
        if column is not None:
            return column
    raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, node.sql(dialect="mysql"), "field list")


def _key_expression(column: Column) -> str:
    """A column as a unique key compares it: strings without case or accents (GROUP BY
    does not apply the column's collation)."""
    if column.type.family is TypeFamily.STRING:
        return f"lower(strip_accents({quote(column.name)}))"
    return quote(column.name)


def _fill_value(column: Column) -> object:
    """What existing rows hold in a column ALTER TABLE adds."""
    if column.default_kind is DefaultKind.VALUE and column.default is not None:
        return column.default
    return None if column.nullable else column.type.implicit_default()

"""DDL on tables: CREATE TABLE (also ... SELECT), DROP TABLE and TRUNCATE,
carried out on the catalog and the storage together."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from ..catalog import ColumnDefaults, table_from_create
from ..charsets import variable_collation
from ..engines import DEFAULT_ENGINE
from ..table import Column, Table
from ..errors import ErrorCode, SqlError, not_supported, note
from ..statement import target_tables
from ..foreign_keys import foreign_key_clauses
from ..storage import storage_name_of
from ..sysvars import strict_sql_mode
from .alter_table import warn_ignored_key_names
from .foreign_key_ddl import add_foreign_keys, check_not_referenced
from .insert import InsertRun
from .views import refuse_drop_table_of_view
from .run import StatementRun
from ..type_declarations import deprecated_type_syntax


def create_table(run: StatementRun) -> None:
    """CREATE [TEMPORARY] TABLE, with its rows when it is CREATE ... SELECT."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Create)
    if run.server.flavor.deprecated_type_syntax_warns:
        run.outcome.warnings += deprecated_type_syntax(ast)  # the parser's, before any other
    properties = ast.args.get("properties")
    like = next((p for p in properties.expressions if isinstance(p, exp.LikeProperty)), None) if properties else None
    query = ast.expression
    if query is not None and not isinstance(query, exp.Select):
        raise not_supported(f"CREATE TABLE ... {query.key.upper()}")
    target = ast.this.this if isinstance(ast.this, exp.Schema) else ast.this
    if target.db and target.db != run.catalog.database:
        run.catalog.check_database(target.db)
        raise SqlError(ErrorCode.ER_BAD_DB_ERROR, target.db)
    selected = _selected_columns(run, ast, query) if query is not None else []
    if like is not None:
        table = _definition_like(run, like, ast.this.name, run.statement.temporary)
    else:
        variables, utf8mb4 = run.session.variables, run.server.flavor.utf8mb4_collation
        temporal = run.temporal_rules if strict_sql_mode(variables) else None
        charsets = ColumnDefaults(variable_collation(variables["character_set_database"], variables["collation_database"], utf8mb4), utf8mb4, temporal)
        engines = (variables.get("default_storage_engine", DEFAULT_ENGINE), variables.get("default_tmp_storage_engine", DEFAULT_ENGINE))
        table = table_from_create(ast, run.server.engines, [column for _, column in selected if column is not None], charsets, engines, run.server.flavor.blob_keys_by_prefix)
        table.take_flavor_types(run.server.flavor.json_column_is_text)
        add_foreign_keys(run, table, foreign_key_clauses(list(ast.this.expressions) if isinstance(ast.this, exp.Schema) else []), creating=True)
    catalog, session = run.catalog, run.session
    owner = session.thread_id if table.temporary else None
    existing = catalog.find(table.name, owner) if table.temporary else catalog.find(table.name)
    named_view = not table.temporary and table.name in catalog.views  # a view's name is taken too
    if named_view or (existing is not None and existing.temporary == table.temporary):
        if ast.args.get("exists"):
            run.outcome.warnings.append(note(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name))
            # CREATE ... IF NOT EXISTS ... SELECT over an existing table does nothing and
            # neither server logs it; MySQL logs the plain CREATE as written.
            run.outcome.executed = query is None and run.server.flavor.logs_create_if_not_exists_over_existing
            return
        raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name)
    table.owner = owner
    run.storage.create(table, catalog.free_storage_name(storage_name_of(table)))
    catalog.add(table)
    warn_ignored_key_names(run, list(ast.this.expressions) if isinstance(ast.this, exp.Schema) else [])
    if query is not None:
        _fill_from_select(run, table, query, [name for name, _ in selected])


def _definition_like(run: StatementRun, like: exp.LikeProperty, name: str, temporary: bool) -> Table:
    """CREATE TABLE name LIKE source: the source's columns, keys and engine, no rows, the
    counter from 1 (1146 when the source is missing)."""
    source = run.table(like.this)
    if like.args.get("expressions"):
        raise not_supported(f"CREATE TABLE ... LIKE with options ({like.sql(dialect='mysql')!r})")
    if source.system is not None:
        raise not_supported(f"CREATE TABLE ... LIKE the system table {source.qualified_name}")
    if source.temporary and not temporary:
        raise not_supported("CREATE TABLE ... LIKE a temporary table (the binlog then carries its definition)")
    return Table(name, list(source.columns), list(source.keys), source.engine, temporary=temporary, collation=source.collation)


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
    if catalog.views:
        refuse_drop_table_of_view(run)
    missing = []
    for node in target_tables(statement):
        catalog.check_database(node.db)
        table = catalog.find(node.name, run.session.thread_id) if node.db in ("", catalog.database) else None
        if table is None or (statement.temporary and not table.temporary):
            missing.append(f"{node.db or catalog.database}.{node.name}")
            continue
        check_not_referenced(run, table, {node.name for node in target_tables(statement)})
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
        check_not_referenced(run, table, set(), truncating=True)
        run.storage.delete_all(table)
        table.auto_increment = 1


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

"""A catalog as a JSON document, so a server kept in a DuckDB file can be reopened.

A real server keeps its table definitions in a data dictionary that commits with the
data. The simulated slave writes this document into its own database in the same
transaction as the rows it applies, so definitions, counters and rows never disagree
after a crash.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlglot

from .catalog import Catalog
from .table import Column, DefaultKind, Key, KeyKind, Table
from .engines import Engine
from .foreign_keys import ForeignKey, ReferentialAction
from .compound.routine import parse_create_routine
from .parser import parse_statement
from .trigger_definition import parse_create_trigger
from .udf import parse_create_function
from .views import ViewDefinition, parse_view
from .types import ColumnType


def catalog_to_json(catalog: Catalog) -> dict[str, Any]:
    return {
        "database": catalog.database,
        "tables": [_table_to_json(table) for table in [*catalog.tables.values(), *catalog.temporary.values()]],
        "triggers": [trigger.sql for trigger in catalog.triggers],  # in firing order
        "udfs": [udf.sql for udf in catalog.udfs.values()],
        "views": [{"sql": view.sql, "query": view.query.sql(dialect="mysql")} for view in catalog.views.values()],


        "routines": [routine.sql for routine in catalog.routines.values()],
        "databases": sorted(catalog.databases),
    }


def catalog_from_json(document: dict[str, Any]) -> Catalog:
    catalog = Catalog(database=document["database"], databases=set(document.get("databases", [])))
    catalog.foreign_keys_defined = any(entry.get("foreign_keys") for entry in document["tables"])
    for entry in document["tables"]:
        catalog.add(_table_from_json(entry))
    catalog.triggers = [parse_create_trigger(sql, parse_statement) for sql in document.get("triggers", [])]
    catalog.udfs = {udf.name.lower(): udf for udf in map(parse_create_function, document.get("udfs", []))}
    catalog.views = {view.name: view for view in map(_view_from_json, document.get("views", []))}


    catalog.routines = {routine.key: routine for routine in map(parse_create_routine, document.get("routines", []))}
    return catalog


def _table_to_json(table: Table) -> dict[str, Any]:
    return {
        "name": table.name,
        "columns": [_column_to_json(column) for column in table.columns],
        "keys": [{"name": key.name, "kind": key.kind.value, "columns": list(key.columns), "prefixes": [list(p) for p in key.prefixes]} for key in table.keys],
        # The whole engine, not its name: a scenario may have declared it.
        "engine": dataclasses.asdict(table.engine),
        "temporary": table.temporary,
        "owner": table.owner,
        "auto_increment": table.auto_increment,
        "next_row_id": table.next_row_id,
        "storage_name": table.storage_name,
        "foreign_keys": [{**dataclasses.asdict(fk), "on_delete": fk.on_delete.value, "on_update": fk.on_update.value} for fk in table.foreign_keys],
        "collation": table.collation,
    }


def _table_from_json(entry: dict[str, Any]) -> Table:
    return Table(
        name=entry["name"],
        columns=[_column_from_json(column) for column in entry["columns"]],
        keys=[Key(key["name"], KeyKind(key["kind"]), tuple(key["columns"]), tuple((c, n) for c, n in key.get("prefixes", ()))) for key in entry["keys"]],
        engine=Engine(**entry["engine"]),
        temporary=entry["temporary"],
        owner=entry["owner"],
        auto_increment=entry["auto_increment"],
        next_row_id=entry["next_row_id"],
        storage_name=entry["storage_name"],
        foreign_keys=[_foreign_key_from_json(fk) for fk in entry.get("foreign_keys", [])],
        collation=entry.get("collation"),
    )


def _foreign_key_from_json(entry: dict[str, Any]) -> ForeignKey:
    return ForeignKey(
        entry["name"],
        tuple(entry["columns"]),
        entry["parent"],
        tuple(entry["parent_columns"]),
        ReferentialAction(entry["on_delete"]),
        ReferentialAction(entry["on_update"]),
    )


def _column_to_json(column: Column) -> dict[str, Any]:
    return {
        "name": column.name,
        "type": dataclasses.asdict(column.type),
        "nullable": column.nullable,
        "default_kind": column.default_kind.value,
        "default": column.type.to_json(column.default),
        "auto_increment": column.auto_increment,
        "on_update_current_timestamp": column.on_update_current_timestamp,
    }


def _column_from_json(entry: dict[str, Any]) -> Column:
    saved = entry["type"]
    # JSON holds an ENUM's / SET's member list as a list: the type holds a tuple.
    column_type = ColumnType(**{**saved, "members": tuple(saved.get("members", ()))})
    return Column(
        name=entry["name"],
        type=column_type,
        nullable=entry["nullable"],
        default_kind=DefaultKind(entry["default_kind"]),
        default=column_type.from_json(entry["default"]),
        auto_increment=entry["auto_increment"],
        on_update_current_timestamp=entry["on_update_current_timestamp"],
    )


def _view_from_json(entry: dict[str, str]) -> ViewDefinition:
    """A view as created: its statement, and its query with `*` expanded then."""
    return dataclasses.replace(parse_view(entry["sql"]), query=sqlglot.parse_one(entry["query"], read="mysql"))

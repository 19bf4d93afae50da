"""Executing statements on one simulated server, with MySQL semantics.

A DML statement is carried out row by row, as the server's handler calls are: each row's
unique keys are checked against the table as it stands (earlier rows of the same statement
included), auto-increment values come from the catalog's counter, and scans follow the
engine's physical order. Every change is applied at once and returned as a RowChange, so
a failing statement reports exactly the rows it changed before the error. Each row a
statement writes fires the table's triggers for that operation (BEFORE ones may change
the new row); a trigger's row changes are part of the statement's.

`executor` dispatches a statement by its kind to the module of its family (`insert`,
`update`, `delete`, `multi_table`, `select`, `table_ddl`, `object_ddl`); they share one
`run.StatementRun` per statement, the row operations of `handler` and `row_operations`
(which the replica's applier and trigger bodies use too), and the reads of `reads`, which
ask the storage's Python mirror first (`fast_path`) when the server allows it.
"""

"""Applying row events to a server's tables: the replica's SQL thread and a master's BINLOG
statement run the same code (Rows_log_event::do_apply_event)."""

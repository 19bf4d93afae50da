"""The fast path: MySQL expressions compiled to Python closures over the storage's mirrored
rows, answering scans, SET values, selects and joins without DuckDB where Python can tell
the answer exactly as DuckDB's SQL would (server_sim/mirror_scan.py is its entry point)."""

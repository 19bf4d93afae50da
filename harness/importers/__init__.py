"""Importers: a captured workload (a server's general or slow query log, a mysqltest
file) read into the statements of its sessions, then written as ordinary scenario files
(`rplharness import`). One module per input kind; `build.py` makes the scenarios."""

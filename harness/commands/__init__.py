"""The handlers of `rplharness`'s commands, one module per command; `harness.cli` parses
the command line and calls them."""

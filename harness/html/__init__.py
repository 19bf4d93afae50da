"""report.html, by concept: the page and its overview, the run details with their timeline,
the fuzz aggregates and the fidelity section. `harness.html_report` is the entry point."""

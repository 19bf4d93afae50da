"""report.html, by concept: the page and its overview, the run details with their timeline,
the fuzz aggregates and the fidelity section. `page.write_html` is the entry point."""

"""Replication scenarios: the model, the YAML loader that builds it and the writer that saves
it, and generated workloads with the interleavings of their sessions worth running."""

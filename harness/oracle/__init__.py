"""Oracle mode: real MariaDB servers the harness starts, runs scenarios on, and stops."""

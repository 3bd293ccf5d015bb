"""opgraph-demo: the ``opgraph demo`` subcommand (see README.md)."""

"""Results, player records and pictures, each a pure function of the journal's events (the
modules: docs/results.md)."""

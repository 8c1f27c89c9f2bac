"""The pure cribbage rules engine (docs/rules.md), each module imported by its full name; no I/O
but reading the seeds' words (``rules.toml``) at import."""

"""Storage: the journal's SQLite file, its checks and the files beside it (a module each).
Nothing here imports the engine."""

"""Storage: the journal's SQLite file, its checks and the files beside it.

:mod:`.journal` opens and checks the file, appends and reads the events; :mod:`.journal_file`
names the files beside it, :mod:`.integrity` finds damage, :mod:`.lock` keeps a second writer
out and :mod:`.diagnose` says why a file cannot be used. Nothing here imports the engine.
"""

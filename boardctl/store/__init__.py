"""Storage: the journal's SQLite file, its checks and the files beside it.

:mod:`.journal` appends and reads the events; below it :mod:`.journal_file` opens and
checks the file, :mod:`.integrity` finds damage, :mod:`.lock` keeps a second writer out
and :mod:`.diagnose` says why a file cannot be used. Nothing here imports the engine.
"""

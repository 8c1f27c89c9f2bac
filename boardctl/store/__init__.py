"""Storage: the journal's SQLite file, its checks and the files beside it.

:mod:`~boardctl.store.journal` appends and reads the events; below it,
:mod:`~boardctl.store.journal_file` opens and checks the file,
:mod:`~boardctl.store.integrity` finds
damage (changing nothing, or setting the damaged files aside for a writer),
:mod:`~boardctl.store.lock` keeps a second writer out and
:mod:`~boardctl.store.diagnose` says why a file cannot be used. What the board
does about damage (the sign, the status report, the backups at a game's end) is
the scorekeeper's (:mod:`boardctl.game.keeper`) and the service's. Nothing here
imports the engine.
"""

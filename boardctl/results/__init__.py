"""Results, player records and pictures, derived from the journal's events.

Nothing here keeps a store of its own: every result is a pure function of the
journal's events (:mod:`.derive` folds them with the scorekeeping engine's own
:class:`~boardctl.game.machine.Machine`), so a result can never disagree with the
journal it came from. :mod:`.model` is the result's stable format,
:mod:`.export` writes and reads it as CSV or JSON lines.
"""

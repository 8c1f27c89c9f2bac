"""Computer players playing whole games of cribbage through the scorekeeping engine.

``boardctl demo`` uses this package: :mod:`.dealer` shuffles and deals real
cards from a seeded random source, :mod:`.players` decides discards and plays,
:mod:`.game` drives a whole game through ``Scorekeeper.apply`` commands (the
same commands the buttons send), and :mod:`.log` words the play-by-play.
"""

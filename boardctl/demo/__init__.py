"""Computer players playing whole games of cribbage through the scorekeeping engine
(``boardctl demo``): :mod:`.dealer` deals, :mod:`.players` choose, :mod:`.game` drives the
engine with the buttons' commands, :mod:`.log` words the play-by-play."""

"""Computer players playing whole games of cribbage through the scorekeeping engine
(``boardctl demo``, docs/demo.md)."""

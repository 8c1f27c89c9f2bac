"""The pure cribbage rules engine (docs/rules.md): cards, hand scoring, pegging, variants.

No I/O but reading the seeds' words (``rules.toml``) at import; each module is imported by its
full name (:func:`boardctl.cribbage.hand.score_hand` shows an example).
"""

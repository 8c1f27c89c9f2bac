"""The pure cribbage rules engine: cards, hand scoring, pegging, variants.

No I/O and no hardware imports live in this package.
"""

from boardctl.cribbage.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = ["DEFAULT_VARIANT", "VARIANTS", "Variant", "get_variant"]

"""boardctl: the software of an electronic cribbage pegboard.

The package is layered: a pure core (``cribbage`` rules, ``game`` scorekeeping,
``board`` rendering) and thin edges (``link`` to the LED controller, ``inputs``
for buttons, ``service`` that ties them together, ``cli``).
"""

__version__ = "0.1.0"

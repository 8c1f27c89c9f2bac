"""boardctl: the software of an electronic cribbage pegboard (the packages: docs/development.md)."""

__version__ = "0.1.0"

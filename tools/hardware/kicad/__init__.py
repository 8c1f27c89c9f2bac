"""The carrier board as a KiCad project, generated from the code."""

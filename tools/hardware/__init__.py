"""The hardware build's documents, generated from the code: drawings, cut lists, power tables,
the bill of materials and the woodwork files. Run from the repository's root
(``python -m tools.hardware.docs --write``); nothing here runs on a board."""

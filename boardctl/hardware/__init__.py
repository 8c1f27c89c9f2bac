"""What of the hardware build runs on a board: ``boardctl selftest`` (the build's documents are made
by ``tools/hardware/``)."""

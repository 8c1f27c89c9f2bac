"""Tools of the repository that do not run on a board: they generate and check its documents.

Run them from the repository's root (``python -m tools.hardware.docs --write``).
"""

from pathlib import Path

#: The repository's root, which holds ``hardware/`` and ``firmware/``.
REPO = Path(__file__).resolve().parent.parent

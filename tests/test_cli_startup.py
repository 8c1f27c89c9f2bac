"""The command line imports only the verb it runs (start-up cost on a Pi)."""

from __future__ import annotations

import subprocess
import sys

from boardctl.cli import build_parser

CHECK = """
import sys
from boardctl.cli import main
main(["score", "5H", "5C", "5S", "JD", "5D"])
loaded = sorted(m for m in sys.modules if m.startswith("boardctl.cli.cmd_"))
print(",".join(loaded))
"""


def test_a_verb_imports_its_own_module_only() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "boardctl.cli.cmd_score"


def test_help_lists_every_verb() -> None:
    parser = build_parser([])
    help_text = parser.format_help()
    for verb in ("demo", "new-game", "peg", "run", "score", "status"):
        assert verb in help_text


def test_an_unknown_verb_is_refused_with_the_full_list() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "boardctl", "bogus"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'bogus'" in done.stderr
    assert "'new-game'" in done.stderr

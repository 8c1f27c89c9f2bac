"""Every boardctl command the docs show works as written (tests/doc_commands.py runs them).

One pass starts a virtual board (``boardctl run --display none`` on mock pins in a
temporary HOME) and a mosquitto on the docs' default broker port, puts the board in a
game state that fits each command and runs it in bash exactly as the doc writes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import doc_commands
from tests.doc_commands import Result, documented_commands, output_differs, plan


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    return doc_commands.check(tmp_path_factory.mktemp("doc-commands"))


@pytest.mark.slow
def test_every_documented_command_that_can_run_here_works_as_written(
    results: list[Result],
) -> None:
    wrong = [
        f"{r.documented.where}: {r.documented.text!r} ran {r.plan.command!r}: {r.outcome}: "
        f"{r.first_line}"
        for r in results
        if not r.ok
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_only_hardware_the_installed_board_the_service_itself_and_mentions_are_left_unrun(
    results: list[Result],
) -> None:
    # a broker that cannot start or a usage line with no example is a failure, never a skip
    unrun = {r.documented.text: r.plan.reason for r in results if not r.ran}
    allowed = {reason for _, reason in doc_commands.NOT_HERE}
    allowed |= {doc_commands.MENTION, doc_commands.NO_JQ}
    assert set(unrun.values()) <= allowed, unrun
    ran = {r.documented.text for r in results if r.ran}
    assert len(ran) >= 120  # the docs show well over a hundred distinct commands
    for needed in ("boardctl mqtt", "boardctl standings", "boardctl set volume 0.5"):
        assert needed in ran


def test_the_checker_finds_commands_in_blocks_inline_code_and_usage_lines(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "hardware").mkdir()
    (tmp_path / "firmware").mkdir()
    (tmp_path / "firmware" / "README.md").write_text("Flash with `boardctl firmware install`.\n")
    (tmp_path / "README.md").write_text(
        "Try `boardctl status --json`, or\n`boardctl set match\nbest-of-5` (`boardctl` itself).\n"
        "\n```sh\n$ boardctl score 5H 5C 5S JD 5D   # a comment\ngit clone x boardctl\n```\n"
        "\n    boardctl standings --by player\n\n| `boardctl peg TRACK [POINTS]` | x |\n"
        "\n`boardctl key init` · `key id` · `key list`, then `next`\n"
    )
    found = [(c.where, c.text, c.inline) for c in documented_commands(tmp_path)]
    assert found == [
        ("README.md:1", "boardctl status --json", True),
        ("README.md:2", "boardctl set match best-of-5", True),
        ("README.md:6", "boardctl score 5H 5C 5S JD 5D", False),
        ("README.md:10", "boardctl standings --by player", False),
        ("README.md:12", "boardctl peg TRACK [POINTS]", True),
        ("README.md:14", "boardctl key init", True),
        ("README.md:14", "boardctl key id", True),
        ("README.md:14", "boardctl key list", True),
        ("firmware/README.md:1", "boardctl firmware install", True),
    ]


def test_a_usage_line_runs_its_shortest_form_with_example_values() -> None:
    assert plan("boardctl peg TRACK POINTS [--kind KIND]").command == "boardctl peg 1 2"
    assert plan("boardctl standings schedule PLAYER ... --boards N").command == (
        "boardctl standings schedule Ann Bob Cat Dan --boards 2"
    )
    quoted = 'boardctl snapshot board.png --state \'{"tracks": [{"front": 5}]}\''
    assert plan(quoted).command == quoted  # brackets inside quotes are JSON, not optional parts
    assert plan("boardctl firmware install --port /dev/ttyACM0").reason.startswith("needs a")


def test_the_output_a_doc_shows_is_compared_line_by_line_with_dots_for_any_lines() -> None:
    assert output_differs(("a", "...", "z"), ["a", "b", "c", "z  ", ""]) == ""
    assert output_differs(("b",), ["a"]) == "line 1 is 'a', the doc shows 'b'"
    assert output_differs(("a", "b"), ["a"]) == "line 2 is '(none)', the doc shows 'b'"
    assert output_differs(("a", "...", "y"), ["a", "z"]).startswith("the last lines are ['z']")


@pytest.mark.slow
def test_a_doc_that_disagrees_with_the_cli_fails_the_check(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for folder in ("docs", "hardware", "firmware"):
        (root / folder).mkdir(parents=True)
    (root / "firmware" / "README.md").write_text("\n")
    (root / "README.md").write_text(
        "Peg with `boardctl peg 1 3`, not `boardctl peg 1 --bogus 3`;"
        " `boardctl stats hands [--crib] [--nonsense]`.\n\n"
        "```console\n$ boardctl score 5H 5C 5S JD 5D\nhand 5H 5C 5S JD  starter 5D\n...\ntotal 29\n"
        "$ boardctl score 5H 5C 5S 5D JD\n...\ntotal 29\n```\n"
    )
    results = {r.documented.text: r for r in doc_commands.check(tmp_path / "board", root)}
    pegged = results["boardctl peg 1 3"]
    assert pegged.ok and pegged.first_line.startswith("six-card to 121 · guided · phase play")
    bogus = results["boardctl peg 1 --bogus 3"]
    assert not bogus.ok and bogus.exit == 2
    synopsis = results["boardctl stats hands [--crib] [--nonsense]"]
    assert synopsis.exit == 0 and synopsis.missing_options == ("--nonsense",)
    assert not synopsis.ok
    assert results["boardctl score 5H 5C 5S JD 5D"].ok  # 29, as shown
    wrong = results["boardctl score 5H 5C 5S 5D JD"]  # the jack is the starter: 28
    assert wrong.exit == 0 and not wrong.ok
    assert wrong.shown_differs == "the last lines are ['total 28'], the doc shows ['total 29']"

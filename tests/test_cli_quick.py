"""A plain command line read without argparse (boardctl.cli.quick) is read as argparse reads it.

Every verb whose options the quick reader understands is tried with lines made of
its own option names, good and bad values and tokens argparse treats specially;
whenever the quick reader accepts a line, argparse must accept it too and give the
same values. Lines it must leave to argparse (so that argparse's messages are
printed) are checked too.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.cli import build_parser, command_modules, main, quick, quick_args

REPO = Path(__file__).resolve().parent.parent

#: Verbs the running service answers: their plain lines must not need argparse.
SERVICE_VERBS: tuple[str, ...] = (
    "status",
    "peg",
    "history",
    "undo",
    "redo",
    "next",
    "cut",
    "confirm",
    "set",
)
SERVICE_VERBS += ("new-game", "watch")

#: Tokens argparse treats specially, or that a type or a choice refuses.
TRICKY: tuple[str, ...] = (
    "1",
    "12",
    "0",
    "-1",
    "-5",
    "x",
    "",
    "5H",
    "5S",
    "hand",
    "crib",
    "bogus",
    "2.5",
)
TRICKY += ("--", "-", "-h", "--help", "--json=1", "--js", "--kind=hand", "a b", "-x y", "--version")


def argparse_values(argv: list[str]) -> dict[str, object] | None:
    """argparse's values for ``argv``, or ``None`` when it refuses the line (or prints help)."""
    parser = build_parser(argv)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(parser.parse_args(argv))
        except SystemExit:
            return None


def quick_values(argv: list[str]) -> dict[str, object] | None:
    args = quick_args(argv)
    return None if args is None else vars(args)


def _words(verb: str) -> list[str]:
    module = command_modules(verb)[0]
    spec = quick.spec_of(module.add_arguments)
    assert spec is not None, verb
    names = list(spec.options)
    for action in [*spec.positionals, *spec.options.values()]:
        if isinstance(action.choices, list | tuple):
            names += [str(c) for c in action.choices][:4]
    return names + list(TRICKY)


QUICK_VERBS = [m.NAME for m in command_modules() if quick.spec_of(m.add_arguments) is not None]


@pytest.mark.parametrize("verb", QUICK_VERBS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_line_read_quickly_is_read_the_same_by_argparse(
    verb: str, data: st.DataObject
) -> None:
    words = data.draw(st.lists(st.sampled_from(_words(verb)), max_size=7))
    argv = [verb, *words]
    fast = quick_values(argv)
    if fast is not None:
        assert argparse_values(argv) == fast, argv


PLAIN = [
    ["status"],
    ["status", "--json"],
    ["status", "--socket", "/run/s.sock", "--json"],
    ["peg", "1", "12"],
    ["peg", "1", "12", "--kind", "hand"],
    ["peg", "2", "--hand", "5H", "5D", "JS", "QC", "--starter", "5S"],
    ["peg", "2", "--crib", "5h,5d", "js", "qc"],
    ["history"],
    ["history", "--all", "--json"],
    ["undo", "--config", "/etc/boardctl/config.toml"],
    ["redo"],
    ["next"],
    ["cut", "1"],
    ["set", "brightness", "40"],
    ["watch", "--count", "3", "--timeout", "2.5"],
    ["new-game", "--players", "3", "--variant", "five-card"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_plain_lines_are_read_without_argparse_as_argparse_reads_them(argv: list[str]) -> None:
    fast = quick_values(argv)
    assert fast is not None
    assert fast == argparse_values(argv)


LEFT_TO_ARGPARSE = [
    ["peg", "x"],  # not a number
    ["peg", "1", "2", "3"],  # one too many
    ["peg", "1", "--kind", "hand", "12"],  # a positional after an option: argparse refuses it
    ["peg", "--kind", "hand", "1", "12"],  # argparse takes this one
    ["peg", "1", "12", "--kind", "bogus"],  # not a choice
    ["peg", "1", "--hand", "5H", "--crib", "5D"],  # an exclusive group
    ["peg", "-1", "12"],  # a negative number
    ["status", "--js"],  # an abbreviation
    ["status", "--json", "--json"],
    ["status", "--socket"],  # the value missing
    ["status", "--socket=/s.sock"],
    ["status", "-h"],
    ["status", "--", "x"],
    ["new_game"],  # the module's name, not the verb's
    ["--version"],
    [],
    ["bogus"],
    ["score", "5H", "5C", "5S", "JD", "5D"],  # a verb that declares what the reader leaves
]


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=" ".join)
def test_other_lines_are_left_to_argparse(argv: list[str]) -> None:
    assert quick_args(argv) is None


def test_the_verbs_the_service_answers_are_read_quickly() -> None:
    assert set(SERVICE_VERBS) <= set(QUICK_VERBS)


def test_an_unknown_declaration_leaves_the_verb_to_argparse() -> None:
    def nested(parser: object) -> None:
        parser.add_subparsers()  # type: ignore[attr-defined]

    def appending(parser: object) -> None:
        parser.add_argument("--tag", action="append")  # type: ignore[attr-defined]

    def custom(parser: object) -> None:
        parser.add_argument("--path", type=Path)  # type: ignore[attr-defined]

    for add_arguments in (nested, appending, custom):
        assert quick.spec_of(add_arguments) is None


def test_argparse_still_gives_its_messages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["peg", "1", "12", "--kind", "bogus"])
    assert exc.value.code == 2
    assert "argument --kind: invalid choice: 'bogus'" in capsys.readouterr().err


def test_a_plain_verb_does_not_import_argparse(tmp_path: Path) -> None:
    code = (
        "import sys; from boardctl.cli import main; code = main(sys.argv[1:]); "
        "print('argparse' in sys.modules, 'gettext' in sys.modules, 'locale' in sys.modules)"
    )
    argv = ["status", "--socket", str(tmp_path / "none.sock"), "--journal", str(tmp_path / "j")]
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, *argv],
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "there is no journal at" in done.stderr
    assert done.stdout.split() == ["False", "False", "False"]

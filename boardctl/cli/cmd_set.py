from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, send
from boardctl.errors import OptionError

HELP = "change a setting of the game or of the board, as settings mode on the board does"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", help=_KeysHelp("a setting"))
    parser.add_argument(
        "value", help="the new value (numbers and true/false are read as such; names: Ann,Bob)"
    )
    add_target_options(parser)


class _KeysHelp(str):
    """The key's help, read from the engine's tables only when argparse prints it (argparse
    expands every help with ``%``), so a ``set`` the service answers loads no engine."""

    __slots__ = ()

    def __mod__(self, params: object) -> str:
        from boardctl.service.settings import BOARD_SETTINGS, setting_keys

        game = [key for key in setting_keys() if key not in BOARD_SETTINGS]
        return (
            f"a setting of the game ({', '.join(game)}) or of the "
            f"running board ({', '.join(BOARD_SETTINGS)}: kept until the service restarts)"
        )


def parse_value(key: str, text: str) -> object:
    """``"121"`` -> 121, ``"true"`` -> True, names -> a list, ``{...}`` -> an object (JSON);
    anything else stays text."""
    if key in ("names", "roster"):
        return [name.strip() for name in text.split(",")]
    if text.lstrip().startswith("{"):  # points: '{"win": 1, "skunk": 2}'
        import json

        try:
            return json.loads(text)
        except ValueError:
            raise OptionError(f"set {key}: {text!r} is not a JSON object") from None
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def run(args: argparse.Namespace) -> int:
    key = "house_rules" if args.key == "house-rules" else args.key
    value = args.value if key == "house_rules" else parse_value(key, args.value)
    return send(args, {"op": "set", "key": key, "value": value})

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from boardctl.cli.verbs import add_target_options, target_paths
from boardctl.errors import ConfigError

if TYPE_CHECKING:
    from boardctl.web.page_config import WebConfig
    from boardctl.web.pairing import Pairing
    from boardctl.web.results import ResultsFeed

HELP = "the live board page for phones on the local network: serve, pair, unpair, phones"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        nargs="?",
        default="serve",
        choices=["serve", "pair", "unpair", "phones"],
        help="serve the page (default); pair: print a code for a phone; "
        "unpair [ID]: revoke every phone (or one); phones: list the paired phones",
    )
    parser.add_argument("ident", nargs="?", metavar="ID", help="unpair: the phone's id only")
    parser.add_argument(
        "--web-config", metavar="PATH", help="the page's settings (default /etc/boardctl/web.toml)"
    )
    add_target_options(parser, None)
    parser.add_argument(
        "--listen",
        metavar="ADDR",
        action="append",
        help="an address to listen on (repeat for more; default 127.0.0.1)",
    )
    parser.add_argument("--port", type=int, help="the port (default 8121)")
    parser.add_argument("--state", metavar="DIR", help="where the phones' tokens are kept")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from boardctl.web.page_config import load_web_config, state_dir, with_overrides
    from boardctl.web.pairing import CODE_TTL, Pairing

    config = with_overrides(load_web_config(args.web_config), listen=args.listen, port=args.port)
    if args.state:
        config = replace(config, state=args.state)
    pairing = Pairing(state_dir(config))
    if args.action == "pair":
        code = pairing.new_code()
        print(
            f"pairing code: {code}  (enter it on the phone's page within {CODE_TTL / 60:.0f} min)"
        )
    elif args.action == "unpair":
        gone = pairing.revoke(args.ident)
        print(f"revoked {gone} phone{'s' if gone != 1 else ''}: they are read-only again")
    elif args.action == "phones":
        phones = pairing.phones()
        for phone in phones:
            print(f"{phone['id']}  {phone['label']}")
        if not phones:
            print("no phone is paired (boardctl web pair)")
    else:
        _serve(args, config, pairing)
    return 0


def _serve(args: argparse.Namespace, config: WebConfig, pairing: Pairing) -> None:
    from boardctl.web.lean import prepare

    prepare()  # first: asyncio and aiohttp without the TLS contexts plain HTTP never uses
    import logging

    from boardctl.board.layout import load_layout
    from boardctl.config import load_config
    from boardctl.web.socket_source import Source

    try:
        from boardctl.web.server import make_app, serve
    except ImportError as exc:
        raise ConfigError(f"the page needs aiohttp: pip install 'boardctl[web]' ({exc})") from None
    logging.basicConfig(level=logging.INFO, format="boardctl web: %(message)s")
    main = load_config(args.config)
    socket_file, journal = target_paths(args)
    source = Source(socket_file, poll_interval=config.poll_interval)
    feed: ResultsFeed | None = None  # the broker's results for the pages, with this board's id
    board = ""
    if config.results == "mqtt":
        try:
            import paho.mqtt.client  # noqa: F401
        except ImportError as exc:
            raise ConfigError(
                f"results from the broker need paho-mqtt: pip install 'boardctl[mqtt]' ({exc})"
            ) from None
        from boardctl.results.board import board_id
        from boardctl.web.results import ResultsFeed

        board = main.mqtt.board_id or board_id(journal.parent)
        feed = ResultsFeed(main.mqtt, since=config.standings.since)
    layout = load_layout(str(main.board.layout))
    serve(make_app(config, source, layout, pairing, feed=feed, board=board), config)

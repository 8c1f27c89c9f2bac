"""The board on a phone: ``boardctl web``, a small live page on the local network.

A process of its own (``boardctl-web.service``) that talks to the service only
through the control socket, the same way the CLI verbs do, so the page has no
second way to change the game:

- :mod:`~boardctl.web.page_config` reads ``/etc/boardctl/web.toml`` (addresses, port);
- :mod:`~boardctl.web.socket_source` is the one client of the control socket: requests,
  and :meth:`~boardctl.web.socket_source.Source.watch`, the stream of state changes
  (the service's ``watch`` request, or polling ``status`` and ``frame`` when the
  service does not have it);
- :mod:`~boardctl.web.board_leds` lays out the board for the page's SVG from the
  layout and the LEDs' colours (the same picture as ``boardctl snapshot``);
- :mod:`~boardctl.web.pairing` holds pairing codes and phone tokens;
- :mod:`~boardctl.web.tools` the hand scorer, discard advisor and history rows;
- :mod:`~boardctl.web.hub` fans the state out to every open page;
- :mod:`~boardctl.web.server` is the aiohttp application (the ``web`` extra).
"""

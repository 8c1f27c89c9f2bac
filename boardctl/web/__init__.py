"""The board on a phone: ``boardctl web``, a small live page on the local network.

A process of its own that reaches the service only through the control socket
(:mod:`~boardctl.web.socket_source`), so the page has no second way to change the game
(docs/web.md).
"""

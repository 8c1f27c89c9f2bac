"""The board on a phone: ``boardctl web``, a process of its own that reaches the service only
through the control socket, so the page has no second way to change the game (docs/web.md)."""

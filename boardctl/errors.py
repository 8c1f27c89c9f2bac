"""One error hierarchy: every error boardctl raises on purpose derives from :class:`BoardError` and
from the builtin that fits it (``except CardError`` or ``except ValueError``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported when used: a CLI verb the service answers needs no refusal classes
    from collections.abc import Iterable

    from boardctl.refusals import Refusal


class BoardError(Exception):
    """Root of every error boardctl raises on purpose."""


class RulesError(BoardError):
    """A cribbage rule was broken or a rules input is malformed."""


class CardError(RulesError, ValueError):
    """Text that is not a card, or a duplicate card where cards must differ."""


class PlayError(RulesError, ValueError):
    """An illegal play in the pegging (over 31, card not held, out of turn, ...)."""


class VariantError(RulesError, ValueError):
    """An unknown or inconsistent game variant."""


class RuleSetError(RulesError, ValueError):
    """An unknown rule set or house rule."""


class GameError(BoardError):
    """The scorekeeping engine refused something."""


class EntryError(GameError, ValueError):
    """A score entry was rejected, the game state unchanged; ``refusal`` is its class, shown by its
    own sign (:class:`boardctl.refusals.Refusal`)."""

    def __init__(self, message: str, refusal: Refusal | None = None) -> None:
        super().__init__(message)
        if refusal is None:
            from boardctl.refusals import Refusal

            refusal = Refusal.OTHER
        self.refusal: Refusal = refusal

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.refusal))


class JournalError(GameError, OSError):
    """The durable journal cannot be opened, read or written."""


class SchemaError(JournalError):
    """The journal was written by a newer boardctl; it is left untouched."""


class OptionError(BoardError, ValueError):
    """A value given to boardctl is out of range (a brightness, a colour mode, ...)."""


class LayoutError(BoardError, ValueError):
    """A layout file is malformed; the message names the file and the key."""


class ViewError(BoardError, ValueError):
    """A board view that does not hold together (a dealer that is not a track, ...)."""


class FrameError(BoardError, ValueError):
    """A frame of the wrong size: frames are 3 bytes (RGB) per LED of one strip."""


class LinkError(BoardError, OSError):
    """The LED link is down or misbehaving."""


class ProtocolError(BoardError, ValueError):
    """A corrupt, truncated or unsupported protocol frame."""


class ConfigError(BoardError, ValueError):
    """A configuration file is malformed; the message names the file and the key."""


class ControlError(BoardError, RuntimeError):
    """A control-socket request failed."""


class ResultsError(BoardError, ValueError):
    """A result row, an export or a board key is malformed, or fails verification."""


class InputError(BoardError, ValueError):
    """An unknown button or input name."""


class GpioError(BoardError, OSError):
    """The machine has GPIO chips but no gpiozero pin factory could open them."""


class DemoError(BoardError, ValueError):
    """The demo game was asked for something the cards cannot do."""


class HardwareError(BoardError, ValueError):
    """A wiring table, pin or LED strip description that cannot be built."""


def unknown(what: str, name: object, names: Iterable[str]) -> str:
    """The words for a name that is not one of ``names``: they are listed."""
    return f"unknown {what} {name!r} (known: {', '.join(names)})"


def refusal_of(exc: BaseException) -> Refusal:
    """The refusal class of an error the board shows: an entry's own, storage for the journal."""
    from boardctl.refusals import Refusal

    if isinstance(exc, EntryError):
        return exc.refusal
    if isinstance(exc, JournalError):
        return Refusal.STORAGE
    return Refusal.OTHER

"""The LED controller's logic: link bytes in, pixels out.

Plain Python that runs on MicroPython (the Pico) and on CPython (tests, the emulator).
Nothing here touches hardware: the byte stream, the strip, the clock, the status LED
and the watchdog are handed in (see ``hw.py`` for the Pico's, ``emulator.py`` for
CPython's).

- ``stream``: ``read() -> bytes | None`` (never blocks), ``write(data)``,
  ``wait(ms)`` (sleep until input arrives or ``ms`` pass).
- ``strip``: ``show(rgb)`` with ``rgb`` a bytearray of ``3 * led_count`` bytes in
  R, G, B order (the strip applies its own colour order); optionally ``ready()`` (False
  while a refresh is still going out: the controller renders only when it is True, and
  frames applied meanwhile supersede each other) and ``free_in_ms()`` (how long until it
  is; the loop waits no longer than that for input).
- ``clock``: ``ticks_ms()`` and ``ticks_diff(a, b)`` like MicroPython's ``time``.
- ``status`` (optional): ``value(on)``, the Pico's own LED.
- ``watchdog`` (optional): ``feed()``.
- ``buzzer`` (optional): ``play(level, steps, now)`` and ``update(now)``, the piezo that
  plays TONE messages (``buzzer.py``).
"""

import protocol

# mypy treats this as true (firmware/mypy.ini: always_true); MicroPython and CPython
# skip the block, and annotations naming its classes are never evaluated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Stream(Protocol):
        def read(self) -> "protocol.Buffer | None": ...
        def write(self, data: bytes) -> None: ...
        def wait(self, ms: int) -> None: ...

    class Strip(Protocol):
        def show(self, rgb: bytearray) -> None: ...

    class Ready(Protocol):
        def __call__(self) -> bool: ...

    class FreeIn(Protocol):
        def __call__(self) -> int: ...

    class Clock(Protocol):
        def ticks_ms(self) -> int: ...
        def ticks_diff(self, a: int, b: int) -> int: ...

    class Light(Protocol):
        def value(self, on: int) -> None: ...

    class Watchdog(Protocol):
        def feed(self) -> None: ...

    class Scale(Protocol):
        def __call__(self, out: bytearray, frame: bytearray, size: int, factor: int) -> None: ...

    class Tones(Protocol):
        playing: bool

        def play(self, level: int, steps: "list[tuple[int, int]]", now: int) -> None: ...
        def update(self, now: int) -> None: ...

    class Total(Protocol):
        def __call__(self, frame: bytearray, size: int) -> int: ...

    class Apply(Protocol):
        def __call__(
            self, frame: bytearray, size: int, payload: "protocol.Buffer", end: int
        ) -> None: ...

    class Tidy(Protocol):
        def __call__(self) -> None: ...


# 2.1: TONE (protocol.TONE_FIRMWARE), FULL in chunks (CHUNKS_SINCE); 2.2: GOODBYE
FIRMWARE_VERSION = (2, 2, 0)
LINK_LOST_MS = 3000  # host silent for longer than this: show the "link lost" sign
BOOT_MS = 1000  # length of the boot pattern (cut short by the first frame)
BLINK_PERIOD_MS = 1000  # "link lost": status LED on for BLINK_ON_MS of every period
BLINK_ON_MS = 100
IDLE_MA_PER_LED = 1  # WLED's estimate: every LED draws about 1 mA even when dark
KEEP_MS = 50  # housekeeping at least this often, even while frames flow
QUIET_MS = 20  # the link quiet this long after a frame: time to tidy up (the Pico's GC)
LOST_SIGN = (48, 0, 0)  # colour of the status pixel while the link is lost
BOOT_COLOUR = (0, 0, 40)


def estimate_ma(total: int, led_count: int, led_ma: int) -> int:
    """WLED-style current estimate: ``total`` is the sum of every R, G and B byte."""
    return total * led_ma // 765 + led_count * IDLE_MA_PER_LED


def power_scale(total: int, led_count: int, led_ma: int, budget_ma: int) -> int:
    """The factor (0-256, 256 = unchanged) that keeps the estimate within ``budget_ma``.

    Scaling every byte by ``value * factor // 256`` keeps ``estimate_ma`` of the result
    at or under the budget. A budget of 0 means no limit.
    """
    if budget_ma <= 0:
        return 256
    available = budget_ma - led_count * IDLE_MA_PER_LED
    if available <= 0:
        return 0
    lit = total * led_ma // 765
    if lit <= available:
        return 256
    return available * 256 // (total * led_ma // 765 + 1)


def scale_bytes(out: bytearray, frame: bytearray, size: int, factor: int) -> None:
    """``out[i] = frame[i] * factor // 65280``: brightness x power scale (255 x 256 = 1)."""
    for i in range(size):
        out[i] = frame[i] * factor // 65280


def total_bytes(frame: bytearray, size: int) -> int:
    """The sum of ``frame[:size]`` (the power estimate's input)."""
    return sum(frame) if size == len(frame) else sum(frame[:size])


def boot_pattern(out: bytearray, elapsed_ms: int, length_ms: int = BOOT_MS) -> None:
    """The boot pattern at ``elapsed_ms``: one dim blue dot running along the strip."""
    size = len(out)
    for i in range(size):
        out[i] = 0
    if size and length_ms > 0:
        dot = 3 * (elapsed_ms * (size // 3) // length_ms)
        if 0 <= dot < size:
            out[dot] = BOOT_COLOUR[0]
            out[dot + 1] = BOOT_COLOUR[1]
            out[dot + 2] = BOOT_COLOUR[2]


class Controller:
    """Verifies link frames, keeps the LED frame, drives the strip within its power budget."""

    def __init__(
        self,
        stream: "Stream",
        strip: "Strip",
        clock: "Clock",
        led_count: int = 256,
        color_order: str = "GRB",
        budget_ma: int = 2000,
        led_ma: int = 60,
        status: "Light | None" = None,
        status_pixel: int = -1,
        watchdog: "Watchdog | None" = None,
        boot_ms: int = BOOT_MS,
        scale: "Scale | None" = None,
        buzzer: "Tones | None" = None,
        total: "Total | None" = None,
        tidy: "Tidy | None" = None,
        apply: "Apply | None" = None,
    ) -> None:
        self.stream = stream
        self.strip = strip
        # A strip that refreshes in the background (ws2812.PioStrip) says when it is free.
        self.strip_ready: Ready | None = getattr(strip, "ready", None)
        self.strip_free_in: FreeIn | None = getattr(strip, "free_in_ms", None)
        self.clock = clock
        self.led_count = led_count
        self.color_order = color_order
        self.budget_ma = budget_ma  # the controller's own limit, whatever the host asks
        # mA per LED at full white: the controller's own figure is a floor; a host may only
        # raise it (a tighter estimate), never lower it (led_ma(): the figure in force).
        self.own_led_ma = led_ma
        self.led_ma = led_ma
        self.status = status
        self.status_pixel = status_pixel if 0 <= status_pixel < led_count else -1
        self.watchdog = watchdog
        self.boot_ms = boot_ms
        self.scale = scale or scale_bytes  # (hw.scale_bytes on the Pico: compiled)
        self.buzzer = buzzer  # None: no piezo wired (a TONE gets an ERROR, once)
        self.tone_refused = False
        self.total = total or total_bytes  # (hw.total_bytes on the Pico: compiled)
        self.tidy = tidy  # run when the link is quiet after frames (hw.tidy: the GC)
        self.apply = apply  # a DELTA's runs into the frame (hw.apply_runs: compiled)
        self.untidy = False  # frames handled since the last tidy
        self.frame = bytearray(3 * led_count)  # as the host sent it
        self.out = bytearray(3 * led_count)  # what the strip shows
        self.brightness = 255
        self.host_budget_ma = 0
        self.decoder = protocol.Decoder(6 * led_count + 16)
        # A FULL frame arriving in chunks (FULL_CHUNK): put together here, applied whole.
        self.staging = bytearray(3 * led_count)
        self.blank = bytes(3 * led_count)
        self.chunk_seen = bytearray(256)
        self.no_chunks = bytes(256)
        self.chunk_id = -1  # the frame being put together (-1: none)
        self.chunk_count = 0
        self.chunks_left = 0
        self.seq = 0  # our own sequence numbers
        self.expect = -1  # next sequence number expected from the host (-1: any)
        self.applied = 0
        self.pending = False  # a frame applied that no refresh has shown yet
        self.drawn = 0  # frames applied and shown (applied = drawn + superseded + pending)
        self.superseded = 0  # frames applied, then replaced by a newer one before a refresh
        self.bad = 0  # bad frames: corrupt, too long, wrong payload, unknown kind
        self.gaps = 0  # sequence gaps seen (lost frames)
        self.synced = False  # a FULL arrived since boot and since the last gap
        self.refused = 0  # DELTAs refused for want of a FULL
        self.leaving = False  # the host asked for the REPL (UPDATE)
        self.parted = False  # the host stopped cleanly (GOODBYE): dark, and no lost sign
        self.host_seen = False
        now = clock.ticks_ms()
        self.started = now
        self.last_rx = now
        self.kept = now  # the last housekeeping (watchdog, link lost, status LED)
        self.booting = True
        self.lost = False
        self.status_on = False
        self.dirty = True
        self.send(protocol.HELLO, self.hello_payload())

    # --- link ----------------------------------------------------------------

    def hello_payload(self) -> bytes:
        return protocol.hello_payload(
            protocol.PROTOCOL_VERSION, FIRMWARE_VERSION, self.led_count, self.color_order
        )

    def send(self, kind: int, payload: bytes) -> None:
        try:  # noqa: SIM105 (MicroPython has no contextlib)
            self.stream.write(protocol.encode(kind, self.seq, payload))
        except OSError:
            pass  # nobody listening (USB unplugged): the host resyncs on its HELLO
        self.seq = (self.seq + 1) & 0xFF

    def feed(self, data: "protocol.Buffer") -> None:
        """Process bytes from the link (any amount, any split)."""
        before = self.decoder.bad
        self.decoder.each(data, self.handle)
        errors = self.decoder.errors
        self.bad += self.decoder.bad - before
        if errors:
            self.nak(errors[-1])

    def nak(self, reason: int) -> None:
        self.send(protocol.NAK, protocol.nak_payload(self.expect & 0xFF, reason))

    def handle(self, kind: int, seq: int, payload: "protocol.Buffer", version: int) -> None:
        """Act on one verified message from the host (``payload``: a view into the
        decoder's buffer, valid during this call)."""
        self.last_rx = self.clock.ticks_ms()
        self.host_seen = True
        self.parted = kind == protocol.GOODBYE  # (anything else: the host is back)
        if version != protocol.PROTOCOL_VERSION:
            self.old_host(kind)
            return
        if kind == protocol.HELLO:
            self.hello(seq, payload)
            return
        gap = self.expect >= 0 and seq != self.expect
        self.expect = (seq + 1) & 0xFF
        if gap:
            self.gaps += 1
            self.synced = False  # a frame was lost: no DELTA applies until a FULL
            self.nak(protocol.NAK_GAP)
        try:
            if kind == protocol.FULL_CHUNK:
                self.chunk(payload)
            elif kind == protocol.FULL:
                self.full(payload)
            elif kind == protocol.DELTA:
                self.chunk_id = -1
                protocol.check_runs(payload)
                if self.synced:
                    self.apply_delta(payload)
                else:  # on a blank or stale base it would be a wrong frame: ask for a FULL
                    self.refused += 1
                    self.nak(protocol.NAK_NEED_FULL)
            elif kind == protocol.BRIGHTNESS:
                level, budget, led_ma = protocol.parse_brightness(payload)
                self.brightness = level
                self.host_budget_ma = budget
                self.led_ma = max(self.own_led_ma, led_ma)  # never below the firmware's own
                self.dirty = True
            elif kind == protocol.PING:
                token = protocol.parse_ping(payload)
                if self.chunk_id >= 0:
                    self.send_missing()  # (its last chunk may have been lost)
                pong = protocol.pong_payload(token, self.applied, self.bad, self.drawn)
                self.send(protocol.PONG, pong)
            elif kind == protocol.UPDATE and bytes(payload) == protocol.UPDATE_KEY:
                self.leaving = True  # run() returns: main.py leaves the REPL free
            elif kind == protocol.TONE:
                self.tone(protocol.parse_tone(payload))
            elif kind == protocol.GOODBYE:
                self.goodbye()
        except ValueError:
            self.reject()

    def hello(self, seq: int, payload: "protocol.Buffer") -> None:
        self.expect = (seq + 1) & 0xFF
        try:
            version, _host, _count, _order = protocol.parse_hello(payload)
        except ValueError:
            self.reject()
            return
        if version != protocol.PROTOCOL_VERSION:
            self.send(protocol.ERROR, self.version_error(version))
            return
        self.send(protocol.HELLO, self.hello_payload())

    def full(self, payload: "protocol.Buffer") -> None:
        if len(payload) % 3:
            protocol.parse_full(payload)  # (raises: not whole RGB triples)
        self.chunk_id = -1  # (a newer frame: the one in chunks is abandoned)
        self.apply_full(payload)
        self.synced = True

    def goodbye(self) -> None:
        """The host stopped cleanly: the strip dark, and dark it stays while the host is
        away (no link-lost sign: ``parted``), until the host is back with a FULL."""
        size = len(self.frame)
        self.frame[0:size] = self.blank
        self.chunk_id = -1
        self.synced = False  # (its next frame is a FULL: it says HELLO first)
        self.frame_applied()

    def tone(self, tone: "tuple[int, list[tuple[int, int]]]") -> None:
        """A TONE for the buzzer; with none wired, an ERROR (once) saying so."""
        if self.buzzer is not None:
            self.buzzer.play(tone[0], tone[1], self.clock.ticks_ms())
        elif not self.tone_refused:
            self.tone_refused = True
            text = "no buzzer wired: set BUZZER_PIN in the controller's config.py"
            self.send(protocol.ERROR, protocol.error_payload(protocol.ERR_NO_BUZZER, text))

    def version_error(self, version: int) -> bytes:
        text = "firmware speaks protocol " + str(protocol.PROTOCOL_VERSION)
        text += ", host speaks " + str(version) + ": update boardctl or the firmware"
        return protocol.error_payload(protocol.ERR_VERSION, text)

    def old_host(self, kind: int) -> None:
        """A frame in protocol 1's form: never applied; a HELLO gets an ERROR the old
        host can read (in its own form), so it says why instead of seeing noise."""
        self.bad += 1
        if kind == protocol.HELLO:
            wire = protocol.encode_legacy(protocol.ERROR, self.seq, self.version_error(1))
            self.seq = (self.seq + 1) & 0xFF
            try:  # noqa: SIM105 (MicroPython has no contextlib)
                self.stream.write(wire)
            except OSError:
                pass

    def reject(self) -> None:
        self.bad += 1
        self.nak(protocol.NAK_BAD_PAYLOAD)

    # --- frame ---------------------------------------------------------------

    def apply_full(self, rgb: "protocol.Buffer") -> None:
        size = len(self.frame)
        if len(rgb) >= size:
            self.frame[0:size] = rgb[0:size]
        else:
            self.frame[0 : len(rgb)] = rgb
            self.frame[len(rgb) : size] = bytes(size - len(rgb))
        self.frame_applied()

    def apply_runs(self, runs: "list[tuple[int, bytes]]") -> None:
        size = len(self.frame)
        for start, rgb in runs:
            first = 3 * start
            if first >= size:
                continue  # LEDs past the end of this strip
            stop = min(size, first + len(rgb))
            self.frame[first:stop] = rgb[0 : stop - first]
        self.frame_applied()

    def chunk(self, payload: "protocol.Buffer") -> None:
        """One chunk of a FULL frame: kept; the frame applied once every chunk is in."""
        frame_id, index, count, first, rgb = protocol.parse_chunk(payload)
        if frame_id != self.chunk_id or count != self.chunk_count:  # a new frame
            self.chunk_id = frame_id
            self.chunk_count = count
            self.chunks_left = count
            self.chunk_seen[0:256] = self.no_chunks
            self.staging[0 : len(self.staging)] = self.blank
            self.synced = False  # the host counts on this frame: no DELTA until it is whole
        if not self.chunk_seen[index]:
            self.chunk_seen[index] = 1
            self.chunks_left -= 1
            size = len(self.staging)
            start = 3 * first
            if start < size:  # (LEDs past the end of this strip are dropped)
                stop = min(size, start + len(rgb))
                self.staging[start:stop] = rgb[0 : stop - start]
        if self.chunks_left == 0:
            self.chunk_id = -1
            self.frame[0 : len(self.frame)] = self.staging
            self.synced = True
            self.frame_applied()
            self.send(protocol.CHUNKS, protocol.chunks_payload(frame_id, []))
        elif not self.missing_after(index):  # the last one the host sent, as far as we know
            self.send_missing()

    def missing_after(self, index: int) -> bool:
        seen = self.chunk_seen
        return any(not seen[later] for later in range(index + 1, self.chunk_count))

    def send_missing(self) -> None:
        """CHUNKS: which chunks of the frame being put together are still missing."""
        seen = self.chunk_seen
        missing = [i for i in range(self.chunk_count) if not seen[i]]
        self.send(protocol.CHUNKS, protocol.chunks_payload(self.chunk_id, missing))

    def apply_delta(self, payload: "protocol.Buffer") -> None:
        """The runs of a checked DELTA payload (``protocol.check_runs``), straight from it."""
        frame = self.frame
        size = len(frame)
        if self.apply is not None:  # the same steps, compiled
            self.apply(frame, size, payload, len(payload))
            self.frame_applied()
            return
        index = 0
        end = len(payload)
        while index < end:
            first = 3 * ((payload[index] << 8) | payload[index + 1])
            count = 3 * payload[index + 2]
            index += 3
            if first < size:  # (LEDs past the end of this strip are dropped)
                stop = min(size, first + count)
                frame[first:stop] = payload[index : index + stop - first]
            index += count
        self.frame_applied()

    def frame_applied(self) -> None:
        self.applied += 1
        if self.pending:
            self.superseded += 1  # the one before was never drawn: this one replaces it
        self.pending = True
        self.booting = False
        self.dirty = True

    def pixels(self) -> bytes:
        """What the strip shows now, RGB per LED (after brightness and the power limit)."""
        return bytes(self.out)

    def budget(self) -> int:
        """The power budget in force: the host's, but never above the controller's own."""
        own = self.budget_ma
        host = self.host_budget_ma
        if own <= 0:
            return host
        if host <= 0:
            return own
        return min(own, host)

    def sign_shown(self) -> bool:
        return self.lost and self.status_on and self.status_pixel >= 0 and not self.parted

    def can_show(self) -> bool:
        """True unless the strip is still sending the last refresh out."""
        ready = self.strip_ready
        return ready is None or ready()

    def render(self, now: int) -> None:
        out = self.out
        size = len(out)
        if self.booting:
            boot_pattern(out, self.clock.ticks_diff(now, self.started), self.boot_ms)
        else:
            frame = self.frame
            level = self.brightness
            total = (self.total(frame, size) * level + 254) // 255
            budget = self.budget()
            if budget > 0 and self.sign_shown():
                # Room for the "link lost" pixel, drawn over the scaled frame.
                budget = max(1, budget - estimate_ma(sum(LOST_SIGN), 0, self.led_ma) - 1)
            scale = power_scale(total, self.led_count, self.led_ma, budget)
            factor = level * scale
            if factor >= 255 * 256:
                out[0:size] = frame
            else:
                self.scale(out, frame, size, factor)
        if self.sign_shown():
            base = 3 * self.status_pixel
            out[base] = LOST_SIGN[0]
            out[base + 1] = LOST_SIGN[1]
            out[base + 2] = LOST_SIGN[2]
        self.strip.show(out)
        if self.pending:
            self.pending = False
            self.drawn += 1

    # --- loop ----------------------------------------------------------------

    def step(self) -> None:
        """Read what arrived, act on it, refresh the strip and the status LED if needed."""
        data = self.stream.read()
        now = self.clock.ticks_ms()
        diff = self.clock.ticks_diff
        if self.buzzer is not None:
            self.buzzer.update(now)
        if data:
            self.feed(data)
            self.untidy = True
            # The frame first, the housekeeping after it; while the next frame is coming in,
            # only a frame waiting to be shown starts a refresh (one begun for anything else
            # would hold the strip when that frame is complete).
            waiting = self.pending or not self.decoder.size
            if self.dirty and waiting and self.can_show():
                self.dirty = False
                self.render(now)
            if self.decoder.size and diff(now, self.kept) < KEEP_MS:
                return  # in the middle of a frame: its next bytes first (UART: ~10 us each)
        self.kept = now
        quiet = diff(now, self.last_rx) >= QUIET_MS
        playing = self.buzzer is not None and self.buzzer.playing  # a GC would stretch a note
        if not data and self.untidy and quiet and self.tidy is not None and not playing:
            self.untidy = False
            self.tidy()
        if self.booting:
            if diff(now, self.started) >= self.boot_ms:
                self.booting = False
            self.dirty = True
        lost = diff(now, self.last_rx) > LINK_LOST_MS
        if lost != self.lost:
            self.lost = lost
            self.dirty = True
        # Link lost: a short blink every second; link up: steady on.
        on = diff(now, self.last_rx) % BLINK_PERIOD_MS < BLINK_ON_MS if lost else self.host_seen
        if on != self.status_on:
            self.status_on = on
            if self.status is not None:
                self.status.value(1 if on else 0)
            if self.status_pixel >= 0:
                self.dirty = True
        # (housekeeping's own refresh waits too while a frame is coming in, and the frame
        # shows this state as well)
        if self.dirty and self.can_show() and not (data and self.decoder.size):
            self.dirty = False
            self.render(now)
        if self.watchdog is not None:
            self.watchdog.feed()

    def run(self, wait_ms: int = 20) -> None:
        """The firmware's main loop: returns only when the host sent UPDATE."""
        while not self.leaving:
            self.step()
            self.stream.wait(self.wait_ms(wait_ms))

    def wait_ms(self, most: int) -> int:
        """How long the loop may wait for input: ``most``, or less while a frame waits for
        the strip to finish its refresh."""
        free_in = self.strip_free_in
        if self.dirty and free_in is not None:
            return min(most, free_in())
        return most

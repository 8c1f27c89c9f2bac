"""Entry point on the Pico: drive the LED strip from the boardctl link.

Hold the BOOTSEL button during the boot pattern (about one second after power-up) to
get the REPL instead, e.g. to update these files with ``mpremote``.
"""

import micropython

# First of all: the host may be sending already (the USB port is up before this script
# runs), and a 0x03 in its frames must not stop the script while it imports and boots.
micropython.kbd_intr(-1)

import machine  # noqa: E402

# Then the watchdog, before anything that can fail (an import, config.py): from here on a
# fault ends in a reset, never in a dark board at a REPL for ever. main() sets it to
# config.WATCHDOG_MS once config.py is read.
EARLY_WATCHDOG_MS = 8000
early_dog = machine.WDT(timeout=EARLY_WATCHDOG_MS)

import gc  # noqa: E402
import time  # noqa: E402

import hw  # noqa: E402  (machine calls only)

UPDATE_WINDOW_MS = 120000  # (a config.py from before UPDATE_WINDOW_MS)

try:
    import buzzer
    import config
    import ledctl
    import protocol
    import usb
    import ws2812

    broken: "Exception | None" = None
except Exception as error:  # a config.py that does not import (a syntax error), a copy cut short
    broken = error


def open_strip() -> "hw.NeoStrip | ws2812.PioStrip":
    """The strip, driven as config.STRIP_DRIVER says (a config.py from before: PIO)."""
    driver = getattr(config, "STRIP_DRIVER", "pio")
    if driver == "bitstream":
        return hw.NeoStrip(config.LED_PIN, config.LED_COUNT, config.COLOR_ORDER)
    if driver != "pio":
        raise ValueError("STRIP_DRIVER " + repr(driver) + ' is neither "pio" nor "bitstream"')
    return ws2812.PioStrip(config.LED_PIN, config.LED_COUNT, config.COLOR_ORDER)


def main() -> None:
    # Whatever fails from here on (a strip or UART that does not open, a bug) ends in a
    # reset within WATCHDOG_MS: the fault path.
    dog = hw.watchdog(config.WATCHDOG_MS)
    window = getattr(config, "UPDATE_WINDOW_MS", UPDATE_WINDOW_MS)
    try:
        strip: hw.NeoStrip | ws2812.PioStrip | None = open_strip()
        fault = None
    except Exception as error:  # (after the boot window: safe mode stays reachable)
        strip = None
        fault = error
    status = hw.StatusLed()
    if boot(strip, dog):
        status.value(1)
        hw.keep_fed(dog, config.WATCHDOG_MS, window)  # the REPL, for mpremote, a while
        hw.ctrl_c(True)
        print("boardctl LED controller: safe mode, REPL left free for", window // 1000, "s")
        return
    try:
        if fault is not None:
            raise fault
        assert strip is not None  # (mypy)
        stream: "ledctl.Stream"  # noqa: UP037 (ledctl.Stream exists for mypy only)
        hw.speed_up(protocol)  # compiled COBS decoding, 0x00 search and frame length guess
        if config.LINK == "uart":
            stream = hw.UartStream(config.UART_ID, config.UART_BAUD, config.UART_TX, config.UART_RX)
        else:
            # The firmware's own USB CDC port (usb.py): the host sees the port go and come
            # back once, now; usb.builtin() gives MicroPython's (and the REPL) back.
            stream = usb.open_stream()
        try:
            run(stream, strip, hw.Clock(), status, dog, window)
        finally:
            usb.builtin()  # UPDATE, or an error: the REPL on the USB port, for mpremote
    except Exception:
        # The fault path: nothing feeds the watchdog any more, so the Pico resets within
        # WATCHDOG_MS and starts again (the error is printed on the REPL meanwhile).
        print("boardctl LED controller: fault, the watchdog resets the Pico")
        raise
    # The host sent UPDATE (boardctl firmware install): the REPL, for mpremote, a while.
    print("boardctl LED controller: update mode, REPL left free for", window // 1000, "s")


def boot(strip: "hw.NeoStrip | ws2812.PioStrip | None", dog: "machine.WDT") -> bool:
    """The boot pattern (on a strip that opened), during which a person may hold BOOTSEL
    to keep the REPL: True for safe mode (the strip dark)."""
    frame = bytearray(3 * config.LED_COUNT)
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < ledctl.BOOT_MS:
        dog.feed()
        if hw.safe_mode():
            if strip is not None:
                strip.show(bytearray(3 * config.LED_COUNT))
                strip.wait()  # (gone out before the REPL starts)
            return True
        if strip is not None:
            ledctl.boot_pattern(frame, time.ticks_diff(time.ticks_ms(), start))
            strip.show(frame)
        time.sleep_ms(20)
    dog.feed()
    return False


def run(
    stream: "ledctl.Stream",
    strip: "hw.NeoStrip | ws2812.PioStrip",
    clock: hw.Clock,
    status: hw.StatusLed,
    dog: "machine.WDT",
    window_ms: int,
) -> None:
    """The controller on ``stream`` until the host sends UPDATE; then the REPL, its
    watchdog fed for ``window_ms``."""
    # None when BUZZER_PIN is -1 (or missing: a config.py from before the buzzer)
    piezo = buzzer.open_buzzer(getattr(config, "BUZZER_PIN", -1), clock)
    # What the imports and the boot pattern left behind (~10 ms), collected before the
    # controller says HELLO: not in the middle of the host's first frames.
    gc.collect()
    dog.feed()
    fast = hw.fast  # the compiled loops (None where viper is missing: ledctl's own)
    controller = ledctl.Controller(
        stream,
        strip,
        clock,
        led_count=config.LED_COUNT,
        color_order=config.COLOR_ORDER,
        budget_ma=config.BUDGET_MA,
        led_ma=config.LED_MA,
        status=status,
        status_pixel=config.STATUS_PIXEL,
        watchdog=dog,
        boot_ms=0,
        scale=fast.scale_bytes if fast else None,
        buzzer=piezo,
        total=fast.total_bytes if fast else None,
        tidy=hw.tidy,  # the GC, when the link is quiet
        apply=fast.apply_runs if fast else None,
    )
    # (a frame ends the wait at once: poll wakes on input; a piezo's notes are timed
    # by these steps, so with one wired the loop looks every 2 ms)
    controller.run(wait_ms=2 if piezo is not None else 10)
    if piezo is not None:
        piezo.silence()
    strip.wait()
    # The host sent UPDATE (boardctl firmware install): the REPL, for mpremote. The
    # watchdog cannot be stopped once armed: a timer feeds it for the update window
    # (usb.builtin() takes up to 1.25 s meanwhile), then the Pico resets and starts
    # whatever main.py is on it (boardctl firmware install resets it sooner).
    hw.keep_fed(dog, config.WATCHDOG_MS, window_ms)
    hw.ctrl_c(True)


if broken is None:
    main()
else:
    # A file does not import: the REPL, to fix it with mpremote, for the update window (safe
    # mode cannot start without config.py); then the watchdog resets the Pico.
    hw.keep_fed(early_dog, EARLY_WATCHDOG_MS, UPDATE_WINDOW_MS)
    hw.ctrl_c(True)
    print("boardctl LED controller: fault at import:", repr(broken))
    print("boardctl LED controller: REPL left free for", UPDATE_WINDOW_MS // 1000, "s")

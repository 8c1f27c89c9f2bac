"""The firmware's code under a real MicroPython (run by tests/test_firmware_micropython.py).

Run with ``node tests/micropython/run.mjs --mount firmware=/fw
--file boardctl/link/protocol.py=/fw/protocol.py --mount tests/micropython/fakes=/fakes
--mount tests/data=/data tests/micropython/check_firmware.py``. Every check asserts; any
failure raises, and the runner exits with status 1.
"""

import json
import random

import hw
import ledctl
import machine
from doubles import ManualClock, MemoryStream

# mypy treats this as true (TYPE_CHECKING = False, as in firmware/ledctl.py): MicroPython
# skips the block, and annotations naming its types are never evaluated. The firmware's
# ``protocol`` is boardctl/link/protocol.py, copied as it is.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from boardctl.link import protocol as p
else:
    import protocol as p

with open("/data/protocol_vectors.json") as f:
    VECTORS = json.load(f)

passed: "list[str]" = []


def check(condition: object, what: str) -> None:
    if not condition:
        raise AssertionError(what)
    passed.append(what)


def unhex(text: str) -> bytes:
    return bytes.fromhex(text)


def make(
    led_count: int = 8, order: str = "GRB", budget: int = 2000, **options: "Any"
) -> "tuple[ledctl.Controller, MemoryStream, hw.NeoStrip, ManualClock]":
    stream = MemoryStream()
    strip = hw.NeoStrip(0, led_count, order)
    clock = ManualClock()
    options.setdefault("boot_ms", 0)
    controller = ledctl.Controller(
        stream, strip, clock, led_count=led_count, color_order=order, budget_ma=budget, **options
    )
    return controller, stream, strip, clock


def sent_messages(stream: MemoryStream) -> "list[p.Message]":
    return p.Decoder().feed(stream.sent)


# --- protocol vectors ----------------------------------------------------------

check(VECTORS["protocol_version"] == p.PROTOCOL_VERSION, "protocol version")
for v in VECTORS["crc32"]:
    check(p.crc32(unhex(v["data"])) == v["crc"], "crc32 " + v["data"][:16])
    check(p.crc32_pure(unhex(v["data"])) == v["crc"], "pure crc32 " + v["data"][:16])
for v in VECTORS["crc16"]:
    check(p.crc16(unhex(v["data"])) == v["crc"], "crc16 " + v["data"][:16])
for v in VECTORS["cobs"]:
    check(p.cobs_encode(unhex(v["data"])) == unhex(v["encoded"]), "cobs encode " + v["data"][:8])
    check(p.cobs_decode(unhex(v["encoded"])) == unhex(v["data"]), "cobs decode " + v["data"][:8])
for v in VECTORS["messages"]:
    payload = unhex(v["payload"])
    wire = unhex(v["wire"])
    check(p.encode(v["kind"], v["seq"], payload) == wire, "encode " + v["name"])
    got = p.Decoder().feed(wire)
    check(
        len(got) == 1 and got[0] == p.Message(v["kind"], v["seq"], payload), "decode " + v["name"]
    )
BY_NAME = {v["name"]: v for v in VECTORS["messages"]}
hello = BY_NAME["hello"]
fields = hello["fields"]
check(
    p.parse_hello(unhex(hello["payload"]))
    == (fields["protocol"], tuple(fields["firmware"]), fields["led_count"], fields["color_order"]),
    "parse hello",
)
delta = BY_NAME["delta_peg_move"]
runs = [(start, unhex(rgb)) for start, rgb in delta["fields"]["runs"]]
p.check_runs(unhex(delta["payload"]))  # (raises unless whole runs)
check(p.delta_payload(runs) == unhex(delta["payload"]), "delta runs")
check(len(unhex(delta["wire"])) <= 24, "peg move fits in 24 bytes")
for v in VECTORS["streams"]:
    decoder = p.Decoder()
    got = decoder.feed(unhex(v["stream"]))
    check([m.kind for m in got] == v["kinds"], "stream kinds: " + v["name"])
    check(decoder.bad == v["bad"], "stream bad count: " + v["name"])
    check([m.version for m in got] == v["versions"], "stream versions: " + v["name"])
for v in VECTORS["rejects"]:
    decoder = p.Decoder()
    got = decoder.feed(b"\0" + unhex(v["encoded"]) + b"\0")
    check(got == [] and decoder.bad == 1, "reject " + v["why"])
try:
    p.check_version(9, (1, 0, 0))
    check(False, "version mismatch raises")
except p.ProtocolError as exc:
    check("boardctl firmware install" in str(exc), "version mismatch message")

# Every single-bit error in a frame is caught, on this interpreter too.
for v in VECTORS["messages"]:
    wire = unhex(v["wire"])
    for index in range(len(wire)):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[index] ^= 1 << bit
            if p.Decoder().feed(bytes(damaged)):
                check(False, "bit error caught in " + v["name"])
    check(True, "all single-bit errors caught in " + v["name"])

# --- firmware vectors: bytes in, the strip's own (GRB) buffer out ---------------

for v in VECTORS["firmware"]:
    controller, stream, strip, clock = make(v["led_count"], "GRB", v["budget_ma"])
    controller.feed(unhex(v["stream"]))
    controller.step()
    check(controller.pixels() == unhex(v["pixels"]), "pixels: " + v["name"])
    check(strip.pixels.shown == unhex(v["grb"]), "GRB strip buffer: " + v["name"])
    check(controller.bad == v["bad"], "bad count: " + v["name"])
    check(controller.applied == v["applied"], "applied count: " + v["name"])
    check(controller.refused == v["refused"], "refused count: " + v["name"])

# --- colour order, HELLO, PING, NAK -------------------------------------------

controller, stream, strip, clock = make(2, "RGB")
controller.feed(p.encode(p.FULL, 0, b"\x01\x02\x03\x04\x05\x06"))
controller.step()
check(strip.pixels.shown == b"\x01\x02\x03\x04\x05\x06", "RGB strip keeps the order")
controller, stream, strip, clock = make(2, "BRG")
controller.feed(p.encode(p.FULL, 0, b"\x01\x02\x03\x04\x05\x06"))
controller.step()
check(strip.pixels.shown == b"\x03\x01\x02\x06\x04\x05", "BRG strip reorders")

controller, stream, strip, clock = make(8)
boot = sent_messages(stream)
check(len(boot) == 1 and boot[0].kind == p.HELLO, "HELLO at boot")
check(p.parse_hello(boot[0].payload)[2:] == (8, "GRB"), "HELLO carries LED count and order")
stream.sent = b""
controller.feed(p.encode(p.PING, 0, p.ping_payload(0xBEEF)))
(pong,) = sent_messages(stream)
check(pong.kind == p.PONG and p.parse_pong(pong.payload)[0] == 0xBEEF, "PING answered")
stream.sent = b""
controller.feed(b"\x00\x05\x01\x02\x03\x00")
(nak,) = sent_messages(stream)
check(nak.kind == p.NAK and p.parse_nak(nak.payload)[1] == p.NAK_CORRUPT, "bad frame NAKed")
check(controller.bad == 1, "bad frame counted")
stream.sent = b""
controller.feed(p.encode(p.FULL, 5, bytes(24)))  # expected seq 1: a gap
(nak,) = sent_messages(stream)
check(p.parse_nak(nak.payload)[1] == p.NAK_GAP, "sequence gap NAKed")
stream.sent = b""
controller.feed(p.encode(p.HELLO, 0, p.hello_payload(p.PROTOCOL_VERSION + 1, (9, 9, 9), 8, "RGB")))
(error,) = sent_messages(stream)
check(error.kind == p.ERROR and p.parse_error(error.payload)[0] == p.ERR_VERSION, "version ERROR")

# --- power budget: full white is clamped whatever the host asks ---------------------

for budget in (300, 1000, 2000):
    controller, stream, strip, clock = make(64, budget=budget)
    controller.feed(p.encode(p.BRIGHTNESS, 0, p.brightness_payload(255, 0, 55)))
    controller.feed(p.encode(p.FULL, 1, b"\xff" * 192))
    controller.step()
    estimate = ledctl.estimate_ma(sum(controller.pixels()), 64, 55)
    check(estimate <= budget, "full white within " + str(budget) + " mA")
    check(estimate > budget * 8 // 10, "full white not needlessly dim at " + str(budget) + " mA")

# A host's mA per LED below the firmware's own cannot loosen the limit (issue 25).
for host_ma in (1, 30, 59):
    controller, stream, strip, clock = make(64, budget=1000, led_ma=60)
    controller.feed(p.encode(p.BRIGHTNESS, 0, p.brightness_payload(255, 0, host_ma)))
    controller.feed(p.encode(p.FULL, 1, b"\xff" * 192))
    controller.step()
    estimate = ledctl.estimate_ma(sum(controller.pixels()), 64, 60)
    check(estimate <= 1000, "full white within budget after led_ma " + str(host_ma))
    check(controller.led_ma == 60, "the firmware's led_ma kept after " + str(host_ma))
controller, stream, strip, clock = make(64, budget=1000, led_ma=60)
controller.feed(p.encode(p.BRIGHTNESS, 0, p.brightness_payload(255, 0, 120)))
check(controller.led_ma == 120, "a host may raise led_ma (a tighter estimate)")

# --- link lost: the frame stays, the status LED blinks ----------------------------

status = machine.Pin("LED", machine.Pin.OUT)
controller, stream, strip, clock = make(8, status=status, status_pixel=7)
frame = bytes(range(1, 25))
controller.feed(p.encode(p.FULL, 0, frame))
controller.step()
check(status.value() == 1, "status LED on while the host talks")
clock.now += 4000  # a blink is on for the first 100 ms of each second
controller.step()
check(controller.lost, "link lost after 3 s of silence")
check(controller.pixels()[:21] == frame[:21], "the score stays visible")
check(controller.pixels()[21:] == bytes(ledctl.LOST_SIGN), "status pixel shows the sign")
blink: "list[int]" = []
for _ in range(20):
    clock.now += 50
    controller.step()
    blink.append(status.value())
check(0 in blink and 1 in blink, "status LED blinks while the link is lost")
controller.feed(p.encode(p.PING, 1, p.ping_payload(1)))
controller.step()
check(not controller.lost and controller.pixels() == frame, "link back: sign gone")

# --- boot pattern and watchdog ------------------------------------------------------


class Dog:
    feeds = 0

    def feed(self) -> None:
        self.feeds += 1


dog = Dog()
controller, stream, strip, clock = make(10, boot_ms=1000, watchdog=dog)
clock.now = 500
controller.step()
lit = [i for i in range(10) if controller.pixels()[3 * i : 3 * i + 3] != b"\x00\x00\x00"]
check(lit == [5], "boot pattern: one dot halfway at half time")
clock.now = 1000
controller.step()
check(controller.pixels() == bytes(30), "boot pattern ends dark")
check(dog.feeds == 2, "watchdog fed every step")

# --- random garbage never writes outside the strip ----------------------------------

random.seed(5)
controller, stream, strip, clock = make(16)
good = bytes(range(48))
for _ in range(300):
    junk = bytes(random.getrandbits(8) for _ in range(random.getrandbits(6)))
    controller.feed(junk)
    controller.step()
    check(len(controller.frame) == 48, "frame size kept")
controller.feed(b"\x00" + p.encode(p.FULL, 0, good))
controller.step()
check(controller.pixels() == good, "a good frame after garbage shows exactly")

# --- the PIO + DMA strip: the strip's bytes to the DMA, two buffers, one refresh at a time --

import rp2  # noqa: E402  (tests/micropython/fakes/rp2.py)
import ws2812  # noqa: E402

us = [1000]  # the strip's and the DMA's microsecond clock, moved by hand


def ticks() -> int:
    return us[0]


real_ticks = rp2.ticks_us
rp2.ticks_us = ticks
pio = ws2812.PioStrip(0, 4, "GRB", ticks_us=ticks)
dma = pio.dma
(sm,) = rp2.machines
check(sm.settings["freq"] == 8_000_000 and sm.running, "PIO strip: a state machine at 8 MHz")
check(
    pio.ctrl["size"] == 0 and pio.ctrl["treq_sel"] == 0,
    "PIO strip: byte DMA paced by TX0",
)
pio.show(bytearray(range(12)))
check(dma.sent[-1] == bytes([1, 0, 2, 4, 3, 5, 7, 6, 8, 10, 9, 11]), "PIO strip: GRB to the DMA")
check(dma.write is sm, "PIO strip: the DMA writes the state machine's TX FIFO")
check(not pio.ready(), "PIO strip: busy while its bits go out")
check(pio.free_in_ms() <= pio.busy_us // 1000, "PIO strip: never says later than it is free")
us[0] += 12 * 10  # the DMA is done, the last bits are out: the latch is not
check(not dma.active() and not pio.ready(), "PIO strip: waits for the latch")
us[0] += ws2812.LATCH_US + ws2812.SLACK_US
check(pio.ready() and pio.free_in_ms() == 0, "PIO strip: ready after the latch")
pio.show(bytearray(12))
check(dma.reads[-1] is not dma.reads[-2], "PIO strip: the next frame in the other buffer")
us[0] += 10**9  # long idle: the ticks wrapped
check(pio.ready(), "PIO strip: ready after the ticks wrapped")
# The controller never starts a refresh while one runs: frames applied meanwhile are
# superseded by the newer one, which goes out once the strip is free.
us[0] += 10**6
stream = MemoryStream()
clock = ManualClock()
controller = ledctl.Controller(stream, pio, clock, led_count=4, boot_ms=0)
controller.step()  # (the first, dark frame)
us[0] += pio.busy_us
shown = len(dma.sent)
controller.feed(p.encode(p.FULL, 0, bytes([1] * 12)))
controller.step()
check(len(dma.sent) == shown + 1, "PIO strip: a frame starts a refresh at once")
controller.feed(p.encode(p.FULL, 1, bytes([2] * 12)))
controller.step()
controller.feed(p.encode(p.FULL, 2, bytes([3] * 12)))
controller.step()
check(len(dma.sent) == shown + 1, "PIO strip: no refresh started while one runs")
check(controller.wait_ms(10) == 0, "PIO strip: the loop looks again at once, the strip free soon")
us[0] += pio.busy_us
controller.step()
check(dma.sent[-1] == bytes([3] * 12), "PIO strip: the newest frame next")
check(
    (controller.applied, controller.drawn, controller.superseded) == (3, 2, 1),
    "PIO strip: every frame drawn or superseded",
)
check(controller.wait_ms(10) == 10, "PIO strip: nothing waiting, the loop waits as asked")
big = ws2812.PioStrip(0, 256, "GRB", ticks_us=ticks)
big.show(bytearray(768))  # 7.68 ms of bits, then the latch
check(big.free_in_ms() == big.busy_us // 1000 == 8, "PIO strip: free in whole ms, rounded down")
us[0] += big.busy_us - 500
check(not big.ready() and big.free_in_ms() == 0, "PIO strip: under 1 ms to go: look again")
rp2.ticks_us = real_ticks
rp2.machines.clear()

# --- main.py: the Pico's entry point, with the USB port and the loop stood in for -----


class Stop(Exception):
    pass


usb = MemoryStream()
hw.UsbStream = lambda: usb  # type: ignore[assignment,misc]  # (the USB port, stood in for)
ledctl.BOOT_MS = 100


def run_briefly(self: ledctl.Controller, wait_ms: int = 20) -> None:
    usb.inbox = p.encode(p.FULL, 0, b"\x07" * 3 * 4)
    for _ in range(3):
        self.step()
        self.stream.wait(wait_ms)
    raise Stop()


ledctl.Controller.run = run_briefly  # type: ignore[method-assign]  # (the loop, stood in for)
try:
    import main  # noqa: F401  (runs main())

    check(False, "main.py returned")
except Stop:
    pass
first, dog = machine.watchdogs[-2:]
check(
    first.timeout == 8000 and first.strips_before == 0 and dog.strips_before == 0,
    "main.py arms the watchdog before anything else, then at WATCHDOG_MS before the strip",
)
check(dog.timeout == 5000 and dog.feeds > 3, "the boot pattern and the loop feed the watchdog")
(sm,) = rp2.machines
check(
    sm.settings["sideset_base"].ident == 0 and sm.running,
    "main.py drives the strip on LED_PIN with PIO (STRIP_DRIVER's default)",
)
(hello,) = [m for m in p.Decoder().feed(usb.sent) if m.kind == p.HELLO]
check(p.parse_hello(hello.payload)[2:] == (256, "GRB"), "main.py uses config.py")
import config  # noqa: E402

(pwm,) = machine.pwms
check(
    pwm.pin.ident == config.BUZZER_PIN and pwm.duty == 0,
    "main.py opens the buzzer on BUZZER_PIN, silent",
)

print("micropython firmware checks passed:", len(passed))

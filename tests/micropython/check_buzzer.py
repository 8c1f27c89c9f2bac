"""The buzzer's firmware under a real MicroPython (run by tests/test_firmware_buzzer.py).

``sys.argv[1]`` is the host's cue table as JSON, ``{name: [[hz, ms], ...]}``. Each cue goes
to a controller as a TONE message; its buzzer (``buzzer.open_buzzer`` on the fake
``machine.PWM``) is stepped by the controller's loop on a manual clock, one millisecond a
turn, and what the PWM did is printed as ``RESULT {"cues": {name: [[hz, ms], ...]}, ...}``
(0 Hz for a rest) for the test to compare with the table. Every other check asserts.
"""

import json
import sys

import buzzer
import ledctl
import machine
from doubles import ManualClock, MemoryStream

TYPE_CHECKING = False
if TYPE_CHECKING:
    from boardctl.link import protocol as p
else:
    import protocol as p

CUES = json.loads(sys.argv[1])
checks = 0


def check(condition: object, what: str) -> None:
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


class NullStrip:
    def show(self, rgb: bytearray) -> None:
        pass


def make(
    with_buzzer: bool = True,
) -> "tuple[ledctl.Controller, MemoryStream, ManualClock, machine.PWM | None]":
    clock = ManualClock()
    stream = MemoryStream()
    piezo = buzzer.open_buzzer(15 if with_buzzer else -1, clock)
    pwm = machine.pwms[-1] if with_buzzer else None
    controller = ledctl.Controller(stream, NullStrip(), clock, led_count=4, boot_ms=0, buzzer=piezo)
    return controller, stream, clock, pwm


def run(
    controller: "ledctl.Controller", clock: ManualClock, pwm: "machine.PWM", ms: int
) -> "list[tuple[int, int, int]]":
    """``ms`` turns of the loop; every PWM change as ``(ms, hz, duty)``."""
    timeline = []
    seen = len(pwm.changes)
    for _ in range(ms):
        controller.step()
        for hz, duty in pwm.changes[seen:]:
            timeline.append((clock.now, hz, duty))
        seen = len(pwm.changes)
        clock.now += 1
    return timeline


def runs_of(timeline: "list[tuple[int, int, int]]") -> "list[list[int]]":
    """``[[hz, ms], ...]`` from the first sound to the silence at the end."""
    out = []
    for index in range(len(timeline) - 1):
        at, hz, duty = timeline[index]
        out.append([hz if duty else 0, timeline[index + 1][0] - at])
    return out


heard = {}
for name in CUES:
    steps = [(hz, ms) for hz, ms in CUES[name]]
    controller, stream, clock, pwm = make()
    assert pwm is not None
    check(pwm.pin.ident == 15 and pwm.duty == 0, "the buzzer starts silent: " + name)
    stream.inbox = p.encode(p.TONE, 0, p.tone_payload(255, steps))  # read at the first turn
    timeline = run(controller, clock, pwm, sum(ms for _hz, ms in steps) + 30)
    check(timeline[-1][2] == 0, "silent when done: " + name)
    duties = [duty for _at, _hz, duty in timeline if duty]
    check(duties and all(d == buzzer.HALF_DUTY for d in duties), "50 % duty at full: " + name)
    heard[name] = runs_of(timeline)

# Frames keep coming while a figure plays; a new TONE cuts the figure short.
controller, stream, clock, pwm = make()
assert pwm is not None
stream.inbox = p.encode(p.TONE, 0, p.tone_payload(255, [(1047, 120), (2093, 400)]))
timeline = run(controller, clock, pwm, 50)
stream.inbox = p.encode(p.FULL, 1, b"\x05" * 12) + p.encode(p.TONE, 2, p.tone_payload(128, []))
timeline += run(controller, clock, pwm, 200)
check(controller.applied == 1 and controller.pixels() == b"\x05" * 12, "frame applied")
check(timeline[-1][1:] == (1047, 0) and timeline[-1][0] == 50, "cut short at once, silent")

# No buzzer: one ERROR, however many tones.
controller, stream, clock, pwm = make(with_buzzer=False)
for seq in range(3):
    controller.feed(p.encode(p.TONE, seq, p.tone_payload(255, [(440, 10)])))
errors = [m for m in p.Decoder().feed(stream.sent) if m.kind == p.ERROR]
check(len(errors) == 1, "no buzzer: one ERROR")
check(p.parse_error(errors[0].payload)[0] == p.ERR_NO_BUZZER, "no buzzer: its code")
print("RESULT " + json.dumps({"cues": heard, "checks": checks}))

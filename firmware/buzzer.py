"""The piezo on the Pico: a TONE message's steps on a PWM pin, timed by the controller.

``Buzzer.play(level, steps, now)`` starts a figure of ``(hz, ms)`` steps (``hz`` 0 is a
rest) and returns at once; the controller calls ``Buzzer.update(now)`` on every turn of
its loop, which moves on to the next step once the one sounding has lasted its length,
and goes silent (duty 0) after the last. Nothing sleeps: frames keep being handled while
a figure plays, and a new figure cuts the one playing short.

A step starts when the loop sees the one before it end, so a loop held up (a long frame
arriving) makes a step longer, never drops one: the number of beeps, which tells a
refusal's class, always comes out right.

The PWM is handed in: anything with ``freq(hz)`` and ``duty_u16(value)``, that is
``machine.PWM`` on the Pico (``open_pwm``), a recording stand-in in the tests. Plain
Python: runs on MicroPython and CPython alike.
"""

HALF_DUTY = 32768  # duty_u16 of a 50 % duty cycle: the loudest a piezo gets
FULL_LEVEL = 255  # a TONE's level for HALF_DUTY

# mypy treats this as true (firmware/mypy.ini: always_true); MicroPython and CPython
# skip the block, and annotations naming its classes are never evaluated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Pwm(Protocol):
        def freq(self, value: int) -> None: ...
        def duty_u16(self, value: int) -> None: ...

    class Clock(Protocol):
        def ticks_ms(self) -> int: ...
        def ticks_diff(self, a: int, b: int) -> int: ...


def duty_of(level: int) -> int:
    """The ``duty_u16`` of a TONE's level (0-255; 255 = a 50 % duty cycle)."""
    return min(max(level, 0), FULL_LEVEL) * HALF_DUTY // FULL_LEVEL


class Buzzer:
    """Plays TONE figures on ``pwm`` (see the module docstring)."""

    def __init__(self, pwm: "Pwm", clock: "Clock") -> None:
        self.pwm = pwm
        self.clock = clock
        self.steps: list[tuple[int, int]] = []
        self.index = 0  # the step sounding now
        self.started = 0  # ticks_ms when it started
        self.duty = 0
        self.playing = False
        self.figures = 0  # figures started since boot
        self.silence()

    def play(self, level: int, steps: "list[tuple[int, int]]", now: int) -> None:
        """Start ``steps`` at ``level`` now (no steps: silence), cutting short what plays."""
        self.steps = steps
        self.duty = duty_of(level)
        self.index = 0
        self.started = now
        self.figures += 1
        self.playing = bool(steps)
        if self.playing:
            self.sound()
        else:
            self.silence()

    def update(self, now: int) -> None:
        """Move on to the next step if the one sounding has lasted its length."""
        if not self.playing:
            return
        if self.clock.ticks_diff(now, self.started) < self.steps[self.index][1]:
            return
        self.index += 1
        self.started = now
        if self.index >= len(self.steps):
            self.playing = False
            self.silence()
        else:
            self.sound()

    def sound(self) -> None:
        hz = self.steps[self.index][0]
        if hz == 0 or self.duty == 0:
            self.pwm.duty_u16(0)  # a rest
            return
        self.pwm.freq(hz)
        self.pwm.duty_u16(self.duty)

    def silence(self) -> None:
        """No sound: the pin stays low (the transistor off)."""
        self.playing = False
        self.pwm.duty_u16(0)


def open_pwm(pin: int) -> "Pwm":
    """The Pico's hardware PWM on GPIO ``pin``, silent."""
    import machine

    pwm = machine.PWM(machine.Pin(pin))
    pwm.freq(1000)
    pwm.duty_u16(0)
    return pwm


def open_buzzer(pin: int, clock: "Clock") -> "Buzzer | None":
    """The buzzer on GPIO ``pin`` (``config.BUZZER_PIN``), or None when it is -1 (none)."""
    if pin < 0:
        return None
    return Buzzer(open_pwm(pin), clock)

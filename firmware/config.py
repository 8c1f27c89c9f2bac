"""Settings of this LED controller. Edit, then copy to the Pico with the other files."""

LED_PIN = 0  # GPIO driving the strip's data line (through a 3.3 V -> 5 V level shifter)
LED_COUNT = 256  # LEDs on the strip
COLOR_ORDER = "GRB"  # the strip's byte order: GRB for WS2812B, RGB for some others
# How the strip's bits are made: "pio" (a PIO state machine fed by DMA; the CPU and its
# interrupts stay free during a refresh) or "bitstream" (MicroPython's neopixel: the CPU
# times every bit with the interrupts off, 7.7 ms for 256 LEDs; only with LINK = "usb",
# since a UART's 32-byte receive FIFO overflows in 0.32 ms meanwhile and bytes are lost).
STRIP_DRIVER = "pio"
BUDGET_MA = 2000  # the strip's power budget in mA, enforced whatever the host asks
LED_MA = 60  # mA one LED draws at full white (the host limiter's figure, boardctl/board/power.py)
# Strip LED that blinks red while the host is silent (-1: none); 255 is the
# status LED of the two-121 layout.
STATUS_PIXEL = 255

LINK = "usb"  # "usb" (USB CDC, the default) or "uart"
UART_ID = 0
UART_BAUD = 1000000
UART_TX = 16
UART_RX = 17

# GPIO of a piezo for the sound cues, through a transistor (hardware/wiring.md); -1: none.
# It only sounds when the host sends tones ([sound] buzzer = "pico" in boardctl's config).
BUZZER_PIN = 15

WATCHDOG_MS = 5000  # hardware watchdog (the RP2040 allows at most 8388 ms)
# How long update mode (boardctl firmware install) and safe mode (BOOTSEL) leave the REPL
# free before the watchdog resets the Pico into whatever main.py is then on it.
UPDATE_WINDOW_MS = 120000

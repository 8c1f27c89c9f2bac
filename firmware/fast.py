"""The firmware's hot loops, compiled to machine code on the Pico (``@micropython.viper``).

Each is a compiled copy of a plain Python function elsewhere, which runs where viper is
missing (the WebAssembly build, CPython with fakes: ``import fast`` fails there and
``hw.fast`` is None): ``protocol.cobs_into``, ``protocol.find_zero`` and
``protocol.frame_size_at_least`` (``hw.speed_up`` swaps these in), ``hw.reorder``,
``ledctl.scale_bytes``, ``ledctl.total_bytes`` and ``Controller.apply_delta``'s loop.
``ptr8`` arguments take a bytearray or a memoryview: the function reads and writes its
bytes in place, without bounds checks (the callers pass sizes that fit).

Not checked by mypy (viper's ``ptr8`` is no Python type); the tests run it on the stock
MicroPython image of an emulated RP2040 (``tests/test_firmware_rp2040*.py``).
"""

# ruff: noqa: F821 (ptr8: viper's pointer type, known to MicroPython's compiler only)
import micropython


@micropython.viper
def reorder(dst: ptr8, src: ptr8, size: int, r: int, g: int, b: int):
    # hw.reorder, compiled.
    i = 0
    while i < size:
        dst[i + r] = src[i]
        dst[i + g] = src[i + 1]
        dst[i + b] = src[i + 2]
        i += 3


@micropython.viper
def cobs_into(src: ptr8, n: int, dst: ptr8) -> int:
    # protocol.cobs_into, compiled.
    i = 0
    o = 0
    while i < n:
        code = src[i]
        if code == 0:
            return -1
        stop = i + code
        if stop > n:
            return -2
        i += 1
        while i < stop:
            dst[o] = src[i]
            o += 1
            i += 1
        if code != 0xFF and i < n:
            dst[o] = 0
            o += 1
    return o


@micropython.viper
def scale_bytes(out: ptr8, frame: ptr8, size: int, factor: int):
    # ledctl.scale_bytes, compiled.
    i = 0
    while i < size:
        out[i] = frame[i] * factor // 65280
        i += 1


@micropython.viper
def find_zero(buf: ptr8, start: int, end: int) -> int:
    # protocol.find_zero, compiled.
    i = start
    while i < end:
        if buf[i] == 0:
            return i
        i += 1
    return -1


@micropython.viper
def frame_size_at_least(prefix: ptr8, end: int) -> int:
    # protocol.frame_size_at_least, compiled (the same steps: see there).
    got = 0
    index = 0
    length = 0
    while index < end and got < 4:
        code = prefix[index]
        if code == 0:
            return 0
        stop = index + code
        index += 1
        while index < stop and index < end and got < 4:
            if got >= 2:
                length = (length << 8) | prefix[index]
            got += 1
            index += 1
        if got < 4 and index == stop and code != 0xFF:
            if got >= 2:
                length = length << 8
            got += 1
    if got < 4:
        return 0
    return 4 + length + 1 + 5 + 1


@micropython.viper
def apply_runs(frame: ptr8, size: int, payload: ptr8, end: int):
    # ledctl.Controller.apply_delta's steps, compiled (the runs checked by protocol.check_runs).
    index = 0
    while index < end:
        first = 3 * ((payload[index] << 8) | payload[index + 1])
        count = 3 * payload[index + 2]
        index += 3
        stop = first + count
        if stop > size:
            stop = size
        i = first
        j = index
        while i < stop:
            frame[i] = payload[j]
            i += 1
            j += 1
        index += count


@micropython.viper
def total_bytes(frame: ptr8, size: int) -> int:
    # ledctl.total_bytes, compiled.
    i = 0
    total = 0
    while i < size:
        total += frame[i]
        i += 1
    return total

"""``firmware/usb.py`` on CPython, against a model of the USB device stack: bulk OUT
transfers of N bytes that end when N bytes are in or on a short packet, a host that
cuts each write into 64-byte packets and sends no zero-length packet after a multiple of
64, and a controller that reads when it likes. The firmware on the chip is tested in
``tests/test_firmware_rp2040_usb.py``."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from boardctl.link import protocol as p
from tests.conftest import REPO

# MicroPython v1.28.0's builtin descriptors for the Pico (read from the emulated chip)
DESC_CFG = bytes.fromhex(
    "09024b00020100807d080b000202020000090400000102020004052400200105240100010424020605"
    "240600010705810308000109040100020a0000000705020240000007058202400000"
)
DESC_DEV = bytes.fromhex("12010002ef0201408a2e0500000101020301")


class Builtin:
    desc_dev = DESC_DEV
    desc_cfg = DESC_CFG


class USBDevice:
    """machine.USBDevice, as far as usb.py uses it: transfers are held, not run."""

    BUILTIN_DEFAULT = Builtin
    BUILTIN_NONE = object()

    def __init__(self) -> None:
        self.builtin_driver: object = Builtin
        self.callbacks: dict[str, Any] = {}
        self.transfers: dict[int, memoryview] = {}  # endpoint -> the buffer submitted
        self.activations: list[bool] = []

    def active(self, value: bool | None = None) -> bool:
        if value is not None:
            self.activations.append(value)
            reset = self.callbacks.get("reset_cb")
            if value and reset is not None:
                reset()  # the host resets the bus for the device it sees now
        return bool(self.activations and self.activations[-1])

    def config(self, desc_dev: bytes, desc_cfg: bytes, desc_strs: object, **callbacks: Any) -> None:
        self.desc = (desc_dev, desc_cfg, desc_strs)
        self.callbacks = callbacks

    def submit_xfer(self, ep: int, buffer: memoryview) -> bool:
        if ep in self.transfers:
            raise OSError(16, "EBUSY")
        self.transfers[ep] = buffer
        return True


@pytest.fixture
def usb(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    fakes = REPO / "tests" / "micropython" / "fakes"
    for name in ("machine", "neopixel"):
        module = types.ModuleType(name)
        exec((fakes / f"{name}.py").read_text(), module.__dict__)
        monkeypatch.setitem(sys.modules, name, module)
    sys.modules["machine"].USBDevice = USBDevice  # type: ignore[attr-defined]
    sys.modules["machine"].idle = lambda: None  # type: ignore[attr-defined]
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda char: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "micropython", micropython)
    monkeypatch.syspath_prepend(str(REPO / "firmware"))
    importlib.import_module("emulator")  # (provides the firmware's `import protocol`)
    for name in ("hw", "usb"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module("usb")
    clock = {"ms": 0}

    def sleep_ms(ms: int) -> None:
        clock["ms"] += ms

    module.time = types.SimpleNamespace(  # type: ignore[attr-defined]
        ticks_ms=lambda: clock["ms"], ticks_diff=lambda a, b: a - b, sleep_ms=sleep_ms
    )
    yield module
    for name in ("hw", "usb"):
        sys.modules.pop(name, None)


class Bus:
    """The host's side: writes cut into packets, each delivered into the OUT transfer
    the device has submitted (none submitted: the host waits, NAKed)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.device: USBDevice = stream.usbd
        self.got = 0  # bytes in the OUT transfer under way
        self.read = bytearray()  # what the controller read

    def configure(self) -> None:
        self.stream._reset()
        self.stream._open(memoryview(DESC_CFG))

    def packet(self, data: bytes) -> bool:
        """One packet into the OUT transfer; False if none is submitted."""
        view = self.device.transfers.get(self.stream.ep_out)
        if view is None:
            return False
        assert len(data) <= len(view) - self.got, "a packet larger than the room asked for"
        view[self.got : self.got + len(data)] = data
        self.got += len(data)
        if len(data) < 64 or self.got == len(view):  # full, or a short packet: done
            del self.device.transfers[self.stream.ep_out]
            got, self.got = self.got, 0
            self.stream._xfer(self.stream.ep_out, 0, got)
        return True

    def consume(self) -> None:
        data = self.stream.read()
        if data is not None:
            self.read += bytes(data)

    def write(self, data: bytes, reads: Iterator[bool]) -> None:
        """A host write: packets of 64 and a short last one (none after a multiple of
        64), the controller reading whenever ``reads`` says so (and when the host waits)."""
        for i in range(0, len(data), 64):
            for _ in range(3):
                if self.packet(data[i : i + 64]):
                    break
                self.consume()  # NAKed: the device has no room until the controller reads
            else:
                raise AssertionError("the device never takes the packet")
            if next(reads):
                self.consume()


def to_multiple_of_64(data: bytes, seq: int) -> bytes:
    """``data`` and one more frame (a DELTA of a length that fits) so that the write is
    an exact multiple of 64 bytes: whole packets, no short one to end a transfer."""
    for n in range(1, 300):
        frame = p.encode(p.DELTA, seq, p.delta_payload([(0, bytes([n % 250 + 1]) * (3 * n))]))
        if (len(data) + len(frame)) % 64 == 0:
            return data + frame
        frame = p.encode(p.PING, seq, bytes(n))
        if (len(data) + len(frame)) % 64 == 0:
            return data + frame
    raise AssertionError("no frame fits")


def frames() -> st.SearchStrategy[bytes]:
    kinds = st.sampled_from([p.FULL, p.DELTA, p.PING, p.BRIGHTNESS])
    payloads = st.binary(min_size=0, max_size=900)
    return st.builds(lambda k, s, b: p.encode(k, s, b), kinds, st.integers(0, 255), payloads)


def test_the_endpoints_come_from_the_configuration_descriptor(usb: types.ModuleType) -> None:
    assert usb.endpoints(DESC_CFG) == (0, 0x02, 0x82, 64)
    with pytest.raises(ValueError, match="no CDC ACM function"):
        usb.endpoints(DESC_CFG[:9])


def test_transfer_sizes_never_ask_for_a_packet_the_host_need_not_send(
    usb: types.ModuleType,
) -> None:
    assert usb.transfer_size(0, 64) == 64  # between frames: one packet, whatever it is
    assert usb.transfer_size(1, 64) == 64
    assert usb.transfer_size(64, 64) == 64
    assert usb.transfer_size(65, 64) == 128  # a 65th byte comes in a second packet
    assert usb.transfer_size(780, 64) == 832


def test_the_stream_replaces_the_builtin_port_with_the_same_descriptors(
    usb: types.ModuleType,
) -> None:
    stream = usb.UsbCdcStream()
    device = stream.usbd
    assert device.builtin_driver is USBDevice.BUILTIN_NONE
    assert device.desc == (DESC_DEV, DESC_CFG, None)
    assert device.activations == [False, True]
    # Line coding set by the host, read back; DTR; requests for others stalled.
    setup = bytearray(b"\x21\x20\x00\x00\x00\x00\x07\x00")
    buffer = stream._control(1, memoryview(setup))
    assert isinstance(buffer, bytearray) and len(buffer) == 7
    buffer[:] = b"\x40\x42\x0f\x00\x00\x00\x08"  # 1,000,000 baud
    assert stream._control(1, memoryview(b"\xa1\x21\x00\x00\x00\x00\x07\x00")) == buffer
    assert stream._control(1, memoryview(b"\x21\x22\x03\x00\x00\x00\x00\x00")) is True
    assert stream.dtr
    assert stream._control(1, memoryview(b"\x21\x22\x03\x00\x05\x00\x00\x00")) is False
    stream.builtin()
    assert device.builtin_driver is Builtin
    assert device.desc == (DESC_DEV, DESC_CFG, None)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    writes=st.lists(
        st.tuples(st.lists(frames(), min_size=1, max_size=4), st.booleans()),
        min_size=1,
        max_size=12,
    ),
    garbage=st.binary(max_size=40),
    reads=st.lists(st.booleans(), min_size=1, max_size=50),
)
# Garbage whose "header" promises a long frame, then a frame of exactly one packet: the
# garbage's write ended on a short packet, so its promise must not size the next transfer.
@example(
    writes=[([p.encode(p.DELTA, 0, b"")], True)],
    garbage=b"\x00\x01\x01\x01\x02@\x01\x01\x01\x01\x01",
    reads=[False],
)
def test_every_byte_arrives_in_order_and_no_transfer_waits_for_bytes_never_sent(
    usb: types.ModuleType,
    writes: list[tuple[list[bytes], bool]],
    garbage: bytes,
    reads: list[bool],
) -> None:
    """Whatever the frames and however the host groups them into writes, when a write
    has gone no transfer holds part of it (it would wait for the host's next write), and
    the controller reads every byte once, in order, with a 4 kB buffer (back-pressure)."""
    stream = usb.UsbCdcStream()
    bus = Bus(stream)
    bus.configure()
    sent = bytearray()
    pace = iter(reads * 10_000)
    for group, exact in [([garbage], False), *writes]:
        data = b"".join(group)
        if exact:
            data = to_multiple_of_64(data, len(sent) & 0xFF)
            assert len(data) % 64 == 0
        bus.write(data, pace)
        sent += data
        assert bus.got == 0, "a transfer holds bytes of a write that has ended"
    for _ in range(len(sent) // 64 + 3):
        bus.consume()
    assert bus.read == sent


def test_output_waits_for_the_port_and_never_grows_without_bound(usb: types.ModuleType) -> None:
    stream = usb.UsbCdcStream(out_limit=100)
    device = stream.usbd
    stream.write(b"hello")  # before the host configured the port: kept
    assert stream.ep_in not in device.transfers
    Bus(stream).configure()
    stream.read()
    assert bytes(device.transfers[stream.ep_in]) == b"hello"
    stream.write(b"x" * 60)  # while that transfer is under way: waits
    stream.write(b"y" * 60)  # over the limit: dropped, counted
    assert stream.dropped == 60
    del device.transfers[stream.ep_in]
    stream._xfer(stream.ep_in, 0, 5)
    stream.read()
    assert bytes(device.transfers[stream.ep_in]) == b"x" * 60
    stream.write(b"z" * 4)
    del device.transfers[stream.ep_in]
    stream._xfer(stream.ep_in, 0, 60)
    stream.write(b"")
    assert bytes(device.transfers[stream.ep_in]) == b"z" * 4

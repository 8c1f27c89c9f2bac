"""The firmware's own USB serial port: a CDC ACM function on ``machine.USBDevice``.

MicroPython's ``sys.stdin`` moves each byte through its USB stack in C, one call a byte
(~6.8 us on the chip), and its buffers hold most of a frame when the host has handed over
the last byte, so most of the reading is still to do then. Here bulk OUT transfers go
straight into one preallocated buffer: a frame costs a callback or two, not a call a byte.

The host sees the same device as before: the builtin device and configuration
descriptors, byte for byte, and the builtin strings (VID:PID 2e8a:0005, "MicroPython",
"Board in FS mode", the chip's serial number), so ``/dev/serial/by-id/...-if00`` and
``boardctl``'s port detection find it. It replaces the builtin port when the controller
starts (the host sees the port go and come back once, after the boot pattern), and
``builtin()`` puts the builtin one (the REPL, for ``mpremote``) back: UPDATE, or an error.

Transfers: a bulk OUT transfer of N bytes ends when N bytes are in or on a short packet,
and a host writes no zero-length packet after a write that is a multiple of 64 bytes
(Linux's cdc-acm does not), so a transfer must never ask for more than the host is sure
to send. Between frames a transfer asks for one packet (it ends with whatever packet
comes); inside a frame, the frame's header says how many bytes it still has for sure
(``framing.FrameTracker``, as ``hw.UsbStream`` reads it), and the next transfer
asks for as many whole packets as that covers. Several frames in a packet, a frame over
many transfers, 0x03 bytes (plain data here: no Ctrl-C) are all just bytes. The buffer is
lent to the controller by ``read()`` until its next call; a transfer is submitted only
into room that nobody uses, so when the controller falls behind, the host waits (NAK),
and nothing is dropped.
"""

import io
import select
import time

import framing
import hw
import machine

_POLL = 3  # MP_STREAM_POLL: select.poll asks a stream whether it is ready
_POLLIN = 1

# CDC ACM class requests (USB CDC PSTN 1.2, 6.3)
_SET_LINE_CODING = 0x20
_GET_LINE_CODING = 0x21
_SET_CONTROL_LINE_STATE = 0x22
_SEND_BREAK = 0x23
_STAGE_SETUP = 1  # machine.USBDevice control_xfer_cb stages


def endpoints(desc_cfg: bytes) -> "tuple[int, int, int, int]":
    """The first CDC function of a configuration descriptor: (communication interface,
    bulk OUT endpoint, bulk IN endpoint, OUT packet size)."""
    comm = data = out = inp = -1
    size = 64
    current = -1
    i = 0
    while i + 1 < len(desc_cfg) and desc_cfg[i] >= 2:
        kind = desc_cfg[i + 1]
        if kind == 4:  # interface: number, class
            current = desc_cfg[i + 5]
            if current == 2 and comm < 0:
                comm = desc_cfg[i + 2]
            if current == 10 and data < 0:
                data = desc_cfg[i + 2]
        elif kind == 5 and current == 10 and desc_cfg[i + 3] & 3 == 2:  # bulk, data itf
            address = desc_cfg[i + 2]
            if address & 0x80:
                inp = address
            else:
                out = address
                size = desc_cfg[i + 4] | desc_cfg[i + 5] << 8
        i += desc_cfg[i]
    if comm < 0 or out < 0 or inp < 0:
        raise ValueError("no CDC ACM function in the configuration descriptor")
    return comm, out, inp, size


def transfer_size(committed: int, packet: int) -> int:
    """Bytes one OUT transfer may ask for when the host is sure to send ``committed``
    more: whole packets, and never one the host need not start (it would wait for ever
    after a write that is an exact multiple of the packet size)."""
    if committed <= 0:
        return packet
    return packet * (1 + (committed - 1) // packet)


class UsbCdcStream:
    """The controller's link (``ledctl.Stream``) on a CDC ACM of the firmware's own."""

    def __init__(self, size: int = 4096, out_limit: int = 1024) -> None:
        usbd = machine.USBDevice()
        builtin = usbd.BUILTIN_DEFAULT
        self.desc_cfg = bytes(builtin.desc_cfg)
        self.comm, self.ep_out, self.ep_in, self.packet = endpoints(self.desc_cfg)
        self.usbd = usbd
        self.size = size
        self.buffer = bytearray(size)  # OUT bytes: [r, w) not read yet, [w, ...) room
        self.view = memoryview(self.buffer)
        self.r = 0
        self.w = 0
        self.busy = False  # an OUT transfer is submitted (into [w, ...))
        self.asked = 0  # the bytes it asked for
        self.tracker = framing.FrameTracker()  # where the bytes up to w are in the frames
        self.tx = bytearray(out_limit)  # IN bytes waiting: [0, tx_n)
        self.tx_n = 0
        self.sending = bytearray(out_limit)  # the IN transfer under way
        self.tx_busy = False
        self.zlp = False  # the last IN transfer filled whole packets: end it with a ZLP
        self.dropped = 0  # IN bytes dropped: nobody read them and the buffer was full
        self.line_coding = bytearray(b"\x00\xc2\x01\x00\x00\x00\x08")  # 115200 8N1
        self.dtr = False
        self.configured = False
        self.poller = select.poll()  # (what it polls is registered at the first wait())
        self.polling = False
        usbd.active(False)
        usbd.builtin_driver = usbd.BUILTIN_NONE  # type: ignore[attr-defined]  # (stubs)
        usbd.config(
            builtin.desc_dev,
            self.desc_cfg,
            None,  # the builtin strings (manufacturer, product, serial number)
            open_itf_cb=self._open,
            reset_cb=self._reset,
            control_xfer_cb=self._control,
            xfer_cb=self._xfer,
        )
        usbd.active(True)  # the host sees the port go and come back (re-enumeration)

    # --- the controller's side ------------------------------------------------------

    def read(self) -> "memoryview | None":
        if not self.busy:  # (no OUT transfer: no callback can change w meanwhile)
            if self.r == self.w:
                self.r = self.w = 0  # all read (and the last loan over): from the start
            self._submit()
        self._send()
        end = self.w
        start = self.r
        if start == end:
            return None
        self.r = end  # lent to the caller until the next read()
        return self.view[start:end]

    def write(self, data: bytes) -> None:
        n = len(data)
        if self.tx_n + n > len(self.tx):
            self.dropped += n  # the host does not read (port closed): keep the oldest
            return
        self.tx[self.tx_n : self.tx_n + n] = data
        self.tx_n += n
        self._send()

    def wait(self, ms: int) -> None:
        """Until bytes arrive, a transfer can be submitted again or output can go,
        ``ms`` at most: ``select.poll``, as on ``sys.stdin`` (the TinyUSB task runs
        meanwhile, from the scheduler, and with it the transfer callbacks)."""
        if not self.polling:
            self.poller.register(_Ready(self), _POLLIN)
            self.polling = True
        self.poller.poll(ms)

    def ready(self) -> bool:
        """Something for ``read()`` to do."""
        if self.r != self.w:
            return True
        if not self.configured:
            return False
        return not self.busy or (self.tx_n > 0 and not self.tx_busy)

    def builtin(self, settle_ms: int = 250) -> None:
        """MicroPython's own USB serial port again (the REPL, for ``mpremote``); back
        once the host has reset the bus for it, and ``settle_ms`` more for the host to
        configure and open it (what is printed before that is lost: a bus reset clears
        the builtin port's buffers), at most a second for the reset."""
        usbd = self.usbd
        builtin = usbd.BUILTIN_DEFAULT
        usbd.active(False)
        usbd.builtin_driver = builtin  # type: ignore[attr-defined]  # (not in the stubs)
        reset = []
        usbd.config(builtin.desc_dev, builtin.desc_cfg, None, reset_cb=lambda: reset.append(1))
        usbd.active(True)
        start = time.ticks_ms()
        while not reset and time.ticks_diff(time.ticks_ms(), start) < 1000:
            machine.idle()
        time.sleep_ms(settle_ms)

    # --- inside: submitting transfers ---------------------------------------------

    def _submit(self) -> None:
        if self.busy or not self.configured:
            return
        w = self.w
        room = (self.size - w) // self.packet * self.packet
        if room <= 0:
            return  # back-pressure: the host waits until read() frees the buffer
        length = min(transfer_size(self.tracker.committed(), self.packet), room)
        self.busy = True  # (before: the transfer may end before submit_xfer returns)
        self.asked = length
        try:
            ok = self.usbd.submit_xfer(self.ep_out, self.view[w : w + length])
        except OSError:  # a bus reset meanwhile: the endpoint is closed
            ok = False
        if not ok:
            self.busy = False

    def _send(self) -> None:
        if self.tx_busy or not self.configured:
            return
        n = self.tx_n
        if n == 0 and not self.zlp:
            return
        self.tx, self.sending = self.sending, self.tx
        self.tx_n = 0
        self.zlp = n > 0 and n % self.packet == 0
        self.tx_busy = True
        try:
            ok = self.usbd.submit_xfer(self.ep_in, memoryview(self.sending)[:n])
        except OSError:
            ok = False
        if not ok:
            self.tx_busy = False

    # --- inside: machine.USBDevice's callbacks (from the TinyUSB task) ---------------

    def _open(self, desc: memoryview) -> None:
        self.configured = True  # (read() submits the first transfer)

    def _reset(self) -> None:
        # A bus reset (the host re-enumerates): every transfer is cancelled. The bytes
        # already in stay; the host starts again from a fresh write.
        self.busy = False
        self.tx_busy = False
        self.zlp = False
        self.configured = False
        self.dtr = False
        self.tracker.lost()

    def _control(self, stage: int, request: memoryview) -> "bool | bytearray":
        if request[0] & 0x60 != 0x20 or request[4] != self.comm:  # class, our interface
            return False
        code = request[1]
        if code in (_SET_LINE_CODING, _GET_LINE_CODING):
            return self.line_coding if stage == _STAGE_SETUP else True
        if code == _SET_CONTROL_LINE_STATE:
            if stage == _STAGE_SETUP:
                self.dtr = bool(request[2] & 1)
            return True
        return code == _SEND_BREAK

    def _xfer(self, ep: int, result: int, n: int) -> bool:
        if ep == self.ep_out:
            if result == 0:  # XFER_RESULT_SUCCESS
                self.tracker.scan(self.buffer, self.w, self.w + n)
                self.w += n
                if n < self.asked:
                    # A short packet: the host's write is over, maybe in the middle of what
                    # looked like a frame (garbage, or a write cut short), so nothing of
                    # it is surely on its way: one packet at a time to the next 0x00.
                    self.tracker.lost()
            self.busy = False
            self._submit()
        elif ep == self.ep_in:
            self.tx_busy = False  # (the main loop sends what waits: write(), read())
        return True


class _Ready(io.IOBase):
    """What ``select.poll`` polls for ``UsbCdcStream.wait``: a stream object whose
    ``ioctl`` answers MP_STREAM_POLL."""

    def __init__(self, stream: UsbCdcStream) -> None:
        self.stream = stream

    def ioctl(self, request: int, arg: int) -> int:
        if request == _POLL:
            return arg & _POLLIN if self.stream.ready() else 0
        return 0


_active: "list[UsbCdcStream]" = []


def open_stream() -> "UsbCdcStream | hw.UsbStream":
    """The firmware's own CDC port, or MicroPython's ``sys.stdin`` (``hw.UsbStream``)
    where ``machine.USBDevice`` is missing (a build without runtime USB devices)."""
    if not hasattr(machine, "USBDevice"):
        return hw.UsbStream()
    stream = UsbCdcStream()
    _active.append(stream)
    return stream


def builtin() -> None:
    """MicroPython's own USB serial port (and REPL) again, if the firmware replaced it."""
    while _active:
        _active.pop().builtin()

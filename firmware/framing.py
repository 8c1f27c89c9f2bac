"""Where a byte stream from the host is in the protocol's frame layout.

A reader that knows this can ask for exactly the bytes that are surely on their way, and
no more: a frame is written whole by the host, so once a frame's opening 0x00 and its
header are in, the rest of its shortest form (``protocol.frame_size_at_least``) is coming;
between frames, nothing is. ``hw.UsbStream`` (``sys.stdin``) and ``usb.UsbCdcStream``
(the firmware's own port, sizing its bulk transfers) both read by one ``FrameTracker``.
"""

import protocol

# The fewest bytes a frame has after its opening 0x00, but its closing one: COBS code
# byte and 4 header bytes (a 0x00 there is a code byte, in its place), 5 check bytes.
SHORTEST = 10
# Where the stream is
OUT = 0  # between frames: nothing is surely on its way
HEAD = 1  # after a frame's opening 0x00: its header, then its length, are on their way
TAIL = 2  # the frame's last bytes, up to its closing 0x00, are on their way


class FrameTracker:
    """Follows the frame layout over the bytes a reader has received (``scan``), and says
    how many more the host is sure to send (``committed``)."""

    def __init__(self) -> None:
        # (protocol's, or the compiled ones hw.speed_up put there before)
        self.find_zero = protocol.find_zero
        self.at_least = protocol.frame_size_at_least
        self.state = OUT
        self.need = 0  # bytes of the frame in hand before its closing 0x00, for sure
        self.head = bytearray(SHORTEST)  # a frame's first bytes after its 0x00
        self.have = 0

    def committed(self) -> int:
        """Bytes the host is sure to send after those scanned (the frame it is in)."""
        if self.state == TAIL:
            return self.need + 1
        if self.state == HEAD:
            return SHORTEST - self.have + 1
        return 0

    def lost(self) -> None:
        """The host's write ended early (a short packet, a bus reset): between frames."""
        self.state = OUT

    def scan(self, buffer: "protocol.Buffer", i: int, end: int) -> None:
        """Follow the frame layout over ``buffer[i:end]``, the bytes just received."""
        find_zero = self.find_zero
        while i < end:
            state = self.state
            if state == TAIL:
                if self.need > 0:  # bytes of the frame that are surely not its end
                    k = min(self.need, end - i)
                    i += k
                    self.need -= k
                    continue
                zero = find_zero(buffer, i, end)
                if zero < 0:
                    return
                i = zero + 1
                self.state = OUT  # the frame's closing 0x00
            elif state == OUT:
                zero = find_zero(buffer, i, end)
                if zero < 0:
                    return
                i = zero + 1
                self.state = HEAD  # an opening 0x00
                self.have = 0
            else:
                byte = buffer[i]
                i += 1
                if byte == 0:  # 0x00 again: that one opens the frame
                    self.have = 0
                    continue
                self.head[self.have] = byte
                self.have += 1
                if self.have == SHORTEST:
                    at_least = self.at_least(self.head, SHORTEST)
                    if at_least:
                        self.need = at_least - SHORTEST - 1
                        self.state = TAIL
                    else:
                        self.state = OUT  # not a frame's start: garbage

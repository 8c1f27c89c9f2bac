"""Regenerate tests/data/protocol_vectors.json from the protocol module (run after a
deliberate protocol change, with PROTOCOL_VERSION bumped):

    PYTHONPATH=. python tests/data/make_protocol_vectors.py

The vectors pin the wire format byte for byte, so that the MicroPython suites (wasm and
the emulated RP2040) check the same bytes as CPython. The CRC check values are the
published ones (CRC-32/ISO-HDLC 0xCBF43926, CRC-16/CCITT-FALSE 0x29B1 for "123456789"),
not computed here; test_protocol.py asserts them independently.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "firmware"))

from boardctl.link import protocol as p  # noqa: E402

emulator = importlib.import_module("emulator")
ledctl = importlib.import_module("ledctl")
if TYPE_CHECKING:
    from emulator import ManualClock, MemoryStream, RecordingStrip
    from ledctl import Controller

OUT = Path(__file__).resolve().parent / "protocol_vectors.json"
CRC_DATA = ["313233343536373839", "", "00", "ffffffff", bytes(range(32)).hex()]
COBS_DATA = ["00", "0000", "001100", "11220033", "11223344", "", "01" * 253, "01" * 254]
COBS_DATA += ["01" * 255, "00" + "01" * 254, "01" * 254 + "00", "00" * 3]


def message(
    name: str, kind: int, seq: int, payload: bytes, fields: dict[str, object]
) -> dict[str, object]:
    wire = p.encode(kind, seq, payload)
    return {
        "name": name,
        "kind": kind,
        "seq": seq,
        "payload": payload.hex(),
        "wire": wire.hex(),
        "fields": fields,
    }


def body_frame(body: bytes) -> bytes:
    """COBS(body) and its check, without delimiters (for hand-made rejects)."""
    encoded = p.cobs_encode(body)
    return encoded + p._check_bytes(p.crc32(encoded))


def firmware_vector(
    name: str, stream: bytes, led_count: int = 8, budget: int = 2000
) -> dict[str, object]:
    controller, _stream, _strip, _clock = make(led_count, budget)
    pixels = emulator.pump(controller, stream)
    grb = bytes(
        v for i in range(led_count) for v in (pixels[3 * i + 1], pixels[3 * i], pixels[3 * i + 2])
    )
    return {
        "name": name,
        "led_count": led_count,
        "budget_ma": budget,
        "stream": stream.hex(),
        "pixels": pixels.hex(),
        "grb": grb.hex(),
        "bad": controller.bad,
        "applied": controller.applied,
        "refused": controller.refused,
    }


def make(
    led_count: int, budget: int
) -> tuple[Controller, MemoryStream, RecordingStrip, ManualClock]:
    stream = emulator.MemoryStream()
    strip = emulator.RecordingStrip(led_count)
    clock = emulator.ManualClock()
    controller = ledctl.Controller(
        stream, strip, clock, led_count=led_count, budget_ma=budget, boot_ms=0
    )
    return controller, stream, strip, clock


def streams() -> list[dict[str, object]]:
    out = []
    cases = [
        (
            "garbage around frames",
            b"\x137garbage"
            + p.encode(p.PING, 3, b"\x04\x02")
            + b"\xff\x01\x02\x00\x03"
            + p.encode(p.FULL, 4, b"\x01\x02\x03"),
        ),
        ("split delimiter-less junk", b"\x05\x01\x02\x03\x03\x02\x02\x0c\x03\x0a\x00"),
        (
            "back to back",
            p.encode(p.HELLO, 0, p.hello_payload(2, (2, 0, 0), 256, "GRB"))
            + p.encode(p.NAK, 7, p.nak_payload(6, p.NAK_NEED_FULL))
            + p.encode(p.ERROR, 255, p.error_payload(1, "protocol 3")),
        ),
        (
            "a protocol 1 frame is recognised as one",
            p.encode_legacy(p.HELLO, 0, p.hello_payload(1, (1, 0, 0), 256, "GRB")),
        ),
    ]
    for name, data in cases:
        decoder = p.Decoder()
        got = decoder.feed(data)
        out.append(
            {
                "name": name,
                "stream": data.hex(),
                "kinds": [m.kind for m in got],
                "versions": [m.version for m in got],
                "bad": decoder.bad,
            }
        )
    return out


def rejects() -> list[dict[str, object]]:
    good = body_frame(bytes((p.PING, 5, 0, 2, 0x12, 0x34)))
    bad_crc = bytearray(good)
    bad_crc[3] ^= 0x10
    malformed = bytearray(good)
    malformed[-1] &= 0x7F
    cobs = b"\x09\x05\x01\x01\x01"
    past_end = cobs + p._check_bytes(p.crc32(cobs))
    return [
        {"why": "CRC", "encoded": bad_crc.hex()},
        {"why": "too short", "encoded": "0501"},
        {"why": "check bytes malformed", "encoded": malformed.hex()},
        {
            "why": "COBS block past end",
            "encoded": past_end.hex(),
        },
        {"why": "unknown kind", "encoded": body_frame(bytes((0x7F, 1, 0, 0))).hex()},
        {"why": "length field", "encoded": body_frame(bytes((p.PING, 1, 0, 5, 1, 2))).hex()},
    ]


def main() -> None:
    rgb = bytes(range(1, 25))
    full = p.encode(p.FULL, 0, rgb)
    white = p.encode(p.FULL, 0, b"\xff" * 24)
    vectors = {
        "about": "Byte-exact vectors of the boardctl LED link protocol (version "
        f"{p.PROTOCOL_VERSION}), checked by the CPython and the MicroPython test suites; made "
        "by tests/data/make_protocol_vectors.py. Changing any of them changes the protocol: "
        "bump PROTOCOL_VERSION.",
        "protocol_version": p.PROTOCOL_VERSION,
        "crc32": [{"data": d, "crc": p.crc32(bytes.fromhex(d))} for d in CRC_DATA],
        "crc16": [{"data": d, "crc": p.crc16(bytes.fromhex(d))} for d in CRC_DATA],
        "cobs": [{"data": d, "encoded": p.cobs_encode(bytes.fromhex(d)).hex()} for d in COBS_DATA],
        "messages": [
            message(
                "hello",
                p.HELLO,
                0,
                p.hello_payload(p.PROTOCOL_VERSION, (2, 0, 0), 256, "GRB"),
                {
                    "protocol": p.PROTOCOL_VERSION,
                    "firmware": [2, 0, 0],
                    "led_count": 256,
                    "color_order": "GRB",
                },
            ),
            message(
                "full",
                p.FULL,
                1,
                bytes.fromhex("ff000000ff000000ff000000"),
                {"rgb": "ff000000ff000000ff000000"},
            ),
            message(
                "delta_peg_move",
                p.DELTA,
                2,
                p.delta_payload([(10, b"\0\0\0"), (131, b"\x20\x40\x80")]),
                {"runs": [[10, "000000"], [131, "204080"]]},
            ),
            message(
                "brightness",
                p.BRIGHTNESS,
                3,
                p.brightness_payload(128, 1800, 55),
                {"level": 128, "budget_ma": 1800, "led_ma": 55},
            ),
            message("ping", p.PING, 4, p.ping_payload(0x1234), {"token": 0x1234}),
            message(
                "pong",
                p.PONG,
                5,
                p.pong_payload(0x1234, 7, 1),
                {"token": 0x1234, "applied": 7, "bad": 1},
            ),
            message("nak", p.NAK, 6, p.nak_payload(9, p.NAK_CORRUPT), {"expected": 9, "reason": 1}),
            message(
                "error",
                p.ERROR,
                255,
                p.error_payload(1, "protocol 3"),
                {"code": 1, "text": "protocol 3"},
            ),
        ],
        "streams": streams(),
        "rejects": rejects(),
        "firmware": [
            firmware_vector("full frame", full),
            firmware_vector(
                "full then delta",
                full + p.encode(p.DELTA, 1, p.delta_payload([(1, b"\x0c\x0b\x0a")])),
            ),
            firmware_vector(
                "garbage, a corrupt frame, then a frame",
                b"\x01\x02\x03\x00" + full[:-3] + b"\x00\x00" + p.encode(p.FULL, 1, rgb[::-1]),
            ),
            firmware_vector(
                "half brightness",
                p.encode(p.BRIGHTNESS, 0, p.brightness_payload(128, 0, 55))
                + p.encode(p.FULL, 1, rgb),
            ),
            firmware_vector("full white clamped to the controller's budget", white, budget=200),
            firmware_vector(
                "runs past the end are dropped",
                full + p.encode(p.DELTA, 1, p.delta_payload([(7, b"\x09\x09\x09\x08\x08\x08")])),
            ),
            firmware_vector(
                "a delta before any full is refused",
                p.encode(p.DELTA, 0, p.delta_payload([(2, b"\x05\x05\x05")])),
            ),
            firmware_vector(
                "a delta after a gap is refused",
                full + p.encode(p.DELTA, 2, p.delta_payload([(2, b"\x05\x05\x05")])),
            ),
            firmware_vector("a full after a gap is drawn", full + p.encode(p.FULL, 5, rgb[::-1])),
        ],
    }
    OUT.write_text(json.dumps(vectors, indent=1) + "\n")
    print(OUT, "written")


if __name__ == "__main__":
    main()

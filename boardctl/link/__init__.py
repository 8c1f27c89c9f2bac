"""The LED link: the wire protocol to the Pico and the host-side back-ends."""

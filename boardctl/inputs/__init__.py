"""Buttons and rotary encoders: debounce, gestures, pending entries, key bindings."""

"""Turning game state into light: layouts, rendering, power limiting, pictures."""

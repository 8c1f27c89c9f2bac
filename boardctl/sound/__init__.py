"""Sound: buzzer cues and spoken counts, silent unless configured (docs/sound.md)."""

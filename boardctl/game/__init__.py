"""Scorekeeping: the game and match state machine and its durable journal."""

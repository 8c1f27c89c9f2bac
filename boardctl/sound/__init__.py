"""Sound: cues from a buzzer and spoken counts, as options a maker wires or leaves out.

- :mod:`~boardctl.sound.cues`: the tone figures (a click on commit, one per
  refusal class, the skunk line, the win), as data.
- :mod:`~boardctl.sound.buzzer`: plays a cue on a piezo through gpiozero's
  ``TonalBuzzer`` in its own thread (never the service loop's), cut short by
  the next cue; volume, mute and quiet hours.
- :mod:`~boardctl.sound.phrases`: what the board says, in the words players use.
- :mod:`~boardctl.sound.voice`: speech back-ends (espeak-ng, or none), queued,
  cut short by the next event.

Nothing sounds unless configured: the default is silent.
"""

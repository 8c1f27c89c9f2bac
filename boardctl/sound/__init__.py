"""Sound: buzzer cues (:mod:`~boardctl.sound.cues`, :mod:`~boardctl.sound.buzzer`) and spoken counts
(:mod:`~boardctl.sound.phrases`, :mod:`~boardctl.sound.voice`), silent unless configured
(docs/sound.md)."""

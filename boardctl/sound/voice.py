"""Speech without ever holding up the service loop: :class:`SpeechQueue` speaks a few phrases in
a worker thread (an ``interrupt`` phrase cuts the current one short and drops the rest);
:class:`EspeakVoice` runs ``espeak-ng``."""

from __future__ import annotations

import collections
import shutil
import subprocess
import threading
from typing import TYPE_CHECKING, Protocol

from boardctl.errors import ConfigError

if TYPE_CHECKING:
    from boardctl.config import SoundConfig

MAX_WAITING = 4  # phrases queued behind the one spoken; older ones are dropped


class Voice(Protocol):
    """Something that speaks a phrase to its end, or stops when told."""

    def speak(self, text: str) -> None:
        """Say ``text``; return when done or stopped."""

    def stop(self) -> None:
        """Cut the phrase being said short (from another thread)."""


class EspeakVoice:
    """``espeak-ng`` speaking to the default audio device, as ``[sound]`` says."""

    def __init__(self, config: SoundConfig) -> None:
        path = shutil.which("espeak-ng")
        if path is None:
            raise ConfigError(
                "sound.voice: 'espeak-ng' is not installed (sudo apt install espeak-ng)"
            )
        self.base_argv = [path, "-v", config.voice_name, "-s", str(config.words_per_minute)]
        self.volume = config.volume  # 0-1, may change at run time (``set volume``)
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def argv(self) -> list[str]:
        """The espeak-ng command line at the volume now (amplitude 0-200)."""
        return [*self.base_argv, "-a", str(round(200 * min(max(self.volume, 0.0), 1.0)))]

    def speak(self, text: str) -> None:
        with self._lock:
            self._process = process = subprocess.Popen(
                [*self.argv, "--", text], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        process.wait()

    def stop(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                self._process.kill()


class SpeechQueue:
    """Speaks phrases in order in a worker thread; ``interrupt`` cuts the queue short."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self._waiting: collections.deque[str] = collections.deque(maxlen=MAX_WAITING)
        self._wake = threading.Condition()
        self._speaking = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="boardctl-speech", daemon=True)
        self._thread.start()

    def say(self, text: str, *, interrupt: bool = False) -> None:
        """Queue ``text``; with ``interrupt`` stop what is said and drop what waits."""
        if not text:
            return
        with self._wake:
            if interrupt:
                self._waiting.clear()
                if self._speaking:
                    self.voice.stop()
            self._waiting.append(text)
            self._wake.notify()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is said or waiting."""
        with self._wake:
            return self._wake.wait_for(lambda: not self._waiting and not self._speaking, timeout)

    def close(self) -> None:
        """Stop speaking and end the worker."""
        with self._wake:
            self._closed = True
            self._waiting.clear()
            if self._speaking:
                self.voice.stop()
            self._wake.notify_all()
        self._thread.join(5)

    def _run(self) -> None:
        while True:
            with self._wake:
                self._speaking = False
                self._wake.notify_all()
                while not self._waiting and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                text = self._waiting.popleft()
                self._speaking = True
            self.voice.speak(text)

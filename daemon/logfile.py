"""The daemon's log file (`--log-file`): its log records and its stderr (where a crash's
traceback goes) in one file readable by the user alone, set aside as `.1` (replacing
the older one) each time it passes a size, while the daemon runs."""

from __future__ import annotations

import logging.handlers
import os
import sys
from pathlib import Path


class LogFile(logging.handlers.RotatingFileHandler):
    """A rotating log whose current file is also the process's stderr (fd 2), mode 0600."""

    def __init__(self, path: Path, keep_bytes: int):
        super().__init__(path, maxBytes=keep_bytes, backupCount=1, encoding="utf-8")
        self._take_stderr()

    def _open(self):
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.fchmod(fd, 0o600)
        return os.fdopen(fd, "a", encoding=self.encoding)

    def doRollover(self) -> None:
        super().doRollover()
        self._take_stderr()

    def _take_stderr(self) -> None:
        if self.stream is not None:
            sys.stderr.flush()
            os.dup2(self.stream.fileno(), 2)

"""How a bot opens its session of the user's shared daemon: within short waits, so
that where the daemon cannot be used the bot runs an engine of its own with most of the
first turn's second still ahead. It imports nothing heavy: `adapters.bot.main` calls it
before the rest of the bot has loaded."""

from __future__ import annotations

import socket


#: How long a bot waits on a shared daemon for what takes it milliseconds (its answer to
#: `isready`, its start lock), times --time-scale: past that it runs an engine of its
#: own, with the first turn's second still ahead (seconds).
SHARED_WAIT_S = 0.4
#: How long a bot waits for a shared daemon that is alive and starting (seconds, times
#: --time-scale): a cold start takes about as long as an engine of its own.
SHARED_START_WAIT_S = 5.0


def shared_session(time_scale: float) -> socket.socket:
    """A session of the shared daemon (`protocol.shared.open_session`: a connected
    socket), found or started within the bot's waits."""
    from protocol import shared

    return shared.open_session(wait=SHARED_WAIT_S * time_scale, start_wait=SHARED_START_WAIT_S * time_scale)

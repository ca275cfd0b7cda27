"""The `engine` command: argument parsing, the event loop, stdio and TCP serving,
signals."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import stat
import sys

from daemon import cores
from daemon.session import Session
from daemon.transport import StdoutSink, StreamSink, stdin_lines, stream_lines

LOG = logging.getLogger("engine")

#: How long the interpreter lets a thread hold the GIL (seconds). The default 5 ms would
#: let a search thread delay `isready` and `stop` by that much per switch.
SWITCH_INTERVAL = 0.001


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="engine",
        description="A multi-game engine daemon speaking a UCI-like protocol on stdio or TCP.",
    )
    parser.add_argument("--tcp", type=int, metavar="PORT",
                        help="listen on TCP PORT (0 picks a free port) instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                        help="address to listen on with --tcp (default 127.0.0.1)")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warning", "error"), help="stderr log level")
    parser.add_argument("--core", choices=cores.CORES, default=os.environ.get("ENGINE_CORE") or None,
                        help="how every session runs the kernels: compiled (numba; the default"
                             " where numba imports) or python (the same kernels interpreted);"
                             " default $ENGINE_CORE")
    args = parser.parse_args(argv)
    if args.core is not None and args.core not in cores.CORES:
        parser.error(f"ENGINE_CORE must be one of {', '.join(cores.CORES)}, got {args.core!r}")
    if args.tcp is not None and not 0 <= args.tcp <= 65535:
        parser.error(f"port out of range: {args.tcp}")
    return args


class Daemon:
    """The live sessions of the process, so that a signal can save their hash files."""

    def __init__(self, core: str = cores.PYTHON) -> None:
        self.core = core
        self.sessions: set[Session] = set()
        self.terminated = asyncio.Event()

    def terminate(self) -> None:
        """On SIGTERM or SIGINT: stop every search, then save the hash files (off the
        loop) and end."""
        LOG.info("terminating: stopping searches, saving hash files")
        for session in list(self.sessions):
            session.engine.abandon_search()
        asyncio.ensure_future(self._save_and_end())

    async def _save_and_end(self) -> None:
        await asyncio.gather(*(session.engine.save_hash_file() for session in list(self.sessions)))
        self.terminated.set()

    async def serve_stdio(self) -> None:
        session = Session(StdoutSink(), self.core)
        self.sessions.add(session)
        try:
            script = stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
            await session.run(stdin_lines(), finish_on_eof=True, script=script)
        finally:
            self.sessions.discard(session)
        session.engine.abandon_search()
        await session.engine.save_hash_file()

    async def serve_tcp(self, host: str, port: int) -> None:
        server = await asyncio.start_server(self._connection, host, port)
        for sock in server.sockets:
            address = sock.getsockname()
            LOG.info("listening on %s:%d", address[0], address[1])
        async with server:
            await server.serve_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sink = StreamSink(writer)
        session = Session(sink, self.core)
        self.sessions.add(session)
        peer = writer.get_extra_info("peername")
        LOG.debug("session opened: %s", peer)
        try:
            quit_asked = await session.run(stream_lines(reader), finish_on_eof=False)
            session.engine.abandon_search()
            if quit_asked:
                await session.engine.save_hash_file()
        finally:
            session.engine.abandon_search()
            self.sessions.discard(session)
            sink.close()
            LOG.debug("session closed: %s", peer)

    async def main(self, args: argparse.Namespace) -> int:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.terminate)
        if args.tcp is not None:
            serving = asyncio.ensure_future(self.serve_tcp(args.host, args.tcp))
        else:
            serving = asyncio.ensure_future(self.serve_stdio())
        ending = asyncio.ensure_future(self.terminated.wait())
        await asyncio.wait((serving, ending), return_when=asyncio.FIRST_COMPLETED)
        for task in (serving, ending):
            task.cancel()
        if serving.done() and not serving.cancelled() and serving.exception() is not None:
            error = serving.exception()
            LOG.error("cannot serve: %s", error)
            return 1
        return 0


def _loop_factory():
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop
    return uvloop.new_event_loop


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    sys.setswitchinterval(SWITCH_INTERVAL)
    core = args.core or cores.COMPILED
    missing = cores.compiled_missing()
    if missing:
        if core == cores.COMPILED:
            print(f"engine: {missing}; searching with the Python core", file=sys.stderr)
        core = cores.PYTHON
    else:
        cores.prepare_compiler()
    # Everything imported so far lives as long as the process (numba alone is hundreds
    # of thousands of objects): frozen, no full collection walks it again, as one could
    # in the middle of a turn before the game's loaded code is frozen in turn (such
    # collections took 36-42 ms with numba's code loaded, see specialised.warm).
    gc.freeze()
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        code = runner.run(Daemon(core).main(args))
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())

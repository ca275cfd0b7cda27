"""`engine-gui`: serve the web GUI, each browser tab a session of the engine.

    engine-gui [--port P] [--host ADDR] [--token FILE] [--tls-cert FILE --tls-key FILE]
               [--private | --engine tcp://HOST:PORT] [--studies DIR] [--expert-games DIR]

By default every tab is a session of the user's shared daemon (`protocol.shared`,
started where none runs), whose compiled code and books stay warm between the tools;
should it be unusable (it cannot start, or it is full) the log says why and the engine
runs in this process. With `--private` it runs in this process, on the same event loop
as the web server (a daemon of its own, as `engine --tcp` runs it); with `--engine`
every tab is a session of the daemon listening there. The server listens on loopback unless `--host` says
otherwise, which needs `--token`, as the daemon's TCP port does, and serves HTTPS with
`--tls-cert` and `--tls-key` (the daemon's TLS set-up). It keeps the pages' studies in
`--studies DIR` (by default the user's data folder's `engine/studies`), and the opening
explorer's index of the expert games in `--expert-games DIR` in that data folder's
`engine/explorer`. It prints the
address to open and opens nothing itself.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import socket
import ssl
import sys
from pathlib import Path
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from adapters.gui.explorer import Explorer
from adapters.gui.server import DEFAULT_MAX_TABS, make_app
from adapters.gui.studies import Studies
from daemon import cores
from daemon.main import (
    EXIT_LOAD_WAIT_S,
    SWITCH_INTERVAL,
    Daemon,
    add_tls_arguments,
    check_tls_arguments,
    in_process_daemon,
    is_loopback,
    read_token,
    tls_context,
)
from protocol.client import Engine, EngineClosed, EngineError
from protocol.shared import Unusable

LOG = logging.getLogger("engine.gui")


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="engine-gui", description="A web GUI of the engine: play, analyse and"
                                                                   " replay its games in a browser.")
    parser.add_argument("--port", type=int, default=8080, help="the port to serve on (default 8080; 0 picks one)")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                        help="the address to listen on (default 127.0.0.1); any other needs --token")
    parser.add_argument("--token", type=Path, metavar="FILE",
                        help="a file holding the token (its first line) the browser must bring: the printed"
                             " address carries it")
    add_tls_arguments(parser, "HTTP (https://, and wss:// for the page's WebSockets)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--private", action="store_true",
                       help="run the engine in this process instead of using the user's shared daemon")
    where.add_argument("--engine", metavar="tcp://HOST:PORT",
                       help="use the daemon listening there (engine --tcp PORT) instead of the user's shared one")
    parser.add_argument("--engine-token", type=Path, metavar="FILE",
                        help="the token file of the daemon --engine names, if it asks for one")
    parser.add_argument("--max-tabs", type=int, default=DEFAULT_MAX_TABS, metavar="N",
                        help=f"browser tabs served at once (default {DEFAULT_MAX_TABS})")
    parser.add_argument("--studies", type=Path, metavar="DIR",
                        help="the folder the studies are kept in (default: the user's data folder's"
                             " engine/studies)")
    parser.add_argument("--expert-games", type=Path, metavar="DIR",
                        help="a folder of expert games for the opening explorer of the games that have one"
                             " (docs/gui.md); its index is cached in the user's data folder")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"port out of range: {args.port}")
    if args.max_tabs < 1:
        parser.error(f"--max-tabs must be at least 1, got {args.max_tabs}")
    check_tls_arguments(parser, args)
    if not is_loopback(args.host) and args.token is None:
        parser.error(f"refusing to listen on {args.host} without --token FILE: anyone who can reach the port"
                     f" could run searches (docs/gui.md)")
    if args.engine is not None:
        address = urlsplit(args.engine)
        try:
            port = address.port
        except ValueError:
            port = None
        if address.scheme != "tcp" or not address.hostname or port is None:
            parser.error(f"--engine takes tcp://HOST:PORT, got {args.engine!r}")
        args.engine_address = (address.hostname, port)
    return args


def _wildcard_families(host: str) -> tuple[socket.AddressFamily, ...]:
    """The address families of which a server listening on `host` takes every address
    (`0.0.0.0`, `::`, or an empty host for both); none for an address or a name."""
    if not host:
        return socket.AF_INET, socket.AF_INET6
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a host name
        return ()
    if not address.is_unspecified:
        return ()
    return (socket.AF_INET,) if address.version == 4 else (socket.AF_INET6,)


def hosts_to_open(host: str) -> list[str]:
    """The hosts of the addresses to print for a server listening on `host`: `host`
    itself, but for a wildcard, which no browser opens, the machine's host name, the
    other addresses that name resolves to, and the loopback."""
    families = _wildcard_families(host)
    if not families:
        return [host]
    name = socket.gethostname()
    hosts = [name]
    for family in families:
        try:
            found = socket.getaddrinfo(name, None, family, socket.SOCK_STREAM)
        except OSError:  # a name that does not resolve
            found = []
        for *_, address in found:
            ip = ipaddress.ip_address(address[0])
            if not (ip.is_loopback or ip.is_link_local):
                hosts.append(str(ip))
    hosts += ["127.0.0.1" if family == socket.AF_INET else "::1" for family in families]
    return list(dict.fromkeys(hosts))


async def serve(args: argparse.Namespace, token: str | None, engine_token: str | None,
                tls: ssl.SSLContext | None) -> None:
    own_engine: Callable[[], Awaitable[Engine]] | None = None
    if args.engine is not None:
        async def open_engine() -> Engine:
            return await Engine.connect(*args.engine_address, token=engine_token)
    else:
        in_process: list[Daemon] = []

        async def in_this_process() -> Engine:
            if not in_process:
                # The loop serves the pages and the engine's sessions beside the search threads.
                sys.setswitchinterval(SWITCH_INTERVAL)
                in_process.append(in_process_daemon())
            return Engine(*await in_process[0].open_session())

        async def open_engine() -> Engine:
            if not args.private and not in_process:
                try:
                    return await Engine.shared()
                except (OSError, EngineError, EngineClosed, asyncio.TimeoutError) as error:
                    LOG.warning("the shared engine daemon cannot be used (%s): the engine runs in this process from"
                                " now on", error if isinstance(error, Unusable) else f"{type(error).__name__}: {error}")
            return await in_this_process()

        own_engine = None if args.private else in_this_process

    runner = web.AppRunner(make_app(open_engine, token, args.max_tabs, own_engine, Studies(args.studies),
                                    Explorer(args.expert_games)),
                           access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port, ssl_context=tls)
    await site.start()
    port = runner.addresses[0][1]
    first, *others = (f"{'https' if tls else 'http'}://{f'[{host}]' if ':' in host else host}:{port}/"
                      + (f"?token={token}" if token else "") for host in hosts_to_open(args.host))
    print("\n".join([f"engine-gui: open {first}", *(f"engine-gui: or open {other}" for other in others)]),
          flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        token = read_token(args.token) if args.token is not None else None
        engine_token = read_token(args.engine_token) if args.engine_token is not None else None
        tls = tls_context(args)
    except ValueError as error:
        print(f"engine-gui: {error}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(args, token, engine_token, tls))
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"engine-gui: cannot serve: {error}", file=sys.stderr)
        return 1
    finally:
        # A load of compiled code cut off by the exit could abort the process.
        cores.finish_loading(EXIT_LOAD_WAIT_S)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Soak the daemon over TCP: many clients at once, for minutes, doing what clients do
and what they should not.

    scripts/soak [--minutes 10] [--clients 24] [--port PORT] [--token-file FILE]

Without --port it starts `engine --tcp 0` with a hash directory of its own. Each client
loops over random actions until the time is up:

- search: a random game, `go movetime` 20-200 ms, waits for `bestmove`;
- ponder: `go ponder`, then `ponderhit` or `stop`;
- vanish: `go infinite` or `perft 12`, then the connection is cut mid-work, and a new
  one opened;
- files: `hash save` to one of a few shared names, then `hash load` of one;
- perft: `perft 12`, then `stop`;
- garbage: random bytes and malformed commands;
each action ends with an `isready` barrier. A prober, a process of its own, opens a
fresh session every 100 ms and times its `isready`.

It prints answered commands, lost sessions (a reply that never came, or a connection
the daemon closed: must be 0), error replies by code, the daemon's peak resident
memory, and the prober's isready latency percentiles.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


from games import all_games
from protocol.client import Engine, EngineClosed, EngineError

#: The project's folder: the processes the soak starts run there.
ROOT = Path(__file__).resolve().parent.parent

GAMES = tuple(all_games())
#: Seconds a reply may take before its session counts as lost.
REPLY_TIMEOUT = 30.0


class Tally:
    def __init__(self) -> None:
        self.answered = 0
        self.lost: list[str] = []
        self.errors: collections.Counter[str] = collections.Counter()
        self.actions: collections.Counter[str] = collections.Counter()
        self.isready_ms: list[float] = []
        self.peak_rss_mib = 0.0


def resident_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Soak:
    def __init__(self, port: int, token: str | None, pid: int | None, seconds: float):
        self.port, self.token, self.pid = port, token, pid
        self.end = time.monotonic() + seconds
        self.tally = Tally()

    async def connect(self) -> Engine:
        return await Engine.connect("127.0.0.1", self.port, self.token)

    async def barrier(self, client: Engine) -> None:
        """isready; every error line before readyok is counted by code."""
        for line in await client.ready(REPLY_TIMEOUT, raise_errors=False):
            if line.startswith("error "):
                self.tally.errors[line.split()[1]] += 1
        self.tally.answered += 1

    async def ask(self, client: Engine, line: str, prefix: str) -> list[str]:
        try:
            lines = await client.ask(line, prefix, REPLY_TIMEOUT)
        except EngineError as error:
            self.tally.errors[error.code] += 1
            return []
        self.tally.answered += 1
        return lines

    async def client_loop(self, seed: int) -> None:
        rng = random.Random(seed)
        client = await self.connect()
        while time.monotonic() < self.end:
            action = rng.choice(("search", "search", "ponder", "vanish", "files", "perft", "garbage"))
            self.tally.actions[action] += 1
            try:
                client = await getattr(self, f"_{action}")(client, rng)
                await self.barrier(client)
            except (asyncio.TimeoutError, EngineClosed, ConnectionError, OSError) as error:
                self.tally.lost.append(f"{action}: {type(error).__name__} {error}")
                client._writer.transport.abort()
                client = await self.connect()
        await client.close()

    async def _setgame(self, client: Engine, rng: random.Random) -> None:
        await client.send(f"setgame {rng.choice(GAMES)}")
        await client.send("position startpos")

    async def _search(self, client: Engine, rng: random.Random) -> Engine:
        await self._setgame(client, rng)
        await self.ask(client, f"go movetime {rng.randint(20, 200)}", "bestmove")
        return client

    async def _ponder(self, client: Engine, rng: random.Random) -> Engine:
        await self._setgame(client, rng)
        await client.send(f"go ponder movetime {rng.randint(20, 100)}")
        await asyncio.sleep(rng.uniform(0, 0.2))
        await self.ask(client, rng.choice(("ponderhit", "stop")), "bestmove")
        return client

    async def _vanish(self, client: Engine, rng: random.Random) -> Engine:
        await self._setgame(client, rng)
        await client.send(rng.choice(("go infinite", "perft 12")))
        await asyncio.sleep(rng.uniform(0, 0.3))
        client._writer.transport.abort()
        return await self.connect()

    async def _files(self, client: Engine, rng: random.Random) -> Engine:
        await self._setgame(client, rng)
        await self.ask(client, "go depth 3", "bestmove")
        name = f"soak-{rng.randint(0, 3)}.hash"
        await self.ask(client, f"hash save {name}", "info string hash saved")
        try:
            await client.ask(f"hash load soak-{rng.randint(0, 3)}.hash", "info string hash loaded", REPLY_TIMEOUT)
            self.tally.answered += 1
        except EngineError as error:  # another game's table, or not saved yet: a true refusal
            self.tally.errors[error.code] += 1
        return client

    async def _perft(self, client: Engine, rng: random.Random) -> Engine:
        await client.send(f"setgame {rng.choice(GAMES)}")
        await client.send("perft 12")
        await asyncio.sleep(rng.uniform(0, 0.3))
        await client.send("stop")
        return client

    async def _garbage(self, client: Engine, rng: random.Random) -> Engine:
        for _ in range(rng.randint(1, 8)):
            data = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 60)))
            data = data.replace(b"\n", b" ").replace(b"quit", b"qu1t")
            if rng.random() < 0.5:
                data = rng.choice((b"go depth x", b"position board ///", b"setoption name Hash value 99999999",
                                   b"hash load ../../etc/passwd", b"perft -3", b"setgame chess"))
            await client.send_raw(data + b"\n")
        return client

    async def prober(self) -> None:
        """Run `probe` in a process of its own, so that this process's busy clients do not
        delay its readings, and collect them."""
        command = [sys.executable, "-m", "tools.soak", "--probe", str(self.port), str(self.end - time.monotonic())]
        if self.token:
            command += ["--probe-token", self.token]
        process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE, cwd=ROOT)
        output, _ = await process.communicate()
        for line in output.decode().splitlines():
            if line.startswith("lost "):
                self.tally.lost.append("prober: " + line[5:])
            else:
                self.tally.isready_ms.append(float(line))

    async def watch_memory(self) -> None:
        while time.monotonic() < self.end and self.pid is not None:
            self.tally.peak_rss_mib = max(self.tally.peak_rss_mib, resident_mib(self.pid))
            await asyncio.sleep(0.25)

    async def run(self, clients: int) -> Tally:
        await asyncio.gather(self.prober(), self.watch_memory(),
                             *(self.client_loop(seed) for seed in range(clients)))
        return self.tally


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(tally: Tally, seconds: float, clients: int) -> None:
    print(f"soak: {clients} clients for {seconds / 60:.1f} min")
    print(f"  actions: {dict(sorted(tally.actions.items()))}")
    print(f"  answered commands: {tally.answered}")
    print(f"  lost sessions: {len(tally.lost)}")
    for line in tally.lost[:10]:
        print(f"    {line}")
    print(f"  error replies by code: {dict(sorted(tally.errors.items()))}")
    print(f"  daemon peak RSS: {tally.peak_rss_mib:.0f} MiB")
    if tally.isready_ms:
        values = tally.isready_ms
        print(f"  isready of a new session ({len(values)} probes): p50 {statistics.median(values):.1f} ms,"
              f" p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")


def probe(port: int, seconds: float, token: str | None) -> None:
    """Every 100 ms for `seconds`: open a session, time its `isready` (ms), close it;
    print one line per probe (the time, or `lost <why>`)."""
    import socket

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT) as sock:
                if token:
                    sock.sendall(f"auth {token}\n".encode())
                began = time.monotonic()
                sock.sendall(b"isready\n")
                reply = b""
                while not reply.endswith(b"\n"):
                    chunk = sock.recv(100)
                    if not chunk:
                        raise ConnectionError("closed")
                    reply += chunk
                elapsed = (time.monotonic() - began) * 1000
                sock.sendall(b"quit\n")
            print(f"{elapsed:.2f}" if reply == b"readyok\n" else f"lost {reply!r}", flush=True)
        except OSError as error:
            print(f"lost {type(error).__name__} {error}", flush=True)
        time.sleep(max(0.0, 0.1 - (time.monotonic() - started)))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:
        probe(int(argv[1]), float(argv[2]), argv[4] if argv[3:4] == ["--probe-token"] else None)
        return 0
    parser = argparse.ArgumentParser(prog="scripts/soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--port", type=int, help="soak a daemon already listening on this port")
    parser.add_argument("--token-file", type=Path, help="the daemon's token file")
    parser.add_argument("--max-hash-mib", type=int, default=2048, help="the started daemon's budget")
    args = parser.parse_args(argv)
    token = args.token_file.read_text().split()[0] if args.token_file else None
    process = None
    log: list[str] = []
    port = args.port
    if port is None:
        folder = tempfile.mkdtemp(prefix="soak-hash-")
        command = [sys.executable, "-m", "daemon.main", "--tcp", "0", "--hash-dir", folder,
                   "--max-hash-mib", str(args.max_hash_mib), "--log-level", "warning"]
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True,
                                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert process.stderr is not None
        threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
        # With --log-level warning the daemon says nothing until it fails; ask the OS.
        port = _wait_for_port(process.pid)
    seconds = args.minutes * 60
    started = time.monotonic()
    tally = asyncio.run(Soak(port, token, process.pid if process else None, seconds).run(args.clients))
    report(tally, time.monotonic() - started, args.clients)
    if process is not None:
        process.terminate()
        process.wait(30)
        time.sleep(0.2)
        tracebacks = sum("Traceback" in line for line in log)
        print(f"  daemon exit {process.returncode}, tracebacks in its log: {tracebacks}")
    return 0 if not tally.lost else 1


def _wait_for_port(pid: int) -> int:
    """The TCP port the process `pid` listens on, from /proc/net/tcp."""
    inodes = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                match = re.match(r"socket:\[(\d+)\]", target)
                if match:
                    inodes.add(match.group(1))
            with open("/proc/net/tcp") as handle:
                for line in handle.readlines()[1:]:
                    fields = line.split()
                    if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                        return int(fields[1].split(":")[1], 16)
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("soak: the daemon did not start listening")


if __name__ == "__main__":
    sys.exit(main())

"""Three-player Knight Isolation through the real engine: seeds, clocks, the
multi-player searches, the modelled one with the game's line."""

from __future__ import annotations

import asyncio

from games import find_game
from tests.conftest import LOAD_SLACK, StdioEngine, move_tokens, run

GAME = find_game("isolation")


def legal(board_text: str) -> set[str]:
    return move_tokens(GAME.parse_board(board_text.split()))


def test_seeded_start_clocks_and_searches() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            lines = await engine.ask("uci", "uciok")
            assert ("option name MultiPlayerSearch type combo default paranoid"
                    " var paranoid var brs var maxn var mcts var model") in lines
            await engine.send("setgame isolation seed=3")
            (text,) = [l for l in await engine.ask("d", "board-text") if l.startswith("board-text")]
            board = text.split(" ", 1)[1]
            assert board == "......../....g.../....r.../......../......../......../......b./........ r alive=rgb"
            for algorithm in ("paranoid", "brs", "maxn", "mcts", "model"):
                await engine.send(f"setoption name MultiPlayerSearch value {algorithm}")
                answer = await engine.bestmove("go depth 3")
                assert answer.move in legal(board), algorithm
                assert " score cp " in answer.info_lines[-1]
            await engine.send("setoption name MultiPlayerSearch value paranoid")
            await engine.ready()
            answer = await engine.bestmove("go p1time 1000 p2time 1000 p3time 1000")
            assert answer.move in legal(board) and answer.elapsed < 0.3 + LOAD_SLACK
            replies = await engine.ask("go wtime 1000 btime 1000", "error")
            assert replies[-1].startswith("error bad-value go wtime/btime/winc/binc are for two-player games")
            replies = await engine.ask("setoption name MultiPlayerSearch value minimax", "error")
            assert replies[-1].startswith("error bad-value setoption MultiPlayerSearch must be one of")
            await engine.send("position startpos moves c5 d5 e3")
            assert await engine.ready() == []
            assert (await engine.ask("moves", "moves"))[-1].startswith("moves ")
            assert (await engine.ask("d", "board-text"))[-1].startswith(
                "board-text ......../....#.../....#.../..rg..../......../....b.../......#./........ r")
            await engine.send("setgame isolation seed=x")
            assert (await engine.ready(raise_errors=False))[-1].startswith(
                "error bad-value setgame seed must be an integer")
    run(scenario())


def test_eliminations_and_the_end_through_the_protocol() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame isolation")
            # Green is walled in: it is put out at once, and blue is to move.
            rows = "b......g/.....#../......#./......../......../......../......../r......."
            await engine.send(f"position board {rows} g")
            lines = await engine.ask("d", "board-text")
            assert lines[-1].endswith(" b alive=rb out=g")
            answer = await engine.bestmove("go depth 4")
            assert answer.move is not None
            # Red cannot move: it is out, and blue, the last one in, wins.
            rows = "r......./..#...g./.#....../......../......../......../......../.......b"
            await engine.send(f"position board {rows} r alive=rb out=g")
            lines = await engine.ask("d", "result")
            assert lines[-1] == "result b last player standing"
            assert lines[-2].endswith(" alive=b out=gr")
            assert (await engine.bestmove("go depth 2")).move is None
    run(scenario())


def test_the_modelled_search_reads_the_line_and_stops_on_time() -> None:
    """`model` with the rivals' moves in the position command: a legal move within a
    movetime, and an infinite search that `stop` ends."""
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame isolation seed=3")
            await engine.send("setoption name MultiPlayerSearch value model")
            start = GAME.initial_state({"seed": "3"})
            position, moves = start, []
            for _ in range(9):
                move = sorted(position.legal_moves())[-1]
                moves.append(GAME.format_move(position, move))
                position = position.play(move)
            await engine.send(f"position board {GAME.format_board(start)} moves {' '.join(moves)}")
            assert await engine.ready() == []
            answer = await engine.bestmove("go movetime 100")
            assert answer.move in legal(GAME.format_board(position))
            assert answer.elapsed < 0.1 + LOAD_SLACK
            stop = asyncio.Event()
            asyncio.get_running_loop().call_later(0.2, stop.set)
            answer = await engine.bestmove("go infinite", stop=stop)
            assert answer.move in legal(GAME.format_board(position))
    run(scenario())

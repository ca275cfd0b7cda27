"""Analysis through the protocol, over pipes (the transport changes nothing here), in
every game: `go searchmoves` (the root cut to the given moves), `go mate`, and MultiPV
(its lines, their order, and each line's score against the move searched alone)."""

from __future__ import annotations

import pytest

from games import all_games
from protocol.client import EngineError
from protocol.info import parse_info
from tests.conftest import StdioEngine, run


def scores(infos) -> list[str]:
    return [str(parse_info(info).score) for info in infos if " score " in info]


@pytest.mark.parametrize("name", sorted(all_games()))
def test_the_root_is_cut_to_the_moves_given(name: str) -> None:
    game = all_games()[name]
    start = game.initial_state({"seed": "3"} if "seed" in game.parameters else {})
    tokens = sorted(game.format_move(start, move) for move in start.legal_moves())
    setgame = f"setgame {name} seed=3" if "seed" in game.parameters else f"setgame {name}"

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send(setgame)
            free = await engine.bestmove("go depth 3")
            others = [token for token in tokens if token != free.move]
            # One move: it is played, and every line's pv starts with it.
            forced = await engine.bestmove(f"go depth 3 searchmoves {others[-1]}")
            assert forced.move == others[-1]
            assert all(info.split(" pv ")[1].split()[0] == others[-1] for info in forced.info_lines if " pv " in info)
            # Two moves, neither the best: one of them.
            pair = others[:2]
            assert (await engine.bestmove(f"go depth 3 searchmoves {' '.join(pair)}")).move in pair
            # The table keeps nothing a restricted root would mislead a later search with.
            again = await engine.bestmove("go depth 3")
            await engine.send("hash clear")
            fresh = await engine.bestmove("go depth 3")
            assert scores(again.info_lines)[-1] == scores(fresh.info_lines)[-1] == scores(free.info_lines)[-1]
            with pytest.raises(EngineError) as refused:
                await engine.bestmove(f"go depth 2 searchmoves {others[0]} zz9")
            assert refused.value.code == "illegal-move" and "searchmoves 2" in refused.value.message
    run(scenario())


def test_go_mate_finds_a_win_within_its_moves_and_stops() -> None:
    """Clobber, white to move: b2a2 takes the last black stone's only partner at once."""
    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            await engine.send("position board ......../......../......../......../......../......../bw....../........ w")
            found = await engine.bestmove("go mate 3")
            assert found.move == "b2a2" and " score mate 1 " in found.info_lines[-1]
            await engine.send("position startpos")
            bounded = await engine.bestmove("go mate 2")  # no win that soon: depth 3, then the best move
            assert max(int(info.split()[2]) for info in bounded.info_lines if info.startswith("info depth")) == 3
            await engine.send("setgame isolation")
            with pytest.raises(EngineError) as refused:
                await engine.bestmove("go mate 2")
            assert refused.value.code == "bad-value"
    run(scenario())


@pytest.mark.parametrize("name", sorted(all_games()))
def test_multipv_reports_the_best_root_moves_each_on_its_line(name: str) -> None:
    game = all_games()[name]
    start = game.initial_state({"seed": "3"} if "seed" in game.parameters else {})
    legal = {game.format_move(start, move) for move in start.legal_moves()}
    setgame = f"setgame {name} seed=3" if "seed" in game.parameters else f"setgame {name}"

    def lines_of(infos, depth: int) -> list[tuple[int, int, str]]:
        """(rank, score, first move) of the lines of one depth."""
        found = []
        for info in infos:
            words = info.split()
            if "multipv" in words and int(words[words.index("depth") + 1]) == depth:
                score = int(words[words.index("score") + 2])
                found.append((int(words[words.index("multipv") + 1]), score, words[words.index("pv") + 1]))
        return found

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send(setgame)
            plain = await engine.bestmove("go depth 2")
            assert not any("multipv" in info for info in plain.info_lines), "MultiPV 1 prints as before"
            await engine.send("setoption name MultiPV value 256")
            every = await engine.bestmove("go depth 1")
            lines = lines_of(every.info_lines, 1)
            assert [rank for rank, _, _ in lines] == list(range(1, len(legal) + 1))
            assert {move for _, _, move in lines} == legal and every.move == lines[0][2]
            scores = [score for _, score, _ in lines]
            assert scores == sorted(scores, reverse=True), "best first, at depth 1 exactly"
            await engine.send("setoption name MultiPV value 3")
            three = await engine.bestmove("go depth 3")
            top = lines_of(three.info_lines, 3)
            assert [rank for rank, _, _ in top] == [1, 2, 3] and len({move for _, _, move in top}) == 3
            assert three.move == top[0][2]
    run(scenario())


@pytest.mark.parametrize("name", sorted(all_games()))
def test_multipv_of_every_move_equals_each_move_searched_alone(name: str) -> None:
    """MultiPV at least the number of legal moves scores each root move exactly as a
    `go searchmoves` of that move alone does, at the same depth (fresh tables)."""
    import random

    game = all_games()[name]
    params = {"seed": "3"} if "seed" in game.parameters else {}
    position = game.initial_state(params)
    rng = random.Random(2)
    moves = []
    for _ in range(4):
        move = rng.choice(position.legal_moves())
        moves.append(game.format_move(position, move))
        position = position.play(move)

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.setgame(name, **params)
            await engine.send("hash clear")
            lines = await engine.analyse({"depth": 3}, position="startpos moves " + " ".join(moves), multipv=256)
            assert {info.move for info in lines} == {game.format_move(position, move)
                                                    for move in position.legal_moves()}
            for info in lines:
                await engine.send("hash clear")
                (alone,) = await engine.analyse({"depth": 3}, searchmoves=[info.move])
                assert alone.score == info.score, info.move
    run(scenario())


def test_multipv_goes_on_until_every_line_is_proven() -> None:
    """FFO position 20, black to move: h5 ends the game at once with a win, and the
    other three moves lose. A search that stopped at the first proof would leave lines
    2-4 at depth 1 with static scores."""
    board = "00010000/10000000/11000000/11100000/1110011./11111.../1111111./1111111. 0"

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.setgame("othello")
            lines = await engine.analyse({"depth": 30}, position=f"board {board}", multipv=4)
            assert [info.move for info in lines][0] == "h5" and lines[0].score.mate == 1
            assert {info.move for info in lines} == {"h5", "f6", "g6", "h6"}
            assert all(info.score.mate is not None and info.score.mate < 0 for info in lines[1:]), lines
    run(scenario())


def test_multipv_lines_are_best_first_after_a_deeper_search() -> None:
    """A depth 6 MultiPV search after a depth 9 one of the position before: the table's
    deeper entries once scored line 3 above line 1."""

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.setgame("othello")
            await engine.configure({"OwnBook": False})
            await engine.analyse({"depth": 9}, position="startpos moves d3 c5 d6 e3", multipv=3)
            await engine.position("startpos moves d3 c5 d6 e3 f4")
            replies = await engine.ask("go depth 6", "bestmove", 60)
            for depth in range(1, 7):
                lines = [parse_info(line) for line in replies if line.startswith(f"info depth {depth} ")]
                assert [line.multipv for line in lines] == [1, 2, 3]
                assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
            assert replies[-1].split()[1] == lines[0].move

    run(scenario())


@pytest.mark.parametrize("multipv", [1, 3])
def test_a_steady_score_is_the_mean_of_a_lines_last_two_iterations(multipv: int) -> None:
    """`steady`: a line's score averaged with that of its first move one iteration
    before, where that iteration scored the move and neither score is a proven result."""

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame othello")
            await engine.send("setoption name OwnBook value false")
            await engine.send(f"setoption name MultiPV value {multipv}")
            await engine.send("position startpos moves f5 d6 c3 d3 c4 f4")
            unsteadied = await engine.bestmove("go depth 4")
            assert all(" steady " not in line for line in unsteadied.info_lines)  # only under ShowSteady
            await engine.send("setoption name ShowSteady value true")
            answer = await engine.bestmove("go depth 8")
            infos = [parse_info(line) for line in answer.info_lines]
            seen: dict[int, dict[str, int]] = {}
            steadied = 0
            for info in infos:
                if info is None or info.score is None:
                    continue
                before = seen.get(info.depth - 1, {}).get(info.move)
                plain = info.score.cp is not None and info.margin is None
                expected = round((info.score.cp + before) / 2) if plain and before is not None else None
                assert info.steady == expected, (info.line(), before)
                steadied += info.steady is not None
                if plain:
                    seen.setdefault(info.depth, {})[info.move] = info.score.cp
            assert steadied >= 3
            # A search of its own: nothing carried over from the one before.
            again = await engine.bestmove("go depth 1")
            assert all(parse_info(line).steady is None for line in again.info_lines if parse_info(line))

    run(scenario())

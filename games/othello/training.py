"""What the pattern training (`scripts/pattern_data`, `scripts/train_patterns`) needs to
know of Othello: its expert games, its positions as rows of bitboards, and the features
of its pattern evaluation (`patterns`).

A position is a row of BOARDS uint64: the side to move's discs, then the other side's.
Labels are final disc margins for the side to move.

The expert games are the WTHOR database of the French Othello Federation (FFO), the
standard record of tournament and program games (<https://www.ffothello.org/informatique/la-base-wthor/>),
read in place from its yearly files `WTH_*.wtb`: a 16-byte header, then 68-byte records,
each with the real final score and the *theoretical* one (perfect play from the position
with 24 empty squares, THEORY_EMPTIES) as Black's discs with the empty squares given to
the winner, and 60 moves as `10 * row + column` (1-based; 0 past the end; passes not
recorded).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.kernel import kernel, popcount
from games.othello import evaluation, notation, patterns
from games.othello.bitboard import move_mask
from games.othello.rules import (BLACK, BLACK_START, PASS_MOVE, STATE_TYPES, WHITE_START, legal_moves, make_state,
                                 play)

#: The uint64 columns of a position's row.
BOARDS = 2
#: The theoretical score is that of the position after this many recorded moves, with
#: this many empty squares.
THEORY_MOVES = 36
THEORY_EMPTIES = 60 - THEORY_MOVES
#: The names of the expert games' files.
EXPERT_FILES = "WTH_*.wtb"


def read_games(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(moves (N, 60) uint8, theoretical (N,), real (N,)) of every game of the files in
    `folder` (see the module docstring); raises ValueError for a file of a wrong size."""
    records = []
    files = sorted(folder.glob(EXPERT_FILES))
    if not files:
        raise ValueError(f"no {EXPERT_FILES} file in {folder}")
    for path in files:
        data = path.read_bytes()
        count = int.from_bytes(data[4:8], "little")
        if len(data) != 16 + 68 * count:
            raise ValueError(f"{path} holds {len(data)} bytes, not 16 + 68 x {count}")
        records.append(np.frombuffer(data, dtype=np.uint8, offset=16).reshape(count, 68))
    games = np.concatenate(records)
    return games[:, 8:68].copy(), games[:, 7].copy(), games[:, 6].copy()


@kernel
def replay_games(moves, boards_out, game_out, black_out):
    """Replay each game of `moves` (see `read_games`) from the start, writing the position
    before each move and the final one into boards_out (side to move's view; black_out
    says whether black is to move), row after row, with its game's index. A player with
    no legal move passes (the files record no passes). Returns the rows written and, per
    game, the moves played (-1: an illegal move, its rows not kept)."""
    played = np.zeros(moves.shape[0], dtype=np.int64)
    row = 0
    for game in range(moves.shape[0]):
        s = make_state(BLACK_START, WHITE_START, BLACK)
        first_row = row
        count = 0
        for ply in range(60):
            code = moves[game, ply]
            if code == 0:
                break
            if s[5] != 0:
                s = play(s, PASS_MOVE)
            boards_out[row, 0], boards_out[row, 1] = s[0], s[1]
            game_out[row], black_out[row] = game, s[4] == BLACK
            row += 1
            rank, file = code // 10, code % 10
            square = np.int64(8 * (rank - 1) + file - 1)
            if rank < 1 or rank > 8 or file < 1 or file > 8 or (s[2] >> np.uint64(square)) & np.uint64(1) == 0:
                count = -1
                break
            s = play(s, square)
            count += 1
        if count < 0:
            row = first_row
        else:
            if s[5] != 0:
                s = play(s, PASS_MOVE)
            boards_out[row, 0], boards_out[row, 1] = s[0], s[1]
            game_out[row], black_out[row] = game, s[4] == BLACK
            row += 1
        played[game] = count
    return row, played


def expert_lines(folder: Path, plies: int) -> list[tuple[str, ...]]:
    """The first `plies` moves (fewer in a shorter game) of every expert game in
    `folder`, in the game's notation: where an opening book starts (`scripts/book`)."""
    moves, _, _ = read_games(folder)
    names = {code: notation.format_move(8 * (code // 10 - 1) + code % 10 - 1)
             for code in range(11, 89) if 1 <= code % 10 <= 8}
    return [tuple(names.get(int(code), "?") for code in game[:plies] if code) for game in moves]


def expert_positions(folder: Path, limit: int | None = None) -> tuple[dict[str, np.ndarray], str]:
    """Every position of the expert games in `folder` (the first `limit` games), as
    {boards (N, BOARDS), theory, real}: the margins for the side to move of its game's
    theoretical and real final scores; with a line that says what was read. Games that
    replay illegally or stop before move THEORY_MOVES (whose theoretical score is of no
    position they reach) are left out."""
    moves, theoretical, real = read_games(folder)
    if limit:
        moves, theoretical, real = moves[:limit], theoretical[:limit], real[:limit]
    rows = moves.shape[0] * 61
    boards = np.zeros((rows, BOARDS), np.uint64)
    game, black = np.zeros(rows, np.int64), np.zeros(rows, np.bool_)
    count, played = replay_games(moves, boards, game, black)
    boards, game, black = boards[:count], game[:count], black[:count]
    legal = played >= 0
    full = played >= THEORY_MOVES
    keep = full[game]
    boards, game, black = boards[keep], game[keep], black[keep]
    sign = np.where(black, 1.0, -1.0)
    said = (f"{len(moves)} games read: {int((~legal).sum())} replay illegally, "
            f"{int((legal & ~full).sum())} stop before move {THEORY_MOVES}; {len(boards)} positions kept")
    return {"boards": boards, "theory": sign * (2.0 * theoretical[game] - 64.0),
            "real": sign * (2.0 * real[game] - 64.0)}, said


def empty_squares(boards: np.ndarray) -> np.ndarray:
    """The empty squares of each position (int8)."""
    occupied = boards[:, 0] | boards[:, 1]
    counts = np.zeros(len(boards), dtype=np.int8)
    for shift in range(64):
        counts += ((occupied >> np.uint64(shift)) & np.uint64(1)).astype(np.int8)
    return (64 - counts).astype(np.int8)


def state_of(row: np.ndarray) -> tuple:
    """The kernel state (`rules`) of the position `row`, the side to move playing black
    (the colour changes nothing a search or solve finds)."""
    return tuple(kind(value) for kind, value in zip(STATE_TYPES, make_state(np.uint64(row[0]), np.uint64(row[1]), 0)))


def row_of(s: tuple) -> tuple[int, ...]:
    """The row of the kernel state `s`."""
    return int(s[0]), int(s[1])


@kernel
def board_features(boards, indices, scalars, classic):
    """For each position boards[i]: the weight slots of its pattern instances into
    indices[i] (`patterns.instance_indices`), its scalar terms into scalars[i] (in
    `patterns.SCALARS` order), and the hand-set evaluation's value into classic[i]."""
    for i in range(boards.shape[0]):
        own, opp = boards[i, 0], boards[i, 1]
        patterns.instance_indices(own, opp, indices[i])
        own_moves = move_mask(own, opp)
        opp_moves = move_mask(opp, own)
        scalars[i, 0] = 1
        scalars[i, 1] = popcount(own_moves) - popcount(opp_moves)
        scalars[i, 2] = 1 if popcount(~(own | opp)) & 1 else -1
        classic[i] = evaluation.evaluate_boards(own, opp, own_moves, opp_moves)


@kernel
def leaf_pattern_sums(boards, incremental):
    """(checksum, leaves): the sum of the pattern sums (`patterns.pattern_sum`, each with
    its phase's weights) of every position two plies below each row of `boards`, and how
    many there are; with `incremental`, every leaf's instances are carried down from its
    row's (`patterns.accumulate`) by `patterns.accumulate_play`, as the search does, else
    read again from its boards. The two give the same checksum; `scripts/eval_speed`
    times them."""
    acc = np.zeros((3, patterns.ACCUMULATOR), dtype=np.uint16)
    first, second = np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64)
    checksum, leaves = np.int64(0), np.int64(0)
    for row in range(boards.shape[0]):
        s = make_state(boards[row, 0], boards[row, 1], BLACK)
        if incremental:
            patterns.accumulate(s, acc, 0)
        for i in range(legal_moves(s, first)):
            child = play(s, first[i])
            if incremental:
                patterns.accumulate_play(s, child, first[i], acc, 0, 1)
            for j in range(legal_moves(child, second)):
                leaf = play(child, second[j])
                w = patterns.WEIGHTS[patterns.PHASE_OF[popcount(~(leaf[0] | leaf[1]))]]
                if incremental:
                    patterns.accumulate_play(child, leaf, second[j], acc, 1, 2)
                    checksum += patterns.accumulated_sum(w, acc, 2)
                else:
                    checksum += patterns.pattern_sum(w, leaf[0], leaf[1])
                leaves += 1
    return checksum, leaves

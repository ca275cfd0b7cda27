"""Match results per bot: counts, score with a 95 % interval, Elo difference, places."""

from __future__ import annotations

import math
import statistics
from typing import Mapping, Sequence

import attrs

#: z for a two-sided 95 % interval.
Z95 = 1.959964


def wilson(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson interval of a success rate `score` over `games` trials (a draw counts
    as half a success, the usual approximation for game scores)."""
    if games == 0:
        return 0.0, 1.0
    centre = score + z * z / (2 * games)
    spread = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max((centre - spread) / scale, 0.0), min((centre + spread) / scale, 1.0)


def elo(score: float) -> float:
    """The Elo difference that expects `score`; infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@attrs.define
class BotResult:
    """One bot's tally over a match."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: places[k]: games finished in place k + 1 (three-player games).
    places: list[int] = attrs.Factory(lambda: [0, 0, 0])
    cg_scores: list[int] = attrs.Factory(list)
    #: Timeouts, invalid actions and ended output, as the referee saw them.
    faults: dict[str, int] = attrs.Factory(dict)
    move_ms: list[float] = attrs.Factory(list)
    #: Per game: 1 win, 0.5 draw, 0 loss (two players); the share of opponents
    #: outlasted (three players: 1 first, 0.5 second, 0 last).
    points: list[float] = attrs.Factory(list)

    @property
    def score(self) -> float:
        return statistics.fmean(self.points) if self.points else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.score, self.games)


def tally(records: Sequence[dict], names: Sequence[str]) -> dict[str, BotResult]:
    """Every bot's results over the game records, by bot name."""
    results = {name: BotResult(name) for name in names}
    for record in records:
        seats = record["seats"]
        ranks = record["result"]["ranks"]
        players = len(seats)
        for seat, name in enumerate(seats):
            result = results[name]
            result.games += 1
            rank = ranks[seat]
            result.places[rank - 1] += 1
            result.cg_scores.append(record["result"]["scores"][seat])
            tied = sum(1 for other in ranks if other == rank)
            if players == 2:
                if tied == 2:
                    result.draws += 1
                    result.points.append(0.5)
                elif rank == 1:
                    result.wins += 1
                    result.points.append(1.0)
                else:
                    result.losses += 1
                    result.points.append(0.0)
            else:
                # Opponents outlasted, ties counting half, over the opponents.
                beaten = sum(1 for other in ranks if other > rank) + 0.5 * (tied - 1)
                result.points.append(beaten / (players - 1))
                if rank == 1 and tied == 1:
                    result.wins += 1
                elif rank == 1:
                    result.draws += 1
                else:
                    result.losses += 1
        for move in record["moves"]:
            if "ms" in move:
                results[seats[move["player"]]].move_ms.append(move["ms"])
        for event in record["events"]:
            if event["event"] != "eliminated":
                faults = results[seats[event["player"]]].faults
                faults[event["event"]] = faults.get(event["event"], 0) + 1
    return results


def _percent(value: float) -> str:
    return f"{100 * value:5.1f}%"


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value) or 0:+d}"


def table(results: dict[str, BotResult], players: int) -> list[str]:
    """The results table as text lines."""
    lines = []
    if players == 2:
        lines.append(f"{'bot':<28} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6}"
                     f" {'score':>7} {'95% interval':>17} {'faults':>8} {'move ms':>15}")
    else:
        lines.append(f"{'bot':<28} {'games':>5} {'1st':>4} {'2nd':>4} {'3rd':>4} {'avg rank':>8}"
                     f" {'avg score':>9} {'score':>7} {'95% interval':>17} {'faults':>8} {'move ms':>15}")
    for result in results.values():
        low, high = result.interval()
        faults = sum(result.faults.values())
        timing = "-"
        if result.move_ms:
            ordered = sorted(result.move_ms)
            timing = f"{statistics.median(ordered):.0f} / {ordered[-1]:.0f}"
        name = result.name if len(result.name) <= 28 else result.name[:25] + "..."
        if players == 2:
            lines.append(f"{name:<28} {result.games:>5} {result.wins:>5} {result.draws:>5}"
                         f" {result.losses:>6} {_percent(result.score):>7}"
                         f" {_percent(low) + ' - ' + _percent(high):>17} {faults:>8} {timing:>15}")
        else:
            ranks = [place + 1 for place, count in enumerate(result.places) for _ in range(count)]
            avg_rank = statistics.fmean(ranks) if ranks else 0.0
            avg_score = statistics.fmean(result.cg_scores) if result.cg_scores else 0.0
            lines.append(f"{name:<28} {result.games:>5} {result.places[0]:>4} {result.places[1]:>4}"
                         f" {result.places[2]:>4} {avg_rank:>8.2f} {avg_score:>9.2f}"
                         f" {_percent(result.score):>7} {_percent(low) + ' - ' + _percent(high):>17}"
                         f" {faults:>8} {timing:>15}")
    lines.append("score: " + ("wins plus half the draws, per game" if players == 2 else
                              "the share of opponents outlasted, per game")
                 + "; move ms: median / max response time; faults: timeouts, invalid"
                 " actions and ended output")
    if players == 2 and len(results) == 2:
        first, second = results.values()
        if first.games:
            low, high = first.interval()
            lines.append(f"Elo difference {first.name} - {second.name}: {_elo_text(elo(first.score))}"
                         f" (95% interval {_elo_text(elo(low))} to {_elo_text(elo(high))})")
    for result in results.values():
        if result.faults:
            lines.append(f"{result.name}: " + ", ".join(f"{count} {kind}"
                                                       for kind, count in sorted(result.faults.items())))
    return lines


def expected_score(elo_difference: float) -> float:
    """The score a player `elo_difference` stronger expects (the logistic Elo model)."""
    return 1 / (1 + 10 ** (-elo_difference / 400))


@attrs.frozen
class Sprt:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1 of
    the first bot against the rest, with error rates alpha (accepting H1 when H0 holds)
    and beta (the reverse).

    The log-likelihood ratio is the generalised SPRT's normal approximation over
    independent units: each unit the first bot's mean score over a group of games
    played from one start with the seats rotated (a game pair for two players: the
    pentanomial model), so that the variance comes from the data and the opening's
    own bias cancels within its pair. With few units the variance is taken with two
    extra units of 0 and 1, so that a run of equal results does not decide at once.
    """

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, words: Sequence[str]) -> "Sprt":
        """From `elo0=0 elo1=5 alpha=0.05 beta=0.05` (any order, any subset)."""
        values: dict[str, float] = {}
        for word in words:
            key, _, text = word.partition("=")
            if key not in ("elo0", "elo1", "alpha", "beta") or not text:
                raise ValueError(f"--sprt takes elo0=, elo1=, alpha= and beta=, not {word!r}")
            try:
                values[key] = float(text)
            except ValueError:
                raise ValueError(f"--sprt {key} needs a number, not {text!r}") from None
        sprt = cls(**values)
        if not (0 < sprt.alpha < 1 and 0 < sprt.beta < 1) or sprt.elo1 <= sprt.elo0:
            raise ValueError("--sprt needs 0 < alpha, beta < 1 and elo1 > elo0")
        return sprt

    @classmethod
    def option(cls, words: Sequence[str] | None, parser) -> "Sprt | None":
        """The test of a `--sprt` option (None without one); `parser.error` on a bad one."""
        if words is None:
            return None
        try:
            return cls.parse(words)
        except ValueError as error:
            parser.error(str(error))
            raise

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below the lower, H1 at or above the upper."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, units: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 after `units` (mean scores in [0, 1])."""
        count = len(units)
        if count == 0:
            return 0.0
        mean = statistics.fmean(units)
        spread = sum((unit - mean) ** 2 for unit in units) + (0 - mean) ** 2 + (1 - mean) ** 2
        variance = spread / (count + 2)
        low, high = expected_score(self.elo0), expected_score(self.elo1)
        return count * (high - low) * (2 * mean - low - high) / (2 * variance)

    def report(self, llr: float, name: str) -> str:
        """The test's state as one line, with its verdict on `name` (the first bot)."""
        lower, upper = self.bounds
        verdict = {"H1": f"H1 accepted: {name} is at least {self.elo1:g} Elo stronger",
                   "H0": f"H0 accepted: {name} is not {self.elo1:g} Elo stronger (at most {self.elo0:g})",
                   None: "undecided: the game limit came first"}[self.decision(llr)]
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}: "
                f"LLR {llr:+.2f}, bounds [{lower:+.2f}, {upper:+.2f}]; {verdict}")

    def decision(self, llr: float) -> str | None:
        """`H1` (the first bot is elo1 stronger), `H0` (not elo1 stronger), or None."""
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


def group_units(points: Mapping[int, float], group: int) -> list[float]:
    """The mean of `points` (one player's, by game index) per complete group of `group`
    games (games `group * k` to `group * k + group - 1` share a start and rotate the
    seats): the units of `Sprt.llr`."""
    groups: dict[int, list[float]] = {}
    for index, value in points.items():
        groups.setdefault(index // group, []).append(value)
    return [statistics.fmean(values) for _, values in sorted(groups.items()) if len(values) == group]


def sprt_units(records: Sequence[dict], name: str, group: int) -> list[float]:
    """`name`'s `group_units` over arena game records."""
    return group_units({record["index"]: tally([record], record["seats"])[name].points[0]
                        for record in records}, group)

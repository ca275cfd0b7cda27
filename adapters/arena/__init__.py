"""A local CodinGame arena (`engine-arena`): it referees bots that speak the CodinGame turn
protocol with the engine's own rules, the referees' exact turn input and output parsing,
and their time limits, plays matches in parallel (`adapters.pool`), tallies them, and
writes replay pages (`adapters.view.replay`). Self-play (`engine-selfplay`) plays engine
configurations against each other through the protocol, for tuning and books."""

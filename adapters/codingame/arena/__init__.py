"""A local CodinGame arena: it referees bots that speak the CodinGame turn protocol with
the engine's own rules, the referees' exact turn input and output parsing, and their
time limits, plays matches in parallel, tallies them, and draws replay pages."""

"""Clients of the engine daemon that play on other sites' terms (adapters/codingame)."""

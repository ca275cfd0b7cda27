"""The engine daemon process."""

"""The engine's line protocol: pure parsing of command lines into frozen values,
formatting of replies, the option table, and an asyncio client. No I/O of its own
besides the client, no threads, no searching."""

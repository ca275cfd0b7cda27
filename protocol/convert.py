"""The one cattrs converter of the protocol: it builds command values from the
key/value pairs the parser collects and refuses keys a command does not have."""

from __future__ import annotations

import cattrs

converter = cattrs.Converter(forbid_extra_keys=True)

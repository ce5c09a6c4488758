"""The mid end's refusal: a construct the BMv2 back end cannot represent."""
from __future__ import annotations

from typing import Optional

from ..diagnostics import Pos


class Unsupported(Exception):
    """Raised inside a pass to refuse a construct; the pass reports it with its position."""

    def __init__(self, pos: Optional[Pos], message: str):
        super().__init__(message)
        self.pos = pos

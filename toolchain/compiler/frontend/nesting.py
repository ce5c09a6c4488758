"""LimitNesting: a syntax tree at most MAX_DEPTH levels deep (deep.py).

The parser refuses the nesting it recurses on; trees it builds in a loop can be deeper: a
chain of operators `a + b + ... + z` is one level per operator, and so are chains of
members, indices and calls. Every later pass recurses over the tree, so the depth is checked
here, without recursion, and a deeper program is refused at the construct that goes past the
limit.
"""
from __future__ import annotations

from ..deep import MAX_DEPTH, too_deep
from . import ast as A


def first_too_deep(root: A.Node, limit: int = MAX_DEPTH):
    """The first node (in source order) more than `limit` levels below `root`, or None."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        depth += 1
        stack.extend((child, depth) for child in reversed(A.children(node)))
    return None


class LimitNesting:
    name = "LimitNesting"

    def run(self, ctx) -> None:
        node = first_too_deep(ctx.program)
        if node is not None:
            ctx.diags.error(node.pos, too_deep())

"""Room for deep programs.

The passes recurse over the syntax tree, and a program can make it deep without being
unusual: a left-deep chain of thousands of operators (`a + a + ... + a`) is a tree thousands
of levels deep. Such programs compile. The compilation runs on a thread of its own whose C
stack is large enough for RECURSION_LIMIT Python frames, with the interpreter's recursion
limit raised to that many while it runs: CPython's default limit, 1000 frames, protects the
default thread stack, and raising it on that stack could crash the interpreter instead of
raising RecursionError.

Nesting deeper than MAX_DEPTH levels is refused where it is, before any pass recurses into it:
by the parser for the nesting it recurses on (parentheses, prefix operators, casts, blocks,
type arguments) and by the LimitNesting pass for the trees built in a loop (operator chains,
member and index chains). A RecursionError that still happens (a deep type made of many
declarations, say) becomes a compile error at the innermost source position being worked on.
"""
from __future__ import annotations

import sys
import threading
from typing import Optional

from .diagnostics import CompileError, Pos

# levels of syntax a program may nest; p4c's bison parser stops at the same depth
# (YYMAXDEPTH, 10000 stack entries)
MAX_DEPTH = 10_000
# Python frames a compilation may need: the deepest-recursing shapes, nested parentheses and
# blocks, take about 5 a level (measured; tests/toolchain/compiler/test_deep.py compiles each
# shape nested just under MAX_DEPTH), so this leaves room for four times that
RECURSION_LIMIT = 20 * MAX_DEPTH
# bytes of C stack for the compiling thread: room for RECURSION_LIMIT frames even where
# Python code is called through C (comparisons, copies), at well over 1 KiB a frame; only
# the pages a compilation touches are ever allocated
STACK_SIZE = 512 * 1024 * 1024
# the recursion limit where no such thread can be had: what the default 8 MiB stack holds
# with room to spare where C code recurses (a comparison of deep trees)
FALLBACK_LIMIT = 10_000

_state = threading.local()           # .deep: this thread already runs with the deep stack
_one_at_a_time = threading.Lock()    # the recursion limit is the interpreter's, not a thread's


def too_deep(limit: int = MAX_DEPTH) -> str:
    return (f"nested too deeply: more than {limit} levels of expressions, statements or "
            f"types inside each other")


def run_deep(fn, *args, **kwargs):
    """fn(*args, **kwargs) on a thread with a deep stack and a raised recursion limit (or
    directly when already on one); its result, or the exception it raised."""
    if getattr(_state, "deep", False):
        return _guarded(fn, *args, **kwargs)
    outcome: dict = {}

    def target() -> None:
        _state.deep = True
        try:
            outcome["value"] = _guarded(fn, *args, **kwargs)
        except BaseException as e:        # handed to the caller's thread, raised there
            outcome["error"] = e

    with _one_at_a_time:
        saved = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(max(saved, RECURSION_LIMIT))
            worker = _start_deep_thread(target)
            if worker is None:
                # no thread with such a stack here (a memory ulimit, say): the caller's
                # stack, with the limit its frames have room for
                sys.setrecursionlimit(max(saved, FALLBACK_LIMIT))
                return _guarded(fn, *args, **kwargs)
            worker.join()
        finally:
            sys.setrecursionlimit(saved)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _start_deep_thread(target):
    """A started thread with STACK_SIZE bytes of stack running target, or None when the
    system gives none. (The size applies to threads started while it is set.)"""
    try:
        previous = threading.stack_size(STACK_SIZE)
    except (ValueError, RuntimeError):
        return None
    try:
        worker = threading.Thread(target=target, name="rdtcp-p4c", daemon=True)
        worker.start()
        return worker
    except RuntimeError:                  # "can't start new thread"
        return None
    finally:
        threading.stack_size(previous)


def _guarded(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except RecursionError as e:
        raise CompileError.at(innermost_position(e.__traceback__), too_deep()) from None


def innermost_position(tb) -> Optional[Pos]:
    """The source position of the innermost frame of `tb` working on a node that has one."""
    best = None
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            pos = getattr(value, "pos", None)
            if isinstance(pos, Pos) and pos.line > 0:
                best = pos
                break
        tb = tb.tb_next
    return best

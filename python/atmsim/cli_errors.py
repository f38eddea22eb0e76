"""How the `atmsim` command fails: every failure is one line on stderr.

Exit codes (README.md, docs/scenarios.md): 0 success, 2 invalid input, 1 anything
else. Every invalid input (a ScenarioError from the core, an unknown built-in,
bad `--set` syntax, an unknown paper or figure, a click usage error, an output
folder that cannot be written or is in use) prints exactly one line
"atmsim: error: <key>: <problem>": no traceback and no usage block, so scripts
can show the line to a user as is. Any other failure says why on one line too
and exits 1: results that could not be written (OutputError: a full disk), a
closed stdout pipe, memory that ran out, or "internal error: <type>: <message>" for a bug
(ATMSIM_DEBUG=1 shows its traceback). Ctrl-C and SIGTERM: "interrupted", 130.
"""
from __future__ import annotations

import contextlib
import errno
import os
import sys

import click

from atmsim import ScenarioError
from atmsim.errors import InputError, OutputError


def fail(msg: str, code: int = 2):
    click.echo(f"atmsim: error: {' '.join(str(msg).split())}", err=True)
    sys.exit(code)


def usage_line(e: click.UsageError) -> str:
    """A click usage error as 'key: problem' on one line (no usage block)."""
    if isinstance(e, click.MissingParameter) and e.param is not None:
        kind = e.param_type or ("argument" if isinstance(e.param, click.Argument) else "option")
        name = e.param.human_readable_name if isinstance(e.param, click.Argument) else e.param.opts[0]
        return f"{name}: missing {kind}"
    if isinstance(e, click.NoSuchOption):
        if (of_a_run := _run_option(e)) is not None:
            return of_a_run
        hint = f" (did you mean {', '.join(e.possibilities)}?)" if e.possibilities else ""
        return f"{e.option_name}: no such option{hint}"
    if isinstance(e, click.BadOptionUsage):
        return f"{e.option_name}: {e.message}"
    if isinstance(e, click.BadParameter):
        hint = e.param_hint
        if hint is None and e.param is not None:
            hint = e.param.opts[0] if isinstance(e.param, click.Option) else e.param.human_readable_name
        if isinstance(hint, (list, tuple)):
            hint = hint[0]
        return f"{str(hint or 'argument').strip(chr(39) + chr(34))}: {e.message}"
    msg = e.format_message()
    if msg.startswith("No such command"):
        return f"command: {msg[0].lower()}{msg[1:]}"
    return f"usage: {msg}"


#: Commands that read a scenario alone, and the commands whose options they are asked for in vain.
SCENARIO_ONLY = ("show", "validate")
RUNNING = ("run", "sweep")


def _run_option(e: click.NoSuchOption):
    """`atmsim show X --pcap DIR`: an option of `run` (or `sweep`) given to a command that reads the
    scenario alone. "no such option" left a user to guess whether show had forgotten it; one line says
    it is not part of the scenario, so show's output never holds it (docs/scenarios.md)."""
    ctx = e.ctx
    if ctx is None or ctx.parent is None or ctx.command.name not in SCENARIO_ONLY:
        return None
    group = ctx.parent.command
    owners = [n for n in RUNNING if n in getattr(group, "commands", {})
              and any(e.option_name in p.opts + p.secondary_opts for p in group.commands[n].params)]
    if not owners:
        return None
    seed = " (the scenario's own seed is --set seed=N)" if e.option_name == "--seed" else ""
    return (f"{e.option_name}: an option of atmsim {' and '.join(owners)}, not part of the scenario: "
            f"atmsim {ctx.command.name} takes the scenario and --set alone{seed}")


class _Interrupted(Exception):
    """Ctrl-C or SIGTERM inside a command (click would print a blank line for a KeyboardInterrupt)."""


class _BrokenPipe(Exception):
    """An EPIPE inside a command (click would exit 1 without a word)."""


def _stdout_is_broken() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on it)."""
    import select

    try:
        p = select.poll()
        p.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in p.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


class Group(click.Group):
    """Turns every input error into one stderr line and exit code 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None
        except OSError as e:
            if e.errno == errno.EPIPE:
                raise _BrokenPipe(str(e)) from e
            raise

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        import signal

        from atmsim.console import plain_where_needed

        plain_where_needed()

        # SIGTERM ends a run like Ctrl-C: staging folders removed, exit 130.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        if sys.stdout is None:
            # Started with stdout closed: Python has no stdout and click would print nothing
            # and exit 0, as if the results had been shown.
            fail("stdout is closed: nowhere to print the results (redirect it to a file or /dev/null)", 1)
        try:
            rv = super().main(*args, **kwargs)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt, _Interrupted):
            interrupted()
        except click.UsageError as e:
            fail(usage_line(e))
        except (ScenarioError, InputError) as e:
            fail(str(e))
        except OutputError as e:
            fail(str(e), 1)
        except (BrokenPipeError, _BrokenPipe) as e:
            if not _stdout_is_broken():
                internal_error(e.__cause__ or e)  # a pipe of our own (a worker's), not stdout
            # The reader of stdout went away: say so where it may still be seen, and keep Python
            # from complaining again when it flushes stdout at exit.
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            fail("stdout: broken pipe (the program reading the output closed it)", 1)
        except MemoryError:
            # At a memory limit (a container's, `ulimit -v`): what ran out, in one line, not a bug's.
            fail("out of memory: the run and its results do not fit in the memory this process may use "
                 "(shorten the duration, run without traces, or lower trace.port_rows)", 1)
        except OSError as e:
            # A path the user gave that cannot be read or written.
            where = f"{e.filename}: " if e.filename else ""
            fail(f"{where}{e.strerror or e}")
        except Exception as e:  # noqa: BLE001 - a bug: one line that says so, not a bare exit 1
            internal_error(e)
        except BaseException as e:
            if type(e).__name__ != "PanicException":  # pyo3's, for a panic in the core: a bug too
                raise
            internal_error(e)
        sys.exit(rv if isinstance(rv, int) else 0)


def interrupted():
    """Ctrl-C or SIGTERM: one line, exit 130. (Every core run, captured or not, polls the signal
    handlers about ten times a second and stops with their exception; so does a validation, every
    20 ms and between its phases, its half-built model freed on a thread of its own.)"""
    fail("interrupted", 130)


def internal_error(e: BaseException):
    """An exception no input explains: a bug. One line naming it (exit 1); ATMSIM_DEBUG=1 re-raises it
    for the traceback."""
    if os.environ.get("ATMSIM_DEBUG"):
        raise e
    fail(f"internal error: {type(e).__name__}: {' '.join(str(e).split()) or '(no message)'} "
         "(a bug: please report it with the command; ATMSIM_DEBUG=1 shows the traceback)", 1)

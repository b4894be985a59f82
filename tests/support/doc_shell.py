"""The shell blocks of the docs as sessions: their commands run in one bash process per page,
their output compared with what each command printed."""

import contextlib
import dataclasses
import doctest
import os
import secrets
import selectors
import signal
import subprocess
import time

from harness.processes import ROOT

# Each command's bound: a `flask` command imports the app in about a second, on a loaded machine
# several.
COMMAND_TIMEOUT = 30
CHECKER = doctest.OutputChecker()


@dataclasses.dataclass(frozen=True)
class Command:
    """One `$ ` command of a session (its continuation lines joined to it), and the output
    shown under it."""

    line: int
    source: str
    want: str


def _is_comment(line):
    return line == "#" or line.startswith("# ")


def _is_output(line):
    return bool(line.strip()) and not (line.startswith("$ ") or _is_comment(line))


def session(text):
    """The commands of a shell block written as a session.

    A line starting with `$ ` is a command, its lines ending in `\\` continued by the next; the
    lines under it up to a blank line, a `# ` comment or the next command are its output. Any
    other line is an error: a block that is not a session is written as prose instead.
    """
    commands, lines, number = [], text.splitlines(), 0
    while number < len(lines):
        line = lines[number]
        number += 1
        if not line.strip() or _is_comment(line):
            continue
        if not line.startswith("$ "):
            raise ValueError(f"line {number} of the block is no command, output or comment: {line}")
        start, source = number, [line[2:]]
        while source[-1].endswith("\\") and number < len(lines):
            source.append(lines[number])
            number += 1
        want = []
        while number < len(lines) and _is_output(lines[number]):
            want.append(lines[number] + "\n")
            number += 1
        commands.append(Command(start, "\n".join(source), "".join(want)))
    return commands


def matches(want, got):
    """Whether got is the output want shows, `...` standing for any text (doctest's ELLIPSIS)."""
    return CHECKER.check_output(want, got, doctest.ELLIPSIS)


def difference(command, got):
    """What a failing command printed beside what its block shows, as doctest words it."""
    example = doctest.Example(command.source, command.want)
    return CHECKER.output_difference(example, got, doctest.ELLIPSIS)


class Shell:
    """One bash process from the repository root, in which a page's commands run in order: a
    variable one sets (`TOKEN=$(...)`) or a `cd` holds for the next, as in a reader's terminal.

    Each command reads no standard input, its standard error goes with its output, and it has
    COMMAND_TIMEOUT seconds; past them the shell is killed, and every later command fails.
    """

    def __init__(self, env):
        self.marker = f"__end_of_command_{secrets.token_hex(8)}__".encode()
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.dead = None

    def run(self, source, timeout=COMMAND_TIMEOUT):
        """Run source; return what it printed, "\\r\\n" read as "\\n", ending in a newline."""
        if self.dead:
            raise RuntimeError(f"the page's shell was stopped: {self.dead}")
        # The newline before the marker ends output that has none (a `curl -s` body).
        script = f"{{\n{source}\n}} </dev/null\nprintf '\\n%s\\n' {self.marker.decode()}\n"
        self.process.stdin.write(script.encode())
        self.process.stdin.flush()
        output = self._read_until_marker(timeout, source)
        text = output.decode(errors="replace").replace("\r\n", "\n")
        return text if not text or text.endswith("\n") else text + "\n"

    def _read_until_marker(self, timeout, source):
        deadline = time.monotonic() + timeout
        ending = b"\n" + self.marker + b"\n"
        output = b""
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while ending not in output:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.close()
                    self.dead = f"{source!r} ran past {timeout} s"
                    raise TimeoutError(f"{self.dead}; it printed:\n{output.decode()}")
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    self.dead = "bash ended"
                    raise RuntimeError(f"bash ended during {source!r}:\n{output.decode()}")
                output += chunk
        return output[: output.index(ending)]

    def close(self):
        """Kill the shell and whatever it started."""
        if self.process.returncode is None:  # not reaped yet: its pid is still its group's
            # The whole group: a command may have left a process behind, even if bash ended.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process.stdin.close()
        self.process.stdout.close()

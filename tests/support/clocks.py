"""The LD_PRELOAD library that shifts a process's wall clock (clock_shift.c), built with the
machine's cc."""

import pathlib
import shutil
import subprocess

SOURCE = pathlib.Path(__file__).with_name("clock_shift.c")


def compiler():
    """The machine's C compiler; None if there is none (Debian package gcc)."""
    return shutil.which("cc") or shutil.which("gcc")


def build_clock_shift(folder):
    """Build clock_shift.c into folder; the library's path."""
    built = folder / "clock_shift.so"
    command = [compiler(), "-shared", "-fPIC", "-O2", "-o", built, SOURCE, "-ldl"]
    subprocess.run(command, check=True)
    return built

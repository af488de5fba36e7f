"""Output files: checked before any computation, written atomically.

Every command that writes a file calls :func:`check_output_path` first, so a
typo in ``-o`` is reported before a long run rather than after it, and then
writes with :func:`atomic_write_text` or :func:`atomic_write_bytes`: the data
goes to a temporary file in the same folder, which then replaces the target
in one step. A failed write (disk full, folder removed) leaves the previous
file untouched and no temporary file behind.

Example
-------
>>> path = check_output_path("front.png", "-o", kind="plot")   # doctest: +SKIP
>>> atomic_write_bytes(path, png_bytes)                          # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, Literal

from hybridsched.errors import InputError

#: File extensions every matplotlib writes; others are looked up in the installed one.
COMMON_PLOT_EXTENSIONS = ("pdf", "png", "svg")


@functools.cache
def plot_extensions() -> tuple[str, ...]:
    """Extensions the installed matplotlib can write (imported here, on first use only)."""
    from matplotlib.figure import Figure

    return tuple(sorted(Figure().canvas.get_supported_filetypes()))

OutputKind = Literal["file", "plot"]


def real_path(path: str | Path, where: str) -> Path:
    """``path`` with every symbolic link followed; a loop of links is one-line bad input.

    :meth:`pathlib.Path.resolve` raises ``RuntimeError`` on a loop (Python
    3.11), which is not an input error; :func:`os.path.realpath` stops at the
    loop, which ``stat`` then reports. ``where`` starts the message (the
    option and path, or the file).
    """
    resolved = os.path.realpath(path)
    try:
        os.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{where}: a loop of symbolic links") from None
    return Path(resolved)


def check_output_path(path: str | Path, option: str = "-o", *, kind: OutputKind = "file",
                      inputs: Iterable[str | Path] = (), allow_stdout: bool = False) -> Path:
    """Check that ``path`` can be written, before anything is computed.

    Parameters
    ----------
    path:
        The path given on the command line.
    option:
        The option that gave it (named in errors).
    kind:
        ``"plot"`` also requires an extension matplotlib can write
        (:func:`plot_extensions`).
    inputs:
        Input files of the command: writing over one of them is refused.
    allow_stdout:
        Accept ``-`` (standard output).

    Returns
    -------
    Path
        The path to write.

    Raises
    ------
    InputError
        One line naming the option and the path: empty path, an existing
        folder, a missing parent folder, a folder that cannot be written, a
        read-only file, an input file, or an unknown plot extension.
    """
    text = str(path)
    if not text.strip():
        raise InputError(f"{option}: empty file name")
    if text == "-":
        if allow_stdout:
            return Path("-")
        # Writers take "-" for standard output, which carries this command's own output.
        if kind == "plot":
            raise InputError(f"{option} -: a plot is drawn into a file; give a file name "
                             "with its format's extension (png, svg, pdf, ...)")
        raise InputError(f"{option} -: standard output shows this command's results; give "
                         "a file name (./- for a file named '-')")
    target = Path(text)
    where = f"{option} {text}"
    if target.is_dir():
        raise InputError(f"{where}: is a folder; give a file name inside it")
    if kind == "plot":
        extension = target.suffix.lower().lstrip(".")
        if extension not in COMMON_PLOT_EXTENSIONS and extension not in plot_extensions():
            found = f"'.{extension}'" if extension else "no extension"
            raise InputError(f"{where}: cannot draw a plot with {found} (use one of: "
                             f"{', '.join(plot_extensions())})")
    resolved = real_path(target, where)
    for item in inputs:
        if str(item) != "-" and Path(os.path.realpath(item)) == resolved:
            raise InputError(f"{where}: is an input file of this command; refusing to "
                             "overwrite it")
    folder = resolved.parent
    if not folder.exists():
        raise InputError(f"{where}: folder {target.parent} does not exist")
    if not folder.is_dir():
        raise InputError(f"{where}: {target.parent} is not a folder")
    if resolved.exists() and not _is_regular(resolved):
        return target  # a device or pipe (/dev/null, /dev/stdout): written in place
    if resolved.exists() and not os.access(resolved, os.W_OK):
        raise InputError(f"{where}: file is read-only")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".hybridsched-probe-")
    except OSError as exc:
        raise InputError(f"{where}: cannot write in folder {target.parent} "
                         f"({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return target


def check_output_folder(path: str | Path, option: str = "-o") -> Path:
    """Check that folder ``path`` exists or can be made, and can be written; make it.

    Missing parent folders are made too (like ``mkdir -p``). Raises a one-line
    :class:`InputError` naming the option when ``path`` is a file, or a
    folder that cannot be made or written.
    """
    text = str(path)
    if not text.strip():
        raise InputError(f"{option}: empty folder name")
    if text == "-":  # "-" means standard output to a user, never a folder named "-"
        raise InputError(f"{option} -: give a folder name (./- for a folder named '-')")
    target = Path(text)
    where = f"{option} {text}"
    real_path(target, where)
    if target.exists() and not target.is_dir():
        raise InputError(f"{where}: is a file, not a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=target, prefix=".hybridsched-probe-")
    except OSError as exc:
        raise InputError(f"{where}: cannot write in this folder ({exc.strerror or exc})"
                         ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return target


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_all(handle: BinaryIO, data: bytes) -> None:
    """Write and flush ``data`` to disk (one place, so tests can simulate a full disk)."""
    handle.write(data)
    handle.flush()
    os.fsync(handle.fileno())


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (temporary file, then rename).

    A symbolic link is followed (its target is replaced); an existing
    device or pipe (``/dev/null``) is written in place. The file keeps the
    permissions of the file it replaces (new files: ``0666`` minus the umask).

    Raises
    ------
    InputError
        One line naming ``path`` when the write fails; the previous file, if
        any, is left as it was.
    """
    target = Path(path)
    try:
        if target.exists() and not _is_regular(target):
            with open(target, "wb") as handle:
                handle.write(data)
            return
        target = real_path(target, str(path))
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _new_file_mode()
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".tmp")
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write ({exc.strerror or exc}); "
                             "the previous file, if any, is unchanged") from None
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))

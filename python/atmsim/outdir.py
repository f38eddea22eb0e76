"""The output-folder contract of `run --out/--pcap`, `sweep` and `reproduce`.

A command's result is either complete in the folder the user named, or absent
with one line saying why; it is never mixed with an older run's files and
never left in a staging folder. How:

- Checked before any simulation (`OutDir.__enter__`): the folder is made if
  needed (mode 0777 less the umask, as `mkdir` makes it), a symbolic-link
  loop, a dangling link, a file in the way or a folder that cannot be written
  (read-only, no permission: a probe file is made and removed) is refused as
  an InputError naming the path (exit 2).
- Locked while the command runs: `fcntl.flock` on DIR/.atmsim.lock; a second
  command into the same folder is refused at once (InputError). The lock file
  is removed when the command ends.
- Written into a staging folder INSIDE the target, DIR/.atmsim-staging-<pid>,
  so moving the files into place is a rename within one folder of one file
  system (never "Invalid cross-device link", even when DIR is a mount point),
  and nothing of the user's is copied. On any failure the staging folder is
  removed; an OSError while writing (a full disk) becomes an OutputError
  naming the file (exit 1).
- A manifest, DIR/.atmsim-manifest.json, lists the files the last command
  wrote. The next command that replaces (run, sweep, pcap) removes the files
  of the earlier one that it does not rewrite; a reproduction merges (its
  figures and claims accumulate), so it keeps them. Files the manifest does not
  name (the user's) are never touched. While files are being moved into place
  the manifest says `"complete": false`, and `atmsim.read` refuses the folder.

The run cache (DIR/runs/) is written directly, outside the staging folder: it
is what lets an interrupted sweep or reproduction resume.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from pathlib import Path

from atmsim.errors import InputError, OutputError

LOCK = ".atmsim.lock"
MANIFEST = ".atmsim-manifest.json"
STAGING = ".atmsim-staging-"


def _why(e: OSError) -> str:
    return e.strerror or " ".join(str(e).split())


def manifest(directory) -> dict:
    """The manifest of a folder atmsim wrote ({} if none or unreadable)."""
    try:
        m = json.loads((Path(directory) / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(m, dict) or not isinstance(m.get("files"), list):
        return {}
    return m


def _write_manifest(target: Path, command: str, files, complete: bool) -> None:
    tmp = target / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"command": command, "complete": complete, "files": sorted(set(files))}, indent=1) + "\n")
    os.replace(tmp, target / MANIFEST)


def _safe_rel(rel: str) -> bool:
    """A manifest entry that names a file inside the folder (not ../x, not /x)."""
    p = Path(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts


class OutDir:
    """One output folder for one command: `with OutDir(path, "--out", "run") as o:`
    checks and locks it (before the simulation), `with o.stage() as d:` yields
    the staging folder to write into and moves its files into place when the
    block ends without an exception.

    merge=True keeps the files of an earlier command (a reproduction adds
    figures to a folder); `o.seed("claims.json")` copies such a file into the
    staging folder for a writer that merges into it.
    """

    def __init__(self, path, option: str = "--out", command: str = "run", merge: bool = False):
        self.target = Path(path)
        self.option, self.command, self.merge = option, command, merge
        self.created = False
        self._lock_fd = None
        self.staging = None

    # ----------------------------------------------------------------- check and lock

    def _refuse(self, problem: str):
        raise InputError(f"{self.option}: {self.target}: {problem}")

    def _check_and_make(self) -> None:
        t = self.target
        try:
            os.stat(t)
            exists = True
        except FileNotFoundError:
            if os.path.lexists(t):
                self._refuse("is a symbolic link to nothing (a dangling link)")
            exists = False
        except OSError as e:
            if e.errno == errno.ELOOP:
                self._refuse("is a symbolic link loop")
            self._refuse(f"cannot be used ({_why(e)})")
        if exists and not t.is_dir():
            self._refuse("exists and is not a directory")
        if not exists:
            for p in t.parents:
                if os.path.lexists(p):
                    if not p.is_dir():
                        raise InputError(f"{self.option}: {p} exists and is not a directory")
                    break
            try:
                t.mkdir(parents=True)  # mode 0o777 less the umask, parents too
            except FileExistsError:
                pass  # made meanwhile by someone else: it is checked below as an existing folder
            except OSError as e:
                self._refuse(f"cannot be made ({_why(e)})")
            else:
                self.created = True
        # Writable? A probe file says so even where permission bits do not (root on a read-only mount).
        probe = t / f".atmsim-probe-{os.getpid()}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            self._discard_created()
            self._refuse(f"cannot be written ({_why(e)})")

    def _lock(self) -> None:
        import fcntl

        path = self.target / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                holder = ""  # the holder may not have written its pid yet (an empty file)
                with contextlib.suppress(OSError, ValueError, IndexError):
                    holder = f" (pid {int(path.read_text().split()[0])})"
                self._discard_created()
                self._refuse(f"is in use by another atmsim command{holder}; wait for it or choose another folder")
            # The file may have been removed by the holder that just let go: lock the one on disk.
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.target / LOCK)  # before letting go: a waiter re-checks the inode
        os.close(self._lock_fd)
        self._lock_fd = None

    def _remove_stale_staging(self) -> None:
        """Staging folders of a command that was killed (SIGKILL, power cut): with
        the lock held, no other atmsim command is writing here."""
        for d in self.target.glob(f"{STAGING}*"):
            if d.is_dir() and not d.is_symlink():
                shutil.rmtree(d, ignore_errors=True)

    def _discard_created(self) -> None:
        """Removes the folder this command made, if it holds nothing but atmsim's own files."""
        if not self.created:
            return
        try:
            names = set(os.listdir(self.target))
        except OSError:
            return
        if names <= {LOCK, MANIFEST}:
            shutil.rmtree(self.target, ignore_errors=True)
            self.created = False

    def __enter__(self) -> "OutDir":
        self._check_and_make()
        self._lock()
        self._remove_stale_staging()
        return self

    def __exit__(self, kind, value, tb) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if kind is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.target / LOCK)
            self._discard_created()
        self._unlock()

    # ----------------------------------------------------------------- staging and commit

    def seed(self, rel) -> None:
        """Copies DIR/rel, if it is a regular file, into the staging folder (for a writer that merges into it)."""
        src = self.target / rel
        if src.is_file() and not src.is_symlink():
            dst = self.staging / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)

    @contextlib.contextmanager
    def stage(self):
        """Yields the staging folder; its files land in the target when the block ends without an exception."""
        assert self._lock_fd is not None, "stage() inside `with OutDir(...)`"
        self.staging = self.target / f"{STAGING}{os.getpid()}"
        shutil.rmtree(self.staging, ignore_errors=True)
        try:
            self.staging.mkdir()
            yield self.staging
            self._commit()
        except OSError as e:
            raise OutputError(self._write_error(e)) from None
        finally:
            if self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
                self.staging = None

    def _write_error(self, e: OSError) -> str:
        where = e.filename
        if not where and self.staging is not None:
            # A failed write() names no file: the one being written is the newest in the staging folder.
            with contextlib.suppress(OSError, ValueError):
                where = str(max((p for p in self.staging.rglob("*") if p.is_file()), key=lambda p: p.stat().st_mtime_ns))
        if where and self.staging is not None:
            with contextlib.suppress(ValueError):
                where = str(self.target / Path(where).relative_to(self.staging))
        return f"{self.option}: cannot write {where or self.target}: {_why(e)}; nothing was written"

    def _commit(self) -> None:
        st, t = self.staging, self.target
        new = sorted(p.relative_to(st).as_posix() for p in st.rglob("*") if not p.is_dir())
        before = manifest(t)
        old = [f for f in before.get("files", []) if isinstance(f, str) and _safe_rel(f)]
        for rel in new:
            dst = t / rel
            if dst.is_dir() and not dst.is_symlink():
                raise OutputError(f"{self.option}: cannot write {dst}: a folder of that name is in the way; "
                                  "nothing was written")
        keep_old = self.merge and before.get("command") == self.command
        _write_manifest(t, self.command, [*old, *new], complete=False)
        for rel in new:
            dst = t / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(st / rel, dst)
        for rel in [] if keep_old else sorted(set(old) - set(new)):
            self._remove_owned(rel)
        owned = [f for f in old if (t / f).is_file()] if keep_old else []
        _write_manifest(t, self.command, [*owned, *new], complete=True)

    def _remove_owned(self, rel: str) -> None:
        """Removes a file an earlier atmsim command wrote, and its folders if that leaves them empty."""
        p = self.target / rel
        if p.is_file() or p.is_symlink():
            p.unlink()
        for parent in Path(rel).parents:
            if parent == Path("."):
                break
            try:
                (self.target / parent).rmdir()
            except OSError:
                break  # not empty: the user's files, or other results

    def own(self, paths) -> None:
        """Adds files written into the target after the commit (the HTML report) to the manifest."""
        own_files(self.target, paths)


def own_files(directory, paths) -> None:
    """Adds files a later command wrote into an atmsim folder (`plot`'s run.png) to its manifest, so
    the next run into the folder replaces them; a folder without a manifest is left as it is."""
    d = Path(directory)
    m = manifest(d)
    if not m:
        return
    rel = [Path(p).resolve().relative_to(d.resolve()).as_posix() for p in paths]
    _write_manifest(d, m.get("command", "run"), [*m["files"], *rel], m.get("complete", True))

"""The output-folder contract of `run --out/--pcap`, `sweep`, `reproduce`, `report` and `plot`.

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
- A manifest, DIR/.atmsim-manifest.json, lists per command (`run`, which
  `--pcap` is part of, `sweep`, `reproduce`, which `report` writes for) the
  files that command wrote. A command OWNS only the files listed under its
  own name, and:
  * never overwrites a file it does not own: a file (or link, FIFO, folder)
    already at a name it is about to write, not listed under its name — the
    user's, or another command's — is refused as an InputError naming it
    (exit 2), before the run for the names a command knows in advance
    (`writes=`), else when its results would be moved into place, and then
    nothing is written;
  * never deletes a file it does not own: `run` and `sweep` replace their own
    earlier results (removing those they do not rewrite), a reproduction
    merges (its figures and claims accumulate), and the files of another
    command, or the user's, are left as they are.
  While files are being moved into place the manifest says `"complete":
  false`, and `atmsim.read` refuses the folder.

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


#: The command a manifest written before owners were kept per command named for `--pcap`: part of `run`.
_LEGACY_COMMANDS = {"pcap": "run"}


def manifest(directory) -> dict:
    """The manifest of a folder atmsim wrote, as {"complete": bool, "commands": {command: [files]}}
    ({} if none or unreadable; entries that leave the folder, ../x or /x, are dropped). A manifest
    of an earlier atmsim ({"command": c, "files": [...]}) reads as c owning those files."""
    try:
        m = json.loads((Path(directory) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(m, dict):
        return {}
    commands = m.get("commands")
    if not isinstance(commands, dict):
        if not isinstance(m.get("files"), list):
            return {}
        command = m.get("command") if isinstance(m.get("command"), str) else "run"
        commands = {_LEGACY_COMMANDS.get(command, command): m["files"]}
    owned = {c: sorted({f for f in files if isinstance(f, str) and _safe_rel(f)})
             for c, files in commands.items() if isinstance(c, str) and isinstance(files, list)}
    return {"complete": m.get("complete", True), "commands": owned}


def owner(m: dict, rel: str):
    """The command a manifest says wrote `rel`, or None (the user's file)."""
    return next((c for c, files in m.get("commands", {}).items() if rel in files), None)


def _write_manifest(target: Path, commands: dict, complete: bool) -> None:
    tmp = target / f".{MANIFEST}.{os.getpid()}.tmp"
    owned = {c: sorted(set(files)) for c, files in sorted(commands.items()) if files}
    tmp.write_text(json.dumps({"complete": complete, "commands": owned}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, target / MANIFEST)


def _safe_rel(rel: str) -> bool:
    """A manifest entry that names a file inside the folder (not ../x, not /x)."""
    p = Path(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts


def refuse_foreign(directory, command: str, rels, option: str):
    """Refuses (InputError, one line naming it) the first of `rels` (paths relative to `directory`)
    that exists there and is not a file `command` wrote: writing it would overwrite the user's file
    or another command's result."""
    d = Path(directory)
    for rel in rels:
        rel = Path(rel).as_posix()
        if not os.path.lexists(d / rel):
            continue
        # The manifest of the innermost folder that has one: `reproduce PAPER --out DIR/PAPER`
        # keeps its own, which `report DIR` must read for the pages it rebuilds there.
        parts = rel.split("/")
        home, inner = d, rel
        for i in range(len(parts) - 1, 0, -1):
            if (d.joinpath(*parts[:i]) / MANIFEST).is_file():
                home, inner = d.joinpath(*parts[:i]), "/".join(parts[i:])
                break
        m = manifest(home)
        if inner in set(m.get("commands", {}).get(command, [])):
            continue
        other = owner(m, inner)
        whose = f"written by `atmsim {other}`" if other else f"not written by atmsim (not in {MANIFEST})"
        raise InputError(f"{option}: {d / rel} exists, {whose}, and is not this command's to overwrite: "
                         "move it away or choose another folder")


class OutDir:
    """One output folder for one command: `with OutDir(path, "--out", "run") as o:`
    checks and locks it (before the simulation), `with o.stage() as d:` yields
    the staging folder to write into and moves its files into place when the
    block ends without an exception.

    merge=True keeps the files of an earlier command (a reproduction adds
    figures to a folder); `o.seed("claims.json")` copies such a file into the
    staging folder for a writer that merges into it. `writes` names the files
    (relative to the folder) the command knows it will write: one that is
    there and not the command's own is refused before the run, not after it.
    """

    def __init__(self, path, option: str = "--out", command: str = "run", merge: bool = False, writes=()):
        self.target = Path(path)
        self.option, self.command, self.merge = option, command, merge
        self.writes = list(writes)
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
                    holder = f" (pid {int(path.read_text(encoding='utf-8').split()[0])})"
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
        try:
            refuse_foreign(self.target, self.command, self.writes, self.option)
        except InputError:
            self.__exit__(InputError, None, None)
            raise
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
        """Copies DIR/rel, if it is a regular file this command wrote, into the staging folder (for a
        writer that merges into it); a file of the same name that is not the command's own is refused
        when the results are moved into place."""
        src = self.target / rel
        mine = Path(rel).as_posix() in manifest(self.target).get("commands", {}).get(self.command, [])
        if mine and src.is_file() and not src.is_symlink():
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
        refuse_foreign(t, self.command, new, self.option)  # before anything moves: nothing is written
        commands = manifest(t).get("commands", {})
        old = commands.get(self.command, [])
        for rel in new:
            dst = t / rel
            if dst.is_dir() and not dst.is_symlink():
                raise OutputError(f"{self.option}: cannot write {dst}: a folder of that name is in the way; "
                                  "nothing was written")
        _write_manifest(t, {**commands, self.command: [*old, *new]}, complete=False)
        for rel in new:
            dst = t / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(st / rel, dst)
        if self.merge:  # a reproduction accumulates its own figures
            kept = [f for f in old if (t / f).is_file()]
        else:  # run and sweep replace their own earlier results; nobody else's
            kept = []
            for rel in sorted(set(old) - set(new)):
                self._remove_owned(rel)
        _write_manifest(t, {**commands, self.command: [*kept, *new]}, complete=True)

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

    def write_after(self, pages: dict) -> None:
        """Writes files into the target after the commit (the HTML report, which reads the committed
        results): {path: text}, each refused if it is not this command's own, then owned."""
        write_owned(self.target, self.command, self.option, pages)


def write_owned(directory, command: str, option: str, pages: dict) -> None:
    """Writes {path: text} into an output folder as `command` (each file atomically: a temporary
    file renamed into place) after checking that none of them is a file it does not own, and adds
    them to the folder's manifest (made if there is none)."""
    d = Path(directory)
    rels = [_rel(d, p) for p in pages]
    refuse_foreign(d, command, rels, option)
    for rel, text in zip(rels, pages.values()):
        tmp = d / Path(rel).with_name(f".{Path(rel).name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, d / rel)
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise OutputError(f"{option}: cannot write {d / rel}: {_why(e)}") from None
    own_files(d, command, [d / r for r in rels])


def _rel(directory: Path, path) -> str:
    """`path` relative to `directory`, its last part not followed: a link of the user's at the name
    is the name, not where it points."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(directory))).as_posix()


def own_files(directory, command: str, paths) -> None:
    """Adds files a command wrote into a folder outside a staging folder (`plot`'s run.png, the HTML
    report) to the folder's manifest under `command`, made if there is none, so that the command
    may rewrite them and the next `run` into the folder replaces them."""
    d = Path(directory)
    m = manifest(d)
    commands = m.get("commands", {})
    rel = [_rel(d, p) for p in paths]
    _write_manifest(d, {**commands, command: [*commands.get(command, []), *rel]}, m.get("complete", True))

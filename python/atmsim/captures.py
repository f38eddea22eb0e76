"""Packet captures of one run (`atmsim.run(capture=...)`, `atmsim run --pcap DIR`; docs/captures.md).

The core writes the pcap files as the run goes, through a fixed buffer per file, so a capture's
memory does not grow with the run (a 60 s run of jain96-5src: 1.26 GB resident when the files were
built in memory at the end, 77 MB written as it goes; 28 MB without captures). They are written into a hidden folder inside
the target and renamed into place when the run ends; a run that does not end (an invalid key found
late, a full disk, Ctrl-C) leaves nothing: no half-written file, and a file already there is
replaced only by a complete one.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from . import _core

#: The hidden folder a run's pcap files are written into before they are renamed into place.
STAGING_PREFIX = ".atmsim-capture-"


def run_into(directory, text: str, sets: list, seed, trace: bool, progress):
    """Runs with captures written into `directory` (made if missing): (summary JSON, traces, {name: Path})."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=target))
    try:
        try:
            summary_json, traces, names = _core.run_capture(text, str(staging), sets, seed, trace, progress)
        except OSError as e:
            # Named as the file it was to become, not the hidden one.
            if e.filename and Path(e.filename).parent == staging:
                raise OSError(e.errno, e.strerror, str(target / Path(e.filename).name)) from None
            raise
        files = {}
        for name in names:
            os.replace(staging / name, target / name)
            files[name] = target / name
        return summary_json, traces, files
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def run_in_memory(text: str, sets: list, seed, trace: bool, progress):
    """Runs with captures read back as bytes (held in memory up to `capture.max_bytes`): (summary JSON, traces,
    {name: bytes})."""
    with tempfile.TemporaryDirectory(prefix=STAGING_PREFIX) as d:
        summary_json, traces, files = run_into(d, text, sets, seed, trace, progress)
        return summary_json, traces, {name: path.read_bytes() for name, path in files.items()}


def write(files: dict, directory) -> list:
    """Writes captures (bytes, or files written by `run_into`) into `directory`; returns their paths."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in files.items():
        if isinstance(data, Path):
            if data.resolve() != (d / name).resolve():
                shutil.copyfile(data, d / name)
        else:
            (d / name).write_bytes(data)
        paths.append(d / name)
    return paths

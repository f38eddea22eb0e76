"""Result tables on disk: every table atmsim writes (a reproduction's points
and runs, a sweep's runs/flows/points, a run's ports and traces) goes out as csv and,
beside it, as Parquet (pyarrow) carrying the atmsim version and the hash of
the compiled core as file metadata; `read(DIR)` loads them back.
"""
from __future__ import annotations

from pathlib import Path

PARQUET_META = ("atmsim_version", "atmsim_core")


def write(df, path: Path, formats=("csv", "parquet")) -> None:
    """`path`.csv and `path`.parquet of the DataFrame `df` (`path` without suffix), or the one of
    them `formats` names."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from atmsim import version
    from atmsim.runner import core_fingerprint

    path = Path(path)
    if "csv" in formats:
        df.to_csv(path.with_suffix(".csv"), index=False)
    if "parquet" not in formats:
        return
    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        # A column mixing types (numbers and words): as text, as in the csv.
        mixed = {c: df[c].astype(str) for c in df.columns if df[c].dtype == object}
        table = pa.Table.from_pandas(df.assign(**mixed), preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta.update({b"atmsim_version": version().encode(), b"atmsim_core": core_fingerprint().encode()})
    # Through a Python file: pyarrow encodes a path as UTF-8 and refuses a name the system accepts
    # but UTF-8 does not spell (issue 38, rule 5).
    with open(path.with_suffix(".parquet"), "wb") as f:
        pq.write_table(table.replace_schema_metadata(meta), f)


def ports_frame(summary: dict):
    """A run's ports as a flat table, one row per port: every field of the summary's `ports[]` (the
    occupancy percentiles too, with `occupancy.percentiles`), `drops_by_reason` as a column
    `dropped_REASON` per reason (a nested map is no Parquet column)."""
    import pandas as pd

    rows = [{**{k: v for k, v in p.items() if k != "drops_by_reason"},
             **{f"dropped_{r}": n for r, n in p["drops_by_reason"].items()}} for p in summary["ports"]]
    return pd.DataFrame(rows)


def metadata(path: Path) -> dict:
    """The atmsim metadata of a Parquet table written by `write`."""
    import pyarrow.parquet as pq

    with open(path, "rb") as f:
        meta = pq.read_schema(f).metadata or {}
    return {k: meta[k.encode()].decode() for k in PARQUET_META if k.encode() in meta}


def read(directory) -> dict:
    """Every table of a sweep, a run or a reproduction in `directory`, as
    DataFrames keyed by name (`fig3`, `fig3_runs`, `points`, `trace_window`;
    after `reproduce all`, `PAPER/fig3`). Parquet where present, else csv."""
    import pandas as pd

    from atmsim.errors import InputError
    from atmsim.outdir import manifest

    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"directory: {root} is not a directory")
    if manifest(root).get("complete") is False:
        raise InputError(f"{root}: an atmsim command stopped while moving its results into place "
                         "(old and new files may be mixed); run it again")
    out = {}
    for f in sorted(root.rglob("*.csv")) + sorted(root.rglob("*.parquet")):
        rel = f.relative_to(root)
        if rel.parts[0] == "runs" or any(p.startswith(".") for p in rel.parts):
            continue  # the run cache and staging folders
        key = rel.with_suffix("").as_posix()
        if f.suffix == ".parquet":
            out[key] = _read_one(pd.read_parquet, f)
        elif key not in out and not f.with_suffix(".parquet").exists():
            out[key] = _read_one(pd.read_csv, f)
    return out


def _read_one(reader, path: Path):
    """reader(path), or InputError naming the file it cannot read (a damaged Parquet file raises
    pyarrow's ArrowInvalid, a damaged csv pandas' ParserError)."""
    import pyarrow as pa

    from atmsim.errors import InputError

    try:
        with open(path, "rb") as f:  # a file, not a name: see `write`
            return reader(f)
    except (pa.ArrowException, OSError, ValueError, UnicodeDecodeError) as e:
        why = " ".join(str(e).split()) or type(e).__name__
        raise InputError(f"{path}: cannot read this table ({type(e).__name__}: {why})") from None

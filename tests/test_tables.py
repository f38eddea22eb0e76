"""Tables as Parquet beside csv, with atmsim's version and core hash, read back by atmsim.read."""
import pandas as pd

import atmsim
from atmsim import tables
from atmsim.runner import core_fingerprint


def test_sweep_tables_round_trip_with_metadata(cli, tmp_path):
    out = tmp_path / "sw"
    cli("sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,96KB", "--set", "duration=0.5s",
        "--seeds", "1,2", "--out", str(out), check=True)
    got = atmsim.read(out)
    assert {"runs", "flows", "points"} <= set(got)
    for name in ("runs", "flows", "points"):
        # Same values: the Parquet table written out as csv is the csv file.
        assert got[name].to_csv(index=False) == (out / f"{name}.csv").read_text(encoding="utf-8")
        assert tables.metadata(out / f"{name}.parquet") == {"atmsim_version": atmsim.version(),
                                                             "atmsim_core": core_fingerprint()}
    assert list(got["points"]["switch.buffer"]) == ["48KB", "96KB"], "the varied key is a column"


def test_reproduction_tables_read_back(cli, tmp_path):
    out = tmp_path / "mk"
    cli("reproduce", "morris-kung95", "--quick", "--figure", "fig6", "--out", str(out), check=True)
    got = atmsim.read(out)
    assert "fig6" in got and len(got["fig6"]) > 0
    assert not any(k.startswith("runs") for k in got), "the run cache is not a table"


def test_mixed_columns_still_write(tmp_path):
    df = pd.DataFrame({"a": [1, "x"], "b": [0.5, 1.5]})
    tables.write(df, tmp_path / "t")
    assert list(pd.read_parquet(tmp_path / "t.parquet")["a"]) == ["1", "x"]


def test_read_names_a_damaged_table_in_its_own_error(tmp_path):
    # pyarrow's ArrowInvalid came through atmsim.read as it was, naming no file.
    import pytest

    from atmsim.errors import InputError

    tables.write(pd.DataFrame({"a": [1, 2]}), tmp_path / "good")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 but not really")
    with pytest.raises(InputError, match=rf"^{tmp_path}/bad.parquet: cannot read this table \(ArrowInvalid: "):
        atmsim.read(tmp_path)
    (tmp_path / "bad.parquet").unlink()
    (tmp_path / "torn.csv").write_bytes(b'a,b\n1,"2\n')
    with pytest.raises(InputError, match=rf"^{tmp_path}/torn.csv: cannot read this table \(ParserError: "):
        atmsim.read(tmp_path)

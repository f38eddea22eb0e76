"""Issue 38, rule 1, for [credit]: with credit flow control off its keys configure nothing, and
`credit.transport = "out-of-band"` (the core golden's "oob" variation of morris-kung95-a) ran exactly as
without it. A [credit] key off its default with credit off is refused, exit 2, one line naming the key, in a
user's file and with --set, from the command line and the API; the morris-kung95 scenarios, which restate
the defaults so that the reproduction's `--set credit.enabled=true` finds them, still validate, and so do
the reproduction's own overrides."""
import pytest

import atmsim
from atmsim.reproduce.morris_kung95 import credit_overrides
from atmsim.toml import tomllib

OFF_DEFAULT = {"n2": "20", "n3": "50", "switch_delay": '"2us"', "host_delay": '"0us"', "transport": '"out-of-band"'}


def _with_credit_key(text, key, value):
    """The scenario with `key = value` written into its [credit] section."""
    head, tail = text.split("[credit]\n", 1)
    return f"{head}[credit]\n{key} = {value}\n" + "\n".join(
        line for line in tail.split("\n") if not line.startswith(f"{key} ="))


@pytest.mark.parametrize("key", sorted(OFF_DEFAULT))
def test_a_users_file_with_credit_off_and_a_credit_key_set_is_refused(cli, tmp_path, key):
    text = _with_credit_key(atmsim.load_scenario("morris-kung95-a"), key, OFF_DEFAULT[key])
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    for command in ("validate", "run", "show"):
        p = cli(command, str(path))
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stderr.startswith(f"atmsim: error: credit.{key}: does nothing here: credit flow control is off"), \
            p.stderr
    with pytest.raises(atmsim.ScenarioError, match=rf"^credit.{key}: does nothing here"):
        atmsim.resolve(text, [])
    # The same file with credit on takes the key.
    atmsim.resolve(text, ["credit.enabled=true"])


@pytest.mark.parametrize("scenario", ["morris-kung95-a", "morris-kung95-b"])
def test_the_built_ins_restate_defaults_and_the_reproductions_overrides_take_effect(cli, scenario):
    assert cli("validate", scenario).returncode == 0
    p = cli("validate", scenario, "--set", "credit.transport=out-of-band")
    assert p.returncode == 2 and p.stderr.startswith("atmsim: error: credit.transport: does nothing here"), p.stderr
    on = tomllib.loads(atmsim.resolve(scenario, [*credit_overrides(), "credit.n2=5", "credit.n3=20"]))["credit"]
    assert on["enabled"] and (on["n2"], on["n3"]) == (5, 20)

"""The `atmsim` command's entry point ([project.scripts] in pyproject.toml).

The runner's workers are spawned, and a spawned process re-imports the
parent's main script: for the `atmsim` command that is the console script,
whose one import is this module. So it imports nothing at top level (beyond
the package, which is the core), and the CLI with click is imported only when
the command runs, in the parent.
"""


def main():
    from atmsim.cli import main as cli_main

    return cli_main()

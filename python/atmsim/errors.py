"""atmsim's own errors, each one line for the CLI (the core's invalid input is `ScenarioError`)."""


class InputError(ValueError):
    """Invalid input found by the Python layer: one line, 'key: problem'; the CLI prints it and exits 2.
    Also what `atmsim.read` raises for a file it cannot read (the line names the file)."""


class OutputError(RuntimeError):
    """Results could not be written (a full disk, a folder in the way): one line naming the path; the CLI
    prints it and exits 1. Nothing was written: the staging folder is removed."""

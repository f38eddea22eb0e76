"""Invalid input found by the Python layer (the core's is `ScenarioError`)."""


class InputError(ValueError):
    """One line, 'key: problem'; the CLI prints it and exits 2."""

"""`python -m atmsim`: the `atmsim` command (spawned workers do not re-import a package's __main__)."""
from atmsim._entry import main

if __name__ == "__main__":
    main()

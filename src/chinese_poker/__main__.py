"""``python -m chinese_poker``: the ``chinese-poker`` command."""

from chinese_poker.cli import entry

if __name__ == "__main__":
    entry()

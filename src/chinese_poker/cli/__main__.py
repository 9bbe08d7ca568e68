"""``python -m chinese_poker.cli``: the ``chinese-poker`` command."""

from chinese_poker.cli import entry

if __name__ == "__main__":
    entry()

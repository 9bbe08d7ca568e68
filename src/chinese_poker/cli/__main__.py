from chinese_poker.cli import entry

entry()

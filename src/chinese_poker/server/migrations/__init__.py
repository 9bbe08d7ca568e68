"""The Alembic environment of the server's database, shipped inside the package.

:meth:`chinese_poker.server.db.Store.migrate` runs ``upgrade head`` programmatically at
startup; ``env.py`` uses the connection it passes in ``config.attributes``.
"""

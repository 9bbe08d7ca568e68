"""Alembic revision scripts of the server database."""

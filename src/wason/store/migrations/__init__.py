"""Alembic migrations of the store's schema, run by `wason.store.schema` whenever a store is opened.

There is no ``alembic.ini``: `wason.store.schema` builds the Alembic configuration in code, points it at this
directory and hands ``env.py`` the connection to migrate, so nothing is read from the working directory.

To change the schema: add ``versions/NNNN_what.py`` (copy the newest one; ``revision`` is the next number and
``down_revision`` the previous), change the tables in `wason.store.db` to match, and set
`wason.store.db.SCHEMA_VERSION` to the new revision. ``tests/store/test_migrations.py`` checks that the
migrated schema equals the tables in `wason.store.db`. A revision, once released, is never edited: users' stores
were built by it.
"""


class MigrationRefused(RuntimeError):
    """A revision found data it cannot carry forward; the message says what, and the store is left as it was."""

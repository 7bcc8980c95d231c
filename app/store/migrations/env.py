"""Alembic environment: FactDesk always passes an open connection in ``config.attributes``."""

from alembic import context

from app.store.schema import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,  # SQLite cannot ALTER most things; batch mode rebuilds tables.
)
with context.begin_transaction():
    context.run_migrations()

"""MariaDB/MySQL cannot roll back DDL: a migration that fails half-way keeps the tables,
columns and indexes it made while alembic_version stays behind, and running it again failed
for ever on "already exists". There each of these steps is taken as done when what it makes is
already there (and a drop as done when it is gone), so a migration runs again to its end.
Statements a migration writes out itself (`op.execute`) see to that themselves."""

from __future__ import annotations

from typing import Any

from alembic.ddl.mysql import MariaDBImpl, MySQLImpl
from sqlalchemy import Column, Index, Table, inspect


class _ReRunnable(MySQLImpl):
    """Registered for the dialect by being defined (alembic's impl registry)."""

    def add_column(self, table_name: str, column: Column[Any], **kw: Any) -> None:
        if not self._has_column(table_name, column.name, kw.get("schema")):
            super().add_column(table_name, column, **kw)

    def drop_column(self, table_name: str, column: Column[Any], **kw: Any) -> None:
        if self._has_column(table_name, column.name, kw.get("schema")):
            super().drop_column(table_name, column, **kw)

    def create_table(self, table: Table, **kw: Any) -> None:
        if not inspect(self.connection).has_table(table.name, schema=table.schema):
            super().create_table(table, **kw)
            return
        for index in table.indexes:  # made with the table, or after it
            self.create_index(index)

    def drop_table(self, table: Table, **kw: Any) -> None:
        if inspect(self.connection).has_table(table.name, schema=table.schema):
            super().drop_table(table, **kw)

    def create_index(self, index: Index, **kw: Any) -> None:
        if not self._has_index(index):
            super().create_index(index, **kw)

    def drop_index(self, index: Index, **kw: Any) -> None:
        if self._has_index(index):
            super().drop_index(index, **kw)

    def _has_column(self, table: str, name: str, schema: str | None) -> bool:
        columns = inspect(self.connection).get_columns(table, schema=schema)
        return any(column["name"].lower() == name.lower() for column in columns)

    def _has_index(self, index: Index) -> bool:
        table = index.table
        if table is None or not inspect(self.connection).has_table(table.name, table.schema):
            return False
        found = inspect(self.connection).get_indexes(table.name, schema=table.schema)
        return any(str(i["name"]).lower() == str(index.name).lower() for i in found)


class ReRunnableMySQLImpl(_ReRunnable):
    __dialect__ = "mysql"


class ReRunnableMariaDBImpl(_ReRunnable, MariaDBImpl):
    __dialect__ = "mariadb"

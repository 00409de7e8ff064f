"""Alembic revisions, one file each, applied in order; never edit one that has shipped."""

"""The team's shared store: PostgreSQL, reached with psycopg (the optional ``team`` extra)."""

"""Development plumbing: the embedded PostgreSQL and the database-less settings backend."""

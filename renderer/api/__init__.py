"""The HTTP API of the workflow engine, served under /api/workflow."""

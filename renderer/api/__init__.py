"""The workflow engine's HTTP API under ``/api/workflow``: settings and authorization."""

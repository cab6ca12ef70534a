"""The workflow service over HTTP: authorization, settings, endpoints, metrics."""

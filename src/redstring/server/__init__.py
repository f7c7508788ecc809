"""The HTTP API (`redstring serve`): FastAPI over `redstring.application`."""

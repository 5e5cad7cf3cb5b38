"""Slash-command cogs: thin layers that parse, acknowledge, call a service and reply."""

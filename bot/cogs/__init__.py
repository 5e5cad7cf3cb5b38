"""Slash-command cogs and event listeners: thin layers that parse, acknowledge, call a service
and reply (a listener passes its event on to a service or the flow)."""

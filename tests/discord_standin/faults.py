"""Discord having a bad day: rate limits (429 with ``retry_after``) and outages (5xx) on REST.

Answers are shaped as Discord documents them (https://discord.com/developers/docs/topics/
rate-limits): a 429 carries the JSON body ``{"message", "retry_after", "global"}`` and the
``Retry-After`` and ``X-RateLimit-*`` headers; an outage answers a JSON 5xx.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

Matcher = Callable[[str, str], bool]
"""Which requests a fault hits: called with the method and the path after ``/api/v10``."""

_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


@dataclass
class RestFault:
    """One fault window: until ``until`` (``time.monotonic``) or for ``remaining`` requests."""

    status: int
    until: float | None
    remaining: int | None
    matching: Matcher | None
    retry_after: float = 0.0
    is_global: bool = False
    hits: int = 0
    landed: bool = False
    """Whether the request takes effect before the error is answered (a gateway timing out
    after Discord's origin did the work): a client that tries again may do it twice."""
    code: int = 0
    """Discord's JSON error code in the body (10062, "Unknown interaction", for an interaction
    answered too late)."""

    def applies(self, method: str, path: str, now: float) -> bool:
        """Whether this request falls in the window (and uses up one of a counted fault)."""
        if self.until is not None and now >= self.until:
            return False
        if self.remaining is not None and self.remaining <= 0:
            return False
        if self.matching is not None and not self.matching(method, path):
            return False
        if self.remaining is not None:
            self.remaining -= 1
        self.hits += 1
        return True

    def response(self) -> web.Response:
        """Discord's answer for this fault."""
        if self.status == 429:
            body = {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
            }
            headers = {
                "Content-Type": "application/json",
                "Retry-After": str(max(1, math.ceil(self.retry_after))),
                "Via": "1.1 google",  # Discord answers through Cloudflare; discord.py checks
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + self.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": "standin-bucket",
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            return web.Response(status=429, body=json.dumps(body).encode(), headers=headers)
        reason = _REASONS.get(self.status, "Server Error")
        body = {"message": f"{self.status}: {reason}", "code": self.code}
        return web.Response(
            status=self.status,
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )


class RestFaults:
    """The fault windows in force; the REST middleware asks :meth:`answer` for each request."""

    def __init__(self) -> None:
        self.windows: list[RestFault] = []

    def add(self, fault: RestFault) -> RestFault:
        """Put ``fault`` in force."""
        self.windows.append(fault)
        return fault

    def clear(self) -> None:
        """End every fault window now."""
        self.windows.clear()

    def find(self, method: str, path: str) -> RestFault | None:
        """The fault whose window this request falls in, if any."""
        now = time.monotonic()
        for fault in self.windows:
            if fault.applies(method, path, now):
                return fault
        return None

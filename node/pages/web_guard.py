"""The local pages (the home and each table) answer only this machine's browser: an ASGI
wrapper refuses with 403 a request whose Host is not 127.0.0.1:PORT or localhost:PORT (a
DNS-rebinding page names its own host) and a WebSocket whose Origin is another site
(cross-site WebSocket hijacking). The per-page token is checked by the routes themselves."""

from __future__ import annotations

from typing import Any


def _allowed(scope: dict[str, Any]) -> bool:
    server = scope.get("server") or (None, None)
    hosts = {f"127.0.0.1:{server[1]}", f"localhost:{server[1]}"}
    headers = dict(scope.get("headers") or [])
    if headers.get(b"host", b"").decode("latin-1").lower() not in hosts:
        return False
    origin = headers.get(b"origin")
    return origin is None or origin.decode("latin-1").lower() in {f"http://{h}" for h in hosts}


class LocalOnly:
    """Wraps an ASGI app; see the module's docstring."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not _allowed(scope):
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": b"forbidden: not this machine's own page\n"})
            return
        if scope["type"] == "websocket" and not _allowed(scope):
            await receive()                            # websocket.connect
            await send({"type": "websocket.close", "code": 4403})     # before accept: HTTP 403
            return
        await self.app(scope, receive, send)

"""ASGI entry point: Django for HTTP, Channels for the live-metrics websockets."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from foundation.startup import exit_unless_reachable  # noqa: E402
from runs.routing import websocket_urlpatterns  # noqa: E402

# The server exits, naming the variable, when its database, broker or channel layer cannot be
# reached: before it listens, not at its first request (foundation.startup).
exit_unless_reachable("web")

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

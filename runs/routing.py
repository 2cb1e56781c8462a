from django.urls import path

from runs.consumers import RunLiveConsumer

websocket_urlpatterns = [path("ws/runs/<int:run_id>/", RunLiveConsumer.as_asgi())]

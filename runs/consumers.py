"""Websocket relay of a run's live metrics: join the run's group, forward its messages.

The message text is encoded once by the sender (`runs.broadcasts.notify_*`), so each viewer
costs a socket write, not a database query or a JSON encoding. While the channel layer is
in-process, the viewer also has this process tail the database for the messages other
processes (a Celery worker, a script) wrote for the run (`runs.live`).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from runs import live
from runs.models import Run
from runs.services import check_can_see_run


class RunLiveConsumer(AsyncWebsocketConsumer):
    group_name: str | None = None
    tailed_run: int | None = None

    async def connect(self):
        run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        if not await database_sync_to_async(_can_see)(self.scope["user"], run_id):
            # Accept, then close with 4404: a refused handshake would reach the page as a
            # bare network error, and the page would keep reconnecting.
            await self.accept()
            await self.close(code=4404)
            return
        self.group_name = live.run_group(run_id)
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        if live.through_database(self.channel_layer):
            await live.watch(run_id)
            self.tailed_run = run_id
        await self.accept()

    async def disconnect(self, code):
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)
        if self.tailed_run is not None:
            live.unwatch(self.tailed_run)
            self.tailed_run = None

    async def live_message(self, event):
        await self.send(text_data=event["text"])


def _can_see(user, run_id: int) -> bool:
    try:
        check_can_see_run(user, run_id)
    except Run.DoesNotExist:
        return False
    return True

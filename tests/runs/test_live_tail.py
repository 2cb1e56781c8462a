"""The database relay of the in-process channel layer (runs/live.py): what another process
left in the table reaches this process's viewers once, what this process sent itself is not
sent again, nothing from before the first viewer is replayed, and the table stays small.

The rows "another process" writes are made here with a foreign origin. The layer is the
in-process one in both passes (on PostgreSQL too, where ids may commit out of order).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from runs import broadcasts, live, services
from runs.models import LiveMessage
from tests.runs.test_live_websocket import communicator

pytestmark = pytest.mark.django_db(transaction=True)

RECEIVE_S = 2.0  # a relayed row arrives within POLL_S (0.2 s); headroom for a loaded box


@pytest.fixture(autouse=True)
def in_process_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@sync_to_async
def left_by_another_process(run_id: int, step: int, **fields) -> dict:
    message = {"type": "metrics", "series": {"k": {"steps": [step], "values": [1.0]}}}
    LiveMessage.objects.create(
        run_id=run_id,
        origin="another-process:1",
        text=json.dumps(message),
        created_at=timezone.now(),
        **fields,
    )
    return message


async def receive(viewer) -> dict:
    return json.loads(await viewer.receive_from(timeout=RECEIVE_S))


async def test_a_message_another_process_left_reaches_every_viewer_once(alice, alice_run):
    viewers = [communicator(alice, alice_run.pk) for _ in range(2)]
    for viewer in viewers:
        assert (await viewer.connect())[0]
    sent = await left_by_another_process(alice_run.pk, 1)
    closing = await left_by_another_process(alice_run.pk, 2)
    for viewer in viewers:
        assert [await receive(viewer), await receive(viewer)] == [sent, closing]
        assert await viewer.receive_nothing(timeout=3 * live.POLL_S)
        await viewer.disconnect()


async def test_what_this_process_sent_itself_is_not_relayed_again(alice, alice_run):
    viewer = communicator(alice, alice_run.pk)
    await viewer.connect()
    points = {"points": [{"step": 7, "key": "k", "value": 0.5}]}
    await sync_to_async(services.do_ingest_metrics)(alice_run.pk, points)
    assert (await receive(viewer))["series"]["k"]["steps"] == [7]  # sent directly
    assert await sync_to_async(LiveMessage.objects.filter(origin=live.origin()).count)() == 1
    # the next thing the viewer gets is another process's message, not step 7 again
    later = await left_by_another_process(alice_run.pk, 8)
    assert await receive(viewer) == later
    await viewer.disconnect()


async def test_messages_from_before_the_first_viewer_are_not_replayed(alice, alice_run):
    await left_by_another_process(alice_run.pk, 1)  # in the page's first read already
    viewer = communicator(alice, alice_run.pk)
    await viewer.connect()
    later = await left_by_another_process(alice_run.pk, 2)
    assert await receive(viewer) == later
    await viewer.disconnect()


async def test_a_row_numbered_before_one_already_relayed_is_still_relayed(alice, alice_run):
    """PostgreSQL numbers rows when they are inserted, not when they commit: a transaction
    that took id 100 may commit after the one that took 101."""
    viewer = communicator(alice, alice_run.pk)
    await viewer.connect()
    first = await left_by_another_process(alice_run.pk, 2, id=101)
    assert await receive(viewer) == first
    late = await left_by_another_process(alice_run.pk, 1, id=100)
    assert await receive(viewer) == late
    await viewer.disconnect()


def test_the_writers_delete_messages_past_their_retention(alice_run):
    old = timezone.now() - timedelta(seconds=live.RETENTION_S + 1)
    LiveMessage.objects.create(run=alice_run, origin="gone:1", text="{}", created_at=old)
    broadcasts.notify_run_status(alice_run.pk, "running")
    assert list(LiveMessage.objects.values_list("origin", flat=True)) == [live.origin()]

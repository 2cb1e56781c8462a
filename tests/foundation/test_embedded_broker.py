"""The embedded broker (filesystem://) hands a consumer whole messages only: a worker that
polls while a message is being written finds nothing yet, not an empty file that stops it
(kombu's own transport: "Unrecoverable error: JSONDecodeError", kombu issue #1551)."""

from __future__ import annotations

import json
import threading
from queue import Empty

import pytest
from django.conf import settings
from kombu import Connection
from kombu.transport import filesystem as kombu_filesystem

from foundation import broker

TRANSPORTS = {
    "ours": ("foundation.broker:Transport", broker),
    # kombu's, to show the test catches the race (it is expected to fail there)
    "kombu's": ("kombu.transport.filesystem:Transport", kombu_filesystem),
}


def channel_on(tmp_path, transport: str):
    folders = {name: tmp_path / name for name in ("queue", "control", "processed")}
    for folder in folders.values():
        folder.mkdir()
    connection = Connection(
        "filesystem://",
        transport=transport,
        transport_options={
            "data_folder_in": str(folders["queue"]),
            "data_folder_out": str(folders["queue"]),
            "control_folder": str(folders["control"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
        },
    )
    return connection, connection.channel()


RACE = pytest.mark.xfail(strict=True, raises=json.JSONDecodeError)


@pytest.mark.parametrize("which", ["ours", pytest.param("kombu's", marks=RACE)])
def test_a_message_being_written_is_not_read_until_it_is_whole(tmp_path, monkeypatch, which):
    transport, module = TRANSPORTS[which]
    connection, channel = channel_on(tmp_path, transport)
    writing, release = threading.Event(), threading.Event()
    serialize = module.dumps

    def slow_dumps(payload):  # the writer is held while it serializes the message
        writing.set()
        assert release.wait(10)
        return serialize(payload)

    monkeypatch.setattr(module, "dumps", slow_dumps)
    message = {"body": "x" * 100_000, "properties": {"delivery_tag": "1"}}
    writer = threading.Thread(target=channel._put, args=("timing", message))
    writer.start()
    try:
        assert writing.wait(10)
        with pytest.raises(Empty):  # nothing to take yet (kombu's: a JSON error)
            channel._get("timing")
        assert channel._size("timing") == 0
    finally:
        release.set()
        writer.join()
    assert channel._size("timing") == 1
    assert channel._get("timing") == message
    with pytest.raises(Empty):
        channel._get("timing")
    connection.release()


def test_messages_come_out_whole_and_in_the_order_sent(tmp_path):
    connection, channel = channel_on(tmp_path, "foundation.broker:Transport")
    for index in range(20):
        channel._put("gpu", {"body": str(index)})
    assert [channel._get("gpu")["body"] for _ in range(20)] == [str(i) for i in range(20)]
    assert not list((tmp_path / "queue").iterdir())  # no partial file left behind
    connection.release()


def test_the_embedded_default_uses_it():
    from codeopt_site.celery import app

    assert settings.CELERY_BROKER_URL.startswith("filesystem") == (
        app.connection_for_write().get_transport_cls() is broker.Transport
    )

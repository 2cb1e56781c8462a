"""The embedded broker (CELERY_BROKER_URL=filesystem://, the default): kombu's filesystem
transport, with a message that appears in its queue folder only once it is whole.

kombu's `_put` creates the message file under its final name and then writes it, while
`_get` takes whatever file has that name without waiting for the writer's lock: a worker
that polls in between reads an empty (or cut) message, and kombu's JSON error stops the
worker ("Unrecoverable error: JSONDecodeError", kombu issue #1551). It happened in our suite
to a task sent again by its own worker. Here the message is written under a name no queue
matches (a leading dot: `_get`, `_size` and `_purge` match "<...>.<queue>.msg" after the
first dot) and renamed into place, which is atomic within the folder.

`transport_for(url)` says which transport a broker URL takes: the settings
(CELERY_BROKER_TRANSPORT, what the workers use) and /healthz's queue depths both ask it, so
the two cannot differ.
"""

from __future__ import annotations

import os
import time
import uuid

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

EMBEDDED = "foundation.broker:Transport"


def transport_for(url: str) -> str | None:
    """The transport class for a broker URL: this module's for filesystem://, None (kombu's
    own for the URL's scheme) for any other."""
    return EMBEDDED if url.startswith("filesystem") else None


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put `payload` on `queue`: serialized first, written to a hidden file, renamed to
        the name kombu's consumers read. The name starts with the send time in nanoseconds,
        zero-padded, so the folder's sorted order (the order `_get` takes) is the send order;
        kombu's unpadded milliseconds left messages sent within one millisecond in random
        order, and sorted 10,000,000 ms before 9,999,999."""
        data = str_to_bytes(dumps(payload))
        key = uuid.uuid4()
        folder = self.data_folder_out
        final = os.path.join(folder, f"{time.monotonic_ns():020d}_{key}.{queue}.msg")
        partial = os.path.join(folder, f".{key}.partial")
        try:
            with open(partial, "wb") as handle:
                handle.write(data)
            os.replace(partial, final)
        except OSError as exc:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

"""A process of its own that writes a run's metrics and status through the services, as a
Celery worker's trainer does (training/sink.py): not the web server, so what it
broadcasts must find its way to the server's viewers.

    python -m tests.live_writer RUN_ID

reads one JSON command a line from stdin, {"points": [...]} (runs.services.do_ingest_metrics)
or {"status": "finished"} (do_set_run_status), and prints "ok" once each is committed.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")
    import django

    django.setup()
    from runs import services
    from runs.models import Run

    run_id = int(sys.argv[1])
    print("ready", flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        if "points" in command:
            services.do_ingest_metrics(run_id, command)
        else:
            services.do_set_run_status(Run.objects.get(pk=run_id), command["status"])
        print("ok", flush=True)


if __name__ == "__main__":
    main()

"""Several hosts on this machine: two web processes and two or three timing hosts, sharing
only PostgreSQL and the broker, each reaching both through a fault proxy this harness owns.

    with Cluster(timing_hosts=2) as cluster:
        cluster.web_urls                      # ["http://127.0.0.1:PORT", ...]
        cluster.hosts[0].kill()               # SIGKILL the whole host (its process group)
        cluster.hosts[1].broker.cut()         # one host loses the broker...
        cluster.cut("database")               # ...or every process loses the database
        cluster.restore()

    python scripts/cluster.py up --timing-hosts 2     # runs until Ctrl-C, then stops it all

What it starts (docs/operations.md, "The tested topology"):

1. a PostgreSQL database of its own, `codeopt_cluster_<random>`, migrated, dropped at the end;
2. per process (each web process and each timing host) a FaultProxy (scripts/faultproxy.py)
   to PostgreSQL and one to the broker, so a fault hits one host or, through the cluster's
   `cut`/`drop`/`delay`/`restore`, all of them;
3. two web processes: daphne `codeopt_site.asgi:application` on free ports, one Redis
   channel layer (database `channel_db`, a channel prefix of its own);
4. timing hosts: `celery -A codeopt_site worker -Q timing`, prefork, one pool process per
   core of the host's own core set (`taskset` and CODEOPT_PIN_CORES=1), `-n timing-<x>@<tag>`,
   their own environment, CODEOPT_VAR_DIR and TMPDIR under the host's own folder.

What each role needs on its own disk (nothing else is shared through this machine's disk,
as separate machines would share nothing): a web process, the code and the problem packages
under CODEOPT_PACKAGE_ROOTS (the repository's `problems/packs`), its CODEOPT_VAR_DIR for
its own files only; a timing host, the same code and packages at the same path, bubblewrap,
g++ and valgrind, its CODEOPT_VAR_DIR and a TMPDIR (the sandbox's working folders, the
scoring inputs it regenerates from the database). Built problems, reference runtimes,
jobs and results all live in the database; messages in the broker.

Redis: the broker is database `broker_db` (default 12), owned by the cluster while it runs
(a lock key in it refuses a second cluster on the same database; it is flushed at start and
at the end); the channel layer uses `channel_db` (default 10) under the cluster's prefix,
whose keys are deleted at the end. Everything the harness starts, it stops: on `stop()`,
on leaving the `with` block (exceptions included), at interpreter exit, and on SIGTERM or
Ctrl-C for the command.

The harness in modules: this one, the command; scripts/cluster_topology.py, `Cluster`;
scripts/cluster_hosts.py, its processes; scripts/readiness.py, `wait_until`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python scripts/cluster.py`
    sys.path.insert(0, str(ROOT))

from scripts.cluster_topology import Cluster  # noqa: E402
from scripts.readiness import wait_until  # noqa: E402

__all__ = ["Cluster", "main", "wait_until"]  # what tests and benchmarks import from here


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", help="start the cluster and run until Ctrl-C")
    up.add_argument("--timing-hosts", type=int, default=2)
    up.add_argument("--web", type=int, default=2)
    up.add_argument("--training-hosts", type=int, default=0, help="workers on the gpu queue")
    up.add_argument("--folder", type=Path, help="logs and each host's folders (default: temp)")
    up.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432")
    up.add_argument("--redis", default="redis://127.0.0.1:6379")
    up.add_argument("--channel-db", type=int, default=10)
    up.add_argument("--broker-db", type=int, default=12)
    up.add_argument("--user", default="cluster", help="a user made with its API token")
    args = parser.parse_args(argv)

    def stop_on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_on_signal)
    try:
        cluster = Cluster(
            args.timing_hosts,
            args.web,
            training_hosts=args.training_hosts,
            folder=args.folder,
            postgres=args.postgres,
            redis=args.redis,
            channel_db=args.channel_db,
            broker_db=args.broker_db,
        )
    except ValueError as exc:  # a count out of range: argparse's usage and message
        parser.error(f"--{str(exc).split()[0].replace('_', '-')}: {exc}")
    cluster.keep_folder = True  # `up` prints where its logs are: they stay
    try:
        with cluster:
            token = cluster.api_token(args.user)
            print(
                f"cluster {cluster.tag}: database {cluster.database_name}, logs in {cluster.folder}"
            )
            for web in cluster.webs:
                print(f"  {web.name:10} {web.url}")
            for host in cluster.hosts:
                print(f"  {host.name:10} {host.hostname} on cores {host.cores}")
            for host in cluster.trainers:
                print(f"  {host.name:10} {host.hostname} (queue gpu)")
            print(f"  user {args.user!r} (password {args.user!r}), API token {token}")
            print("Ctrl-C stops everything.")
            while all(member.alive() for member in cluster.members):
                time.sleep(1)
            gone = [m.name for m in cluster.members if not m.alive()]
            print(f"exited: {', '.join(gone)}; stopping", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        print("\nstopping…")
        return 0


if __name__ == "__main__":
    sys.exit(main())

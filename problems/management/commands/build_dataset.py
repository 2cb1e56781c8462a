"""Run the construction pipeline (problems.pipeline) and print its funnel."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from problems import services
from problems.pipeline import PipelineConfig


class Command(BaseCommand):
    help = (
        "Build the dataset: verify references, make consensus correctness tests and "
        "optimization tests, keep time-discriminative problems, split train/test."
    )

    def add_arguments(self, parser):
        parser.add_argument("--problems", nargs="*", default=[], help="Slugs (default: all).")
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help="A pipeline setting, e.g. --set slow_target_s=0.5 (see PipelineConfig).",
        )
        parser.add_argument(
            "--queue", action="store_true", help="Queue it for a Celery worker instead."
        )

    def handle(self, *args, problems, set, queue, **options):
        values = {}
        for item in set:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"set: {item!r} is not FIELD=VALUE")
            values[name.strip()] = value.strip()
        try:
            config, slugs = services.check_build_request(values, problems)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if queue:
            build = services.do_create_build(config, slugs, started_by="command line")
            self.stdout.write(f"build {build.pk} queued")
            return
        build = services.do_create_build(config, slugs, started_by="command line", queue=False)
        self._print_config(config)
        last = [""]

        def progress(build_row) -> None:
            if build_row.stage != last[0]:
                last[0] = build_row.stage
                sys.stderr.write(f"\r[{build_row.progress:6.1%}] {build_row.stage}\x1b[K")
                sys.stderr.flush()

        build = services.do_run_build(build.pk, on_update=progress)
        sys.stderr.write("\n")
        for result in build.problems.select_related("problem"):
            outcome = "kept" if result.kept else f"stopped at stage {result.stage_reached + 1}"
            why = f": {result.reason}" if result.reason else ""
            self.stdout.write(f"{result.problem.slug}: {outcome}{why}")
        width = max(len(name) for name, _ in build.funnel)
        for name, count in build.funnel:
            self.stdout.write(f"  {name:<{width}}  {count}")
        for source, row in build.generator_funnel.get("sources", {}).items():
            reached = row["stages"]["optimization tests"]
            alone = row["alone"]["optimization tests"]
            self.stdout.write(
                f"  generators {source}: {row['proposed']} proposed, {row['valid']} valid; "
                f"problems with optimization tests from them: {reached} ({alone} from them only)"
            )
        rate = build.executions / build.wall_seconds if build.wall_seconds else 0
        self.stdout.write(
            f"build {build.pk}: {build.executions} executions in {build.wall_seconds:.1f} s "
            f"({rate:.1f}/s)"
        )

    def _print_config(self, config: PipelineConfig) -> None:
        settings = ", ".join(f"{k}={v}" for k, v in config.as_dict().items())
        self.stdout.write(f"settings: {settings}")

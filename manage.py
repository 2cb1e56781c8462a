#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")
    from django.core.management import execute_from_command_line

    from foundation.startup import check_command

    check_command(sys.argv[1:])  # exits, naming the variable, when a service is unreachable
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

"""Hostile programs that keep at it for as long as they are let run, and a correct program
to measure beside them: for tests/execution/test_sandbox_isolation.py and
benchmarks/sandbox_isolation.py. Each hostile program attacks what runs share on a host:
processes, memory, the disk and the output path, the CPUs. None of them ends by itself;
the wall clock ends them.
"""

from __future__ import annotations

from execution.sandbox import Limits

NEIGHBOURS = {
    # every process it can get, each forking again, forever
    "fork bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    ),
    # children that each fill memory past the limit, one after another
    "memory hog": (
        "import os\nwhile True:\n    pid = os.fork()\n    if pid == 0:\n"
        "        try:\n            block = bytearray(1 << 30)\n        except MemoryError:\n"
        "            pass\n        os._exit(0)\n    os.waitpid(pid, 0)\n"
    ),
    # writes as fast as it can, past its output cap (EFBIG and SIGXFSZ ignored)
    "output flood": (
        "import os, signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\nblock = b'x' * 65536\n"
        "while True:\n    try:\n        os.write(1, block)\n    except OSError:\n        pass\n"
    ),
    # eight processes spinning
    "cpu burner": ("import os\nfor _ in range(3):\n    os.fork()\nwhile True:\n    pass\n"),
    # files of 16 MB in /box and /tmp until they are full, then written over again
    "disk filler": (
        "import itertools\nblock = b'x' * (1 << 20)\nfor i in itertools.count():\n"
        "    for folder in ('/box', '/tmp'):\n        try:\n"
        "            with open(f'{folder}/fill-{i % 64}', 'wb') as f:\n"
        "                for _ in range(16):\n                    f.write(block)\n"
        "        except OSError:\n            pass\n"
    ),
}
NEIGHBOUR_LIMITS = Limits(cpu_seconds=30, wall_seconds=10, memory_mb=256, output_mb=8)
"""Long enough to be running during every measurement beside them; the wall clock ends them."""

CORRECT = (
    "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\ntotal = 0\n"
    "for _ in range(100):\n    for x in nums:\n        total += x\nprint(total // 100)\n"
)
"""A correct program doing about 0.15 s of CPU work on 20,000 numbers (CORRECT_INPUT)."""
CORRECT_INPUT = "20000\n" + " ".join(["7"] * 20000) + "\n"
CORRECT_ANSWER = f"{7 * 20000}\n"
CORRECT_LIMITS = Limits(cpu_seconds=5, wall_seconds=30, memory_mb=256, output_mb=1)
"""Generous wall time: on two shared cores beside five neighbours the program gets a fair
share of one core, not the whole of it (its CPU time is what is compared)."""

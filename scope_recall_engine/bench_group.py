"""``scope-recall bench``: one group; each benchmark lives in its owner's module and joins here with one line."""

import click

from .bench import recall_command
from .bench_faults import faults_bench
from .bench_prefetch import prefetch_command
from .bench_write import write_bench


@click.group(name="bench")
def bench():
    """Throughput and latency figures (each command also prints --json)."""


bench.add_command(recall_command)
bench.add_command(write_bench)
bench.add_command(prefetch_command)
bench.add_command(faults_bench)

"""Ask a server's ``/healthz`` every ``--every`` seconds for ``--seconds`` (or until SIGTERM)
from a process of its own, so the load generator's event loop cannot delay the probe, and
print the latencies as JSON: ``{"probes": n, "failures": n, "maxMs": x, "p50Ms": x, ...}``.

    python bench/healthz_probe.py --port 8000 --seconds 60
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import signal
import sys
import time
from typing import Any

STOPPED = False


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.0
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def probe(port: int, seconds: float, every: float) -> dict[str, float]:
    """Probe ``/healthz`` on 127.0.0.1:``port`` over one keep-alive connection (a new one
    after a failure)."""
    latencies: list[float] = []
    failures = 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at and not STOPPED:
        sent = time.perf_counter()
        try:
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            failures += response.status != 200
        except (OSError, http.client.HTTPException):
            failures += 1
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        latencies.append((time.perf_counter() - sent) * 1000)
        time.sleep(every)
    connection.close()
    return {"probes": len(latencies), "failures": failures,
            "maxMs": round(max(latencies, default=0.0), 1),
            "p50Ms": round(percentile(latencies, 50), 1),
            "p99Ms": round(percentile(latencies, 99), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=math.inf)
    parser.add_argument("--every", type=float, default=0.1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _stop)
    print(json.dumps(probe(args.port, args.seconds, args.every)), flush=True)


def _stop(signum: int, frame: Any) -> None:
    global STOPPED
    STOPPED = True


async def start(port: int, every: float = 0.1) -> Any:
    """Start the probe as a child process of an asyncio program; :func:`finish` it."""
    import asyncio

    return await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--port", str(port), "--every", str(every),
        stdout=asyncio.subprocess.PIPE)


async def finish(process: Any) -> dict[str, Any]:
    """Stop a probe started by :func:`start` and read its figures."""
    process.terminate()
    out, _ = await process.communicate()
    result: dict[str, Any] = json.loads(out)
    return result


if __name__ == "__main__":
    main()

"""Run the rendering service: ``python -m renderer.serve --host 127.0.0.1 --port 8000``.

Prints the address and the URL of the reference drawing, then runs uvicorn until stopped.

>>> build_parser().parse_args(["--port", "9000"]).port
9000
"""

from __future__ import annotations

import argparse

REFERENCE_DRAWING = "drawings/document-processing.svg"


def build_parser() -> argparse.ArgumentParser:
    """The command-line options of the server."""
    parser = argparse.ArgumentParser(prog="python -m renderer.serve",
                                     description="Serve the workflow renderer over HTTP.")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    parser.add_argument("--port", type=int, default=8000, help="TCP port to listen on")
    parser.add_argument("--pool-size", type=int, default=None,
                        help="layout worker processes (default: renderer.isolation's)")
    return parser


def banner(host: str, port: int) -> str:
    """The line printed before the server starts.

    >>> banner("127.0.0.1", 8000)
    'Serving on http://127.0.0.1:8000/ ; reference drawing: http://127.0.0.1:8000/drawings/document-processing.svg'
    """
    base = f"http://{host}:{port}/"
    return f"Serving on {base} ; reference drawing: {base}{REFERENCE_DRAWING}"


def main(argv: list[str] | None = None) -> None:
    """Parse ``argv``, print :func:`banner` and run uvicorn."""
    import uvicorn

    from renderer.isolation import DEFAULT_POOL_SIZE, WorkerPool
    from renderer.service import create_app

    args = build_parser().parse_args(argv)
    pool = WorkerPool(args.pool_size or DEFAULT_POOL_SIZE)
    print(banner(args.host, args.port), flush=True)
    uvicorn.run(create_app(pool=pool), host=args.host, port=args.port)


if __name__ == "__main__":
    main()

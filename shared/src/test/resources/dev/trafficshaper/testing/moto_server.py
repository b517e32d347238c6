"""Runs the moto server for the integration tests: single-threaded, on a free loopback port.

Single-threaded because moto's backends are not safe under concurrent requests: only when
requests are served one at a time is a conditional write atomic, as it is on AWS.

Prints "MOTO_PORT=<port>" once listening, and exits when its standard input closes, so it
never outlives the JVM that started it.

Options:
  --config JSON   merged over the defaults below and applied through moto's config API
                  (keys: "batch", "lambda", "stepfunctions").

Defaults: Lambda and Batch without Docker, and Step Functions executing state machines with
moto's ASL interpreter (JSONPath only).
"""
import argparse
import json
import logging
import os
import sys
import threading

DEFAULT_CONFIG = {
    "batch": {"use_docker": False},
    "lambda": {"use_docker": False},
    "stepfunctions": {"execute_state_machine": True},
}


def exit_when_parent_goes_away():
    try:
        while sys.stdin.read(1024):
            pass
    finally:
        os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--config", default="{}")
    args = parser.parse_args()

    try:
        from werkzeug.serving import make_server
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        from moto.moto_api._internal.models import moto_api_backend
    except ImportError as e:
        print("moto server is not installed (%s): pip install 'moto[server]'" % e, file=sys.stderr)
        sys.exit(3)

    config = dict(DEFAULT_CONFIG)
    config.update(json.loads(args.config))
    moto_api_backend.set_config(config)

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server(args.host, args.port, app, threaded=False)
    threading.Thread(target=exit_when_parent_goes_away, daemon=True).start()
    print("MOTO_PORT=%d" % server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

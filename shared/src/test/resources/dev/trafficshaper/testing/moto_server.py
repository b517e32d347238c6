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

Patched for speed, same results: DynamoDB TransactWriteItems backs up only the items a
transaction names (snapshot_only_touched_items), and a table Query reads only its partition
(query_only_the_partition). Unpatched, both cost time in proportion to the table size per call.
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


def snapshot_only_touched_items():
    """moto backs up every table a transaction touches with a deep copy, once per action, so it
    can roll back a cancelled transaction: O(actions x table size) per call, close to a second for
    a 25-item admission on a table of a thousand items. Instead back up only the items the
    transaction names and restore just those; moto's own rollback is left with nothing to do."""
    import copy
    from moto.dynamodb import models
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    class NoTableCopies:
        def __getattr__(self, name):
            return getattr(copy, name)

        @staticmethod
        def deepcopy(value, *args, **kwargs):
            return value if isinstance(value, Table) else copy.deepcopy(value, *args, **kwargs)

    models.copy = NoTableCopies()
    original = models.DynamoDBBackend.transact_write_items

    def transact_write_items(self, transact_items):
        saved = []
        for entry in transact_items:
            try:
                _, op = next(iter(entry.items()))
                table = self.tables.get(op.get("TableName"))
                key = op.get("Key") or op.get("Item")
                hash_key = DynamoType(key[table.hash_key_attr])
                range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
                saved.append((table, hash_key, range_key, copy.deepcopy(table.get_item(hash_key, range_key))))
            except Exception:
                continue  # malformed action: moto's own validation reports it
        try:
            return original(self, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(saved):
                if item is not None and range_key is not None:
                    table.items[hash_key][range_key] = item
                elif item is not None:
                    table.items[hash_key] = item
                elif range_key is not None:
                    table.items[hash_key].pop(range_key, None)
                else:
                    table.items.pop(hash_key, None)
            raise

    models.DynamoDBBackend.transact_write_items = transact_write_items


def query_only_the_partition():
    """moto's table Query (no index) walks and sorts every item of the table, then keeps those
    with the queried hash key. Hand it just that partition's items; what it returns is the same."""
    from moto.dynamodb.models.table import Table

    original = Table.query

    def query(self, hash_key, *args, **kwargs):
        index_name = kwargs.get("index_name") if len(args) < 7 else args[6]
        if index_name or hash_key is None:
            return original(self, hash_key, *args, **kwargs)
        partition = self.items.get(hash_key)
        if partition is None:
            only = []
        elif self.range_key_attr:
            only = list(partition.values())
        else:
            only = [partition]
        self.all_items = lambda: only
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    Table.query = query


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

    snapshot_only_touched_items()
    query_only_the_partition()
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

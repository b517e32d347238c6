"""Runs the moto server for the integration tests: one request at a time, on a free loopback port.

One request at a time because moto's backends are not safe under concurrent requests: only when
requests are served one at a time is a conditional write atomic, as it is on AWS. Connections are
still accepted and read on threads of their own, and a request's whole body is read before it
takes its turn, so a client that stalls half-way through a request holds up no one but itself (a
single-threaded server waits on it, and every other client's connect times out). A connection
that sends nothing for SOCKET_TIMEOUT_SECONDS is dropped. A watchdog writes to standard error
which request has held the server for more than SLOW_REQUEST_SECONDS, with every thread's stack,
so a stuck emulator can be told from a stuck test.

Prints "MOTO_PORT=<port>" once listening, and exits when its standard input closes, so it
never outlives the JVM that started it.

Options:
  --config JSON   merged over the defaults below and applied through moto's config API
                  (keys: "batch", "lambda", "stepfunctions").

Defaults: Lambda and Batch without Docker, and Step Functions executing state machines with
moto's ASL interpreter (JSONPath only).

Patched for speed, same results: DynamoDB TransactWriteItems backs up only the items a
transaction names (snapshot_only_touched_items), a table Query reads only its partition
(query_only_the_partition), and an item's attribute values are written to the response as moto
holds them, already in their wire form (serialize_attribute_values_directly). Unpatched, the first
two cost time in proportion to the table size per call, the third about 14 ms per item read.

Patched for Step Functions: every StartExecution works, not only the first (moto issue #10077,
start_executions_from_a_definition_snapshot); a task token whose task has ended is refused with
TaskTimedOut, as AWS does (refuse_closed_task_tokens); SendTaskFailure keeps its cause
(keep_the_cause_of_task_failures); and when the "lambda" config names an
"invoke_endpoint", the Lambda invocations of running state machines go there instead of to moto's
echoing Lambda (invoke_lambda_at_the_configured_endpoint), so a test can run the handlers itself.
"""
import argparse
import io
import json
import logging
import os
import sys
import threading
import time
import traceback

SOCKET_TIMEOUT_SECONDS = 300
SLOW_REQUEST_SECONDS = 60

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


def serialize_attribute_values_directly():
    """moto serializes every DynamoDB AttributeValue member by member through its model-driven
    serializer, trying each of the ten members of the shape with several name aliases: about 14 ms
    per queue item read, so a Query of 75 items takes a second. An AttributeValue that moto holds
    is already in its wire form ({"S": ...}, {"N": ...}, {"M": {...}}, ...), which is what the
    serializer would write for it: write it as it is. Values that hold binaries still go the long
    way (their bytes are base64-encoded on the wire)."""
    from moto.core.serialize import BaseJSONSerializer

    plain = {"S", "N", "SS", "NS", "NULL", "BOOL", "M", "L"}

    def wire_form(value):
        if not isinstance(value, dict) or len(value) != 1:
            return False
        (kind, inner), = value.items()
        if kind not in plain:
            return False
        if kind == "M":
            return isinstance(inner, dict) and all(wire_form(v) for v in inner.values())
        if kind == "L":
            return isinstance(inner, list) and all(wire_form(v) for v in inner)
        if kind in ("SS", "NS"):
            return isinstance(inner, list) and all(isinstance(v, str) for v in inner)
        if kind in ("S", "N"):
            return isinstance(inner, str)
        return isinstance(inner, bool)

    original = BaseJSONSerializer._serialize_type_structure

    def serialize_type_structure(self, serialized, value, shape, key):
        if key and shape.name == "AttributeValue" and wire_form(value):
            self._default_serialize(serialized, value, shape, key)
            return
        original(self, serialized, value, shape, key)

    BaseJSONSerializer._serialize_type_structure = serialize_type_structure


def start_executions_from_a_definition_snapshot():
    """moto issue #10077: StartExecution snapshots the state machine with copy.deepcopy, and the
    copy reaches every execution moto keeps: the machine's own (and its versions') executions, and,
    through its backend reference, those of every other machine. A started execution holds live
    threads and locks, so once one exists in the region every further StartExecution fails with
    "cannot pickle '_thread.RLock' object". The snapshot needs only the definition and settings:
    copy the machine with empty execution lists and the backend shared, not copied."""
    import copy
    from moto.stepfunctions.models import StateMachineInstance
    from moto.stepfunctions.parser import models

    class SnapshotCopies:
        def __getattr__(self, name):
            return getattr(copy, name)

        @staticmethod
        def deepcopy(value, memo=None, *args):
            if isinstance(value, StateMachineInstance):
                memo = {} if memo is None else memo
                for instance in [value, *getattr(value, "versions", {}).values()]:
                    memo[id(instance.executions)] = []
                backend = getattr(value, "backend", None)
                if backend is not None:
                    memo[id(backend)] = backend
            return copy.deepcopy(value, memo, *args)

    models.copy = SnapshotCopies()


def refuse_closed_task_tokens():
    """AWS answers SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat with TaskTimedOut once the
    token's task has ended (completed, failed or timed out). moto accepts such a late answer
    silently while the execution still runs, and says InvalidToken once it has ended. Mark the
    token closed when its task stops waiting, and refuse closed tokens before moto looks; unknown
    tokens stay InvalidToken. (moto's TaskTimedOut cannot be raised as is: it lacks a message.)"""
    from moto.stepfunctions.parser.api import ServiceException, TaskTimedOut
    from moto.stepfunctions.parser.asl.eval.callback.callback import CallbackEndpoint
    from moto.stepfunctions.parser.models import StepFunctionsParserBackend

    def timed_out(self, message="Task Timed Out: 'Provided task does not exist anymore'"):
        ServiceException.__init__(self, message, TaskTimedOut.code, TaskTimedOut.status_code)

    TaskTimedOut.__init__ = timed_out

    interrupt_all = CallbackEndpoint.interrupt_all

    def interrupt_and_close(self):
        interrupt_all(self)
        self.closed = True

    CallbackEndpoint.interrupt_all = interrupt_and_close

    def closed(backend, task_token):
        for execution in backend._get_executions():
            env = getattr(execution.exec_worker, "env", None)
            endpoint = env.callback_pool_manager.get(task_token) if env is not None else None
            if endpoint is not None:
                return getattr(endpoint, "closed", False)
        return False

    def refusing_closed_tokens(original):
        def send(self, task_token, *args, **kwargs):
            if closed(self, task_token):
                raise TaskTimedOut()
            return original(self, task_token, *args, **kwargs)

        return send

    for name in ("send_task_success", "send_task_failure", "send_task_heartbeat"):
        original = getattr(StepFunctionsParserBackend, name)
        setattr(StepFunctionsParserBackend, name, refusing_closed_tokens(original))


def keep_the_cause_of_task_failures():
    """moto's SendTaskFailure reads the error and drops the cause, so a Catch sees
    {"Error": ..., "Cause": null}; AWS passes the cause on."""
    from moto.core.responses import EmptyResult
    from moto.stepfunctions.responses import StepFunctionResponse

    def send_task_failure(self):
        self.stepfunction_backend.send_task_failure(
            self._get_param("taskToken"), error=self._get_param("error"), cause=self._get_param("cause"))
        return EmptyResult()

    StepFunctionResponse.send_task_failure = send_task_failure


def invoke_lambda_at_the_configured_endpoint():
    """moto runs a state machine's Lambda tasks (plain function ARNs and lambda:invoke) by calling
    the Lambda Invoke API of moto itself, whose Docker-less Lambda echoes the payload back; it
    also addresses itself at localhost:$MOTO_PORT (default 5000), not at the port we listen on.
    When the "lambda" config holds "invoke_endpoint" (POST /moto-api/config
    {"lambda": {"use_docker": false, "invoke_endpoint": "http://127.0.0.1:<port>"}}), send those
    Invoke calls there instead: the test serves the Lambda Invoke API and runs the handlers in
    process. The call is made from the execution's own thread, never from the thread serving
    requests, so a handler may call this server while the state machine waits for it."""
    import boto3
    from botocore.config import Config
    from moto.core.config import default_user_config
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    original = lambda_eval_utils.boto_client_for

    def boto_client_for(region, service, state_credentials=None):
        endpoint = default_user_config.get("lambda", {}).get("invoke_endpoint")
        if service != "lambda" or not endpoint:
            return original(region=region, service=service, state_credentials=state_credentials)
        return boto3.client(
            "lambda",
            endpoint_url=endpoint,
            region_name=region,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            config=Config(parameter_validation=False, retries={"total_max_attempts": 1},
                          connect_timeout=10, read_timeout=900),
        )

    lambda_eval_utils.boto_client_for = boto_client_for


class OneRequestAtATime:
    """Wraps a WSGI application so it serves one request at a time, on whichever thread read it.
    The body is read in full before the request takes its turn, and the response is drained before
    the turn ends, so the turn holds no socket I/O."""

    def __init__(self, app):
        self.app = app
        self.turn = threading.Lock()
        self.current = None  # (monotonic start, description) of the request holding the turn

    def __call__(self, environ, start_response):
        from werkzeug.wsgi import get_input_stream

        environ["wsgi.input"] = io.BytesIO(get_input_stream(environ).read())
        with self.turn:
            self.current = (time.monotonic(), describe(environ))
            try:
                result = self.app(environ, start_response)
                try:
                    return [b"".join(result)]
                finally:
                    if hasattr(result, "close"):
                        result.close()
            finally:
                self.current = None

    def watch(self):
        reported = None
        while True:
            time.sleep(5)
            current = self.current
            if current is None or current is reported:
                continue
            held = time.monotonic() - current[0]
            if held > SLOW_REQUEST_SECONDS:
                reported = current
                report_stuck(current[1], held)


def describe(environ):
    target = environ.get("HTTP_X_AMZ_TARGET") or ""
    return "%s %s %s" % (environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"), target)


def report_stuck(request, held):
    lines = ["moto watchdog: '%s' has held the server for %.0f s; threads:" % (request.strip(), held)]
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        lines.append("--- thread %s" % names.get(ident, ident))
        lines.extend(line.rstrip() for line in traceback.format_stack(frame))
    print("\n".join(lines), file=sys.stderr, flush=True)


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
        from werkzeug.serving import WSGIRequestHandler, make_server
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        from moto.moto_api._internal.models import moto_api_backend
    except ImportError as e:
        print("moto server is not installed (%s): pip install 'moto[server]'" % e, file=sys.stderr)
        sys.exit(3)

    snapshot_only_touched_items()
    query_only_the_partition()
    serialize_attribute_values_directly()
    start_executions_from_a_definition_snapshot()
    refuse_closed_task_tokens()
    keep_the_cause_of_task_failures()
    invoke_lambda_at_the_configured_endpoint()
    config = dict(DEFAULT_CONFIG)
    config.update(json.loads(args.config))
    moto_api_backend.set_config(config)

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = OneRequestAtATime(DomainDispatcherApplication(create_backend_app))

    class TimingOutRequestHandler(WSGIRequestHandler):
        timeout = SOCKET_TIMEOUT_SECONDS

    server = make_server(args.host, args.port, app, threaded=True, request_handler=TimingOutRequestHandler)
    server.daemon_threads = True
    threading.Thread(target=app.watch, name="watchdog", daemon=True).start()
    os.environ["MOTO_PORT"] = str(server.server_port)  # where moto's service integrations call moto
    threading.Thread(target=exit_when_parent_goes_away, daemon=True).start()
    print("MOTO_PORT=%d" % server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

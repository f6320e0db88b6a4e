"""``python -m paimon_c._service_exec``: the Ray executor of ``paimon serve``
(``compaction-service.executor=ray``, ``compaction-service.ray.address``).

The service plans a pass, holds its bucket's latch and commits it; this
process only executes the pass's tasks on the Ray cluster:
  1. standard input: {"address": ..., "table": <path>, "tasks": [task documents]};
  2. ``ray.init(address)``; every task runs as a Ray task
     (:func:`paimon_c._driver.execute_task_json`: the worker opens the
     table by path), a failed one is sent again up to twice unless a retry
     cannot help (invalid, corrupt, unsupported, conflicting input);
  3. standard output: {"results": [result documents]} in task order, exit 0;
     or, when a task finally fails, the results already returned are
     aborted (their files deleted) and the answer is
     {"error": {"code": <pm_code>, "message": ...}}, exit 1;
  4. when the answer cannot be written (the service died meanwhile), the
     results are aborted too: nothing this process wrote stays behind.
"""

import json
import os
import sys

MAX_RETRIES = 2


def _execute(req):
    import ray

    from ._driver import _retryable, _unwrap, execute_task_json
    from .compact import CompactResult
    from .table import open_table

    if not ray.is_initialized():  # (tests run it inside a driver)
        ray.init(address=req.get("address") or "auto", log_to_driver=False, configure_logging=False)
    remote = ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(execute_task_json)
    path = req["table"]
    tasks = [json.dumps(t) for t in req["tasks"]]
    results = [None] * len(tasks)
    attempts = [0] * len(tasks)
    in_flight = {remote.remote(path, text, None): i for i, text in enumerate(tasks)}
    failure = None
    while in_flight:
        done, _ = ray.wait(list(in_flight), num_returns=1)
        for ref in done:
            i = in_flight.pop(ref)
            try:
                results[i] = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - any task failure is handled alike
                if failure is None and _retryable(exc) and attempts[i] < MAX_RETRIES:
                    attempts[i] += 1
                    in_flight[remote.remote(path, tasks[i], None)] = i
                elif failure is None:
                    failure = _unwrap(exc)
    if failure is not None:
        got = [CompactResult.from_json(r) for r in results if r is not None]
        if got:
            open_table(path).new_compact_builder().new_commit().abort_compact(got)
        raise failure
    return results


def main() -> int:
    # The answer owns standard output: whatever Ray or its processes print
    # goes to standard error (the service's log).
    answer = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        req = json.load(sys.stdin)
        results = _execute(req)
        doc, rc = {"results": [json.loads(r) for r in results]}, 0
    except Exception as exc:  # noqa: BLE001 - the service gets every failure as an answer
        code = getattr(exc, "code", None)
        msg = "%s: %s" % (type(exc).__name__, exc)
        doc, rc = {"error": {"code": code if isinstance(code, int) else 8, "message": msg}}, 1
    try:
        json.dump(doc, answer)
        answer.close()
    except OSError:
        # the service is gone (killed mid-pass): nobody will commit or abort these
        if rc == 0:
            from .compact import CompactResult
            from .table import open_table
            got = [CompactResult.from_json(r) for r in results]
            open_table(req["table"]).new_compact_builder().new_commit().abort_compact(got)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())

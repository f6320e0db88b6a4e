"""Installed in every Ray worker of tests/python/test_ray.py (Ray's
worker_process_setup_hook): kills the worker process with SIGKILL in the
middle of a compaction task -- after it opened the table and read the
task, before it executes -- as often as the test's kill file says.

The kill file (path in $PAIMON_C_TEST_KILL) is JSON {"task_index": i,
"times": n}; every kill appends a line to <kill file>.kills.
"""
import json
import os
import signal


def install():
    from paimon_c import _driver
    real = _driver.execute_task_json

    def execute_task_json(table_path, task_json, branch=None):
        cfg_path = os.environ.get("PAIMON_C_TEST_KILL")
        if cfg_path and os.path.exists(cfg_path):
            with open(cfg_path) as f:
                cfg = json.load(f)
            if json.loads(task_json)["task_index"] == cfg["task_index"]:
                import paimon_c
                paimon_c.open_table(table_path, branch)
                paimon_c.CompactTask.from_json(task_json)
                kills = cfg_path + ".kills"
                done = open(kills).read().count("\n") if os.path.exists(kills) else 0
                if done < cfg["times"]:
                    with open(kills, "a") as f:
                        f.write("killed pid %d\n" % os.getpid())
                    os.kill(os.getpid(), signal.SIGKILL)
        return real(table_path, task_json, branch)

    _driver.execute_task_json = execute_task_json

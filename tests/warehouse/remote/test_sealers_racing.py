"""Two sealers racing for the next manifest: every event is committed exactly once and the chain holds."""

import json
import subprocess

from peerlake.warehouse.verify import verify_lake
from tests.warehouse.remote.support import PYTHON, REPO, child_env, committed_rows, keys, machine

N = 4
# Appends and seals N papers, one seal per paper; a short pause between staging and the manifest widens
# the window in which the other process commits the same seq.
SEALER = """
import json, sys, time
from tests.warehouse.remote.support import paper
from peerlake.warehouse import commit
from peerlake.warehouse.log import EventLog

attempts = []
commit.after_staging = lambda: (attempts.append(1), time.sleep(0.02))
log = EventLog()
print("ready", flush=True)
sys.stdin.readline()
ids = []
for i in range(N_PAPERS):
    ids.append(log.append(paper(log, int(sys.argv[1]) + i)).event_id)
    log.seal()
print(json.dumps({"ids": ids, "attempts": len(attempts)}), flush=True)
""".replace("N_PAPERS", str(N))


def _race(homes, url) -> list[dict]:
    children = [subprocess.Popen([PYTHON, "-c", SEALER, str(100 * k)], cwd=REPO, env=child_env(home, url),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for k, home in enumerate(homes)]
    for child in children:
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    outs = [json.loads(child.communicate(timeout=60)[0].strip().splitlines()[-1]) for child in children]
    assert all(child.returncode == 0 for child in children)
    return outs


def _assert_committed_once(s3, url, ids, log):
    rows = committed_rows(s3, url, "paper_ingested")
    assert sorted(r["event_id"] for r in rows) == sorted(ids)  # all of them, none twice
    assert keys(s3, url, "events/staging/") == []
    report = verify_lake(log)
    assert report.ok, report.problems


def test_two_machines_sealing_at_once_commit_each_event_once(tmp_path, s3_lake_url, s3_server):
    outs = _race([tmp_path / "a", tmp_path / "b"], s3_lake_url)
    ids = [i for o in outs for i in o["ids"]]
    assert len(ids) == 2 * N
    _assert_committed_once(s3_server.client(), s3_lake_url, ids, machine(tmp_path, "c", s3_lake_url))


def test_two_processes_of_one_machine_sealing_at_once_commit_each_event_once(tmp_path, s3_lake_url, s3_server):
    outs = _race([tmp_path / "a", tmp_path / "a"], s3_lake_url)
    ids = [i for o in outs for i in o["ids"]]
    log = machine(tmp_path, "a", s3_lake_url)
    assert sorted(e.event_id for e in log.iter_events("paper_ingested")) == sorted(ids)
    _assert_committed_once(s3_server.client(), s3_lake_url, ids, log)
    assert verify_lake(log).checked_wal_ranges >= 2  # both WALs are on this machine: their bytes re-hashed
